"""A random bot that writes down what it sees: for each game, its own
actions and the events it is sent, in the order they reach it, then the
final observation its gameOver carried, as JSON lines in the file named by
its first argument."""

import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))
from cairn_bot import Bot, run  # noqa: E402


class Recorder(Bot):
    name = "recorder"

    def __init__(self, path, seed):
        self.log = open(path, "w")
        self.random = random.Random(seed)

    def write(self, entry):
        self.log.write(json.dumps(entry) + "\n")
        self.log.flush()

    def hello(self, hello):
        self.seat = hello["seat"]
        self.write({"game": hello["gameIndex"], "seat": hello["seat"]})

    def decide(self, request):
        for event in request["events"]:
            self.write({"seat": event["seat"], "action": event["action"]})
        action = self.random.choice(request["legalActions"])
        self.write({"seat": self.seat, "action": action})
        return action

    def game_over(self, game_over):
        for event in game_over["events"]:
            self.write({"seat": event["seat"], "action": event["action"]})
        self.write({"seat": self.seat, "final": game_over.get("observation")})


run(Recorder(sys.argv[1], int(sys.argv[2])))
