"""Random playouts of every game through cairn_engine, from Python.

Prints `bench: python/playouts_per_s/<game> VALUE playouts/s` (a new game,
then Game.play_randomly: the engine plays it out) and
`bench: python/stepped_playouts_per_s/<game> VALUE playouts/s` (Python picks
every action from legal_actions() and applies it), per second of CPU time,
at each game's smallest table of two or more seats with default options.
Beside them, the same playouts in Rust: when run from the workspace with
`cargo` on PATH, the engine's own bench (`cargo bench -p cairn-engine --bench
playouts`) for the same table, as `bench: rust/playouts_per_s/<game>`, and
`bench: python/share_of_rust/<game>` (the Python figure over the Rust one).

usage: python bench_playouts.py [SECONDS_PER_LINE]
"""

import os
import random
import shutil
import subprocess
import sys
import time

import cairn_engine

SEATS = {"schotten-totten": 2, "lords-of-scotland": 2, "bullfrogs": 2}


def rate(play, seconds):
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(32):
            play(games)
            games += 1
    return games / (time.process_time() - start)


def rust_rate(game_id, seats):
    """The engine bench's games per CPU-second for the first variant of
    `game_id` at `seats` seats (its default options), or None without cargo."""
    workspace = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if shutil.which("cargo") is None:
        return None
    prefix = game_id.replace("-", "_") + "/"
    run = subprocess.run(
        ["cargo", "bench", "--quiet", "-p", "cairn-engine", "--bench", "playouts", "--", "--only", prefix],
        cwd=workspace, capture_output=True, text=True, check=False)
    for line in run.stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "bench:" and words[1].endswith("/%dp" % seats):
            return float(words[2])
    sys.stderr.write("no Rust figure for %s: %s\n" % (game_id, run.stderr.strip()[-400:]))
    return None


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    for game_id in cairn_engine.GAMES:
        seats = SEATS.get(game_id, 2)

        def engine_playout(seed):
            cairn_engine.Game(game_id, seats=seats, seed=seed).play_randomly(seed)

        def stepped_playout(seed):
            game = cairn_engine.Game(game_id, seats=seats, seed=seed)
            rng = random.Random(seed)
            while not game.is_over():
                game.apply(rng.choice(game.legal_actions()))

        python_rate = rate(engine_playout, seconds)
        print("bench: python/playouts_per_s/%s %.0f playouts/s" % (game_id, python_rate))
        rust = rust_rate(game_id, seats)
        if rust:
            print("bench: rust/playouts_per_s/%s %.0f playouts/s" % (game_id, rust))
            print("bench: python/share_of_rust/%s %.2f ratio" % (game_id, python_rate / rust))
        print("bench: python/stepped_playouts_per_s/%s %.0f playouts/s" % (game_id, rate(stepped_playout, seconds)))


if __name__ == "__main__":
    main()
