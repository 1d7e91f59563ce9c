"""A bot that makes one common mistake of a new bot author, named by its
first argument, so the runner's forfeit detail can be checked to name the
fix. Standard library only."""

import json
import sys


def send(message, flush=True):
    sys.stdout.write(json.dumps(message) + "\n")
    if flush:
        sys.stdout.flush()


def main():
    mode = sys.argv[1]
    for line in sys.stdin:
        message = json.loads(line)
        if "hello" in message:
            # The one mistake made at hello: a ready that is never flushed.
            send({"ready": {"name": mode}}, flush=mode != "no-flush")
        elif "request" in message:
            answer(mode, message["request"])
        elif "quit" in message:
            return


def answer(mode, request):
    action = request["legalActions"][0]
    if mode == "debug-print":
        print("thinking about decision", request["decisionId"], flush=True)
    elif mode == "unwrapped":
        send({"decisionId": request["decisionId"], "action": action})
    elif mode == "wrong-kind":
        send({"ready": {"name": "again"}})
    elif mode == "no-flush-action":
        send({"action": {"decisionId": request["decisionId"], "action": action}}, flush=False)
    elif mode == "spin":
        while True:
            pass
    elif mode == "raise":
        raise ValueError("my bot is broken at decision %d" % request["decisionId"])
    else:
        send({"action": {"decisionId": request["decisionId"], "action": action}})


main()
