"""A slow but honest bot: it sleeps (wall time, no CPU) before each
action, so a match of it lasts long. Its first argument is the seconds per
decision; its second, if given, a FIFO it writes its pid to at start (the
test's event that the match is in play). Standard library only."""

import json
import os
import sys
import time


def main():
    pause = float(sys.argv[1])
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as fifo:
            fifo.write(str(os.getpid()))
    for line in sys.stdin:
        message = json.loads(line)
        if "hello" in message:
            send({"ready": {"name": "sleeper"}})
        elif "request" in message:
            request = message["request"]
            time.sleep(pause)
            action = request["legalActions"][0]
            send({"action": {"decisionId": request["decisionId"], "action": action}})
        elif "quit" in message:
            return


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


main()
