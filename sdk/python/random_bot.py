"""Plays a uniformly random legal action, in any game."""

import random

from cairn_bot import Bot, run


class RandomBot(Bot):
    name = "python-random"

    def decide(self, request):
        return random.choice(request["legalActions"])


if __name__ == "__main__":
    run(RandomBot())
