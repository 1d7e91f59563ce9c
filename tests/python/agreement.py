"""Plays seeded random games through cairn_engine and prints, per game, a
digest of every step (the observation JSON the runner sends the seat to act,
every seat's every 16th step, the legal actions, the outcome) and the action indices taken, for tests/tests/it/python_package.rs to
replay through the protocol's own code and compare.

usage: agreement.py GAME OPTIONS_JSON SEATS GAMES
prints: SEED HEX_DIGEST I,I,I,...   (one line a game)
"""

import hashlib
import json
import random
import sys

import cairn_engine


def play(game_id, options, n_seats, seed):
    game = cairn_engine.Game(game_id, seats=n_seats, seed=seed, options=options)
    digest = hashlib.sha256()
    rng = random.Random(seed)
    picks = []
    steps = 0
    while not game.is_over():
        seat = game.current_seat()
        # Every step: what the runner sends the seat to act; every 16th
        # step: every seat's view.
        viewers = range(n_seats) if steps % 16 == 0 else (seat,)
        for viewer in viewers:
            digest.update(game.observation(viewer).encode())
            digest.update(b"\n")
        legal = game.legal_actions()
        digest.update(("legal:" + "\x1f".join(legal) + "\n").encode())
        if steps % 16 == 0:
            check_determinize(game, seat, seed + steps)
            check_refusal(game, legal)
        pick = rng.randrange(len(legal))
        picks.append(pick)
        game.apply(legal[pick])
        steps += 1
    assert game.legal_actions() == [] and game.current_seat() is None
    outcome = game.outcome()
    digest.update(("outcome:%s;%s\n" % (
        ",".join(map(str, outcome["scores"])), ",".join(map(str, outcome["ranks"])))).encode())
    return digest.hexdigest(), picks


def check_determinize(game, seat, seed):
    seen = game.observation(seat)
    rebuilt = cairn_engine.determinize(json.loads(seen), seed)
    assert rebuilt.game_id == game.game_id
    assert rebuilt.observation(seat) == seen, "a determinized state shows its seat another observation"


def check_refusal(game, legal):
    before = game.state_hash()
    copy = game.clone()
    for wrong in ("", "nonsense", legal[0] + " extra"):
        try:
            game.apply(wrong)
        except ValueError:
            pass
        else:
            raise AssertionError("an illegal action %r was applied" % wrong)
    assert game.state_hash() == before, "a refused action changed the state"
    copy.apply(legal[0])
    assert game.state_hash() == before, "playing a clone changed the original"


def main():
    game_id, options, n_seats, games = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    out = sys.stdout
    for seed in range(games):
        hexdigest, picks = play(game_id, options, n_seats, seed)
        out.write("%d %s %s\n" % (seed, hexdigest, ",".join(map(str, picks))))
    out.flush()


if __name__ == "__main__":
    main()
