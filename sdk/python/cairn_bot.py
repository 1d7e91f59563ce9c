"""cairn bot helper for Python: one file, standard library only.

Copy this file next to your bot, subclass Bot, and call run(). The arena
speaks newline-delimited JSON on stdin / stdout (see sdk/PROTOCOL.md):

    hello    -> you answer ready   (start of each game; your seat may change)
    request  -> you answer action  (your turn: pick one of legalActions)
    gameOver -> no answer          (end of a game)
    quit     -> exit               (end of the match)

Messages are dicts in the proto3 JSON mapping (camelCase keys, every field
present). Print debugging output to stderr, never to stdout.
"""

import json
import sys


class Bot:
    """Override decide(); the other hooks are optional."""

    name = "python-bot"

    def hello(self, hello):
        """A game starts: hello has game, options, seat, nSeats, timeControl."""

    def decide(self, request):
        """Return one of request["legalActions"] (a string)."""
        raise NotImplementedError

    def game_over(self, game_over):
        """A game ended: game_over has scores, ranks, endedBy, forfeits."""


def run(bot, stdin=None, stdout=None):
    """Answers the arena until it says quit or closes stdin."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        message = json.loads(line)
        if "hello" in message:
            bot.hello(message["hello"])
            reply = {"ready": {"name": bot.name}}
        elif "request" in message:
            request = message["request"]
            reply = {"action": {"decisionId": request["decisionId"], "action": bot.decide(request)}}
        elif "gameOver" in message:
            bot.game_over(message["gameOver"])
            continue
        elif "quit" in message:
            return
        else:
            continue  # a message kind from a newer arena: not for us
        stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        stdout.flush()
