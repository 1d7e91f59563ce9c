"""Random playouts of every game through cairn_engine, from Python.

Prints `bench: python/playouts_per_s/<game> VALUE playouts/s` (a new game,
then Game.play_randomly: the engine plays it out) and
`bench: python/stepped_playouts_per_s/<game> VALUE playouts/s` (Python picks
every action from legal_actions() and applies it), per second of CPU time,
at each game's smallest table of two or more seats with default options.
The same in Rust: `cargo bench -p cairn-engine --bench playouts`.

usage: python bench_playouts.py [SECONDS_PER_LINE]
"""

import random
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

        print("bench: python/playouts_per_s/%s %.0f playouts/s" % (game_id, rate(engine_playout, seconds)))
        print("bench: python/stepped_playouts_per_s/%s %.0f playouts/s" % (game_id, rate(stepped_playout, seconds)))


if __name__ == "__main__":
    main()
