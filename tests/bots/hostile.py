"""A bot that plays properly until its first request, then misbehaves in
the way named by its first argument. Standard library only."""

import json
import os
import signal
import subprocess
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misbehave(mode, request, marker):
    if mode == "garbage":
        send_raw("this is not json\n")
    elif mode == "exit":
        sys.exit(3)
    elif mode == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "illegal":
        send({"action": {"decisionId": request["decisionId"], "action": "play z9 12"}})
    elif mode == "stale-id":
        send({"action": {"decisionId": request["decisionId"] + 100, "action": request["legalActions"][0]}})
    elif mode == "wrong-message":
        send({"ready": {"name": "again"}})
    elif mode == "sleep":
        time.sleep(3600)
    elif mode == "spin":
        while True:
            pass
    elif mode == "long-line":
        chunk = "x" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        sys.stdout.flush()
    elif mode == "close-stdout":
        os.close(1)
        time.sleep(3600)
    elif mode == "daemon":
        # A child in our process group that outlives us, then we leave.
        daemon = [sys.executable, "-c", "import time; time.sleep(3600)", marker]
        subprocess.Popen(daemon, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        sys.exit(0)
    elif mode == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
    elif mode == "memory-4gib":
        # Written, not just reserved: untouched pages would cost nothing.
        hoard = b"x" * (4 << 30)
        send({"action": {"decisionId": request["decisionId"], "action": "allocated %d" % len(hoard)}})
    elif mode == "fork-bomb":
        fork_bomb()
    elif mode == "big-file":
        # Python ignores SIGXFSZ (a write past the limit fails with EFBIG
        # instead, see prober.py); behave like a C or Rust program.
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        with open("/tmp/big", "wb") as big:
            for _ in range(200):
                big.write(b"\0" * (1 << 20))
        send({"action": {"decisionId": request["decisionId"], "action": "wrote 200 MiB"}})
    elif mode == "stderr-flood":
        sys.stderr.write("e" * (8 << 20))
        sys.stderr.flush()
        send({"action": {"decisionId": request["decisionId"], "action": "play z9 12"}})
    time.sleep(3600)


def fork_bomb():
    """Forks until the process cap refuses, every child waiting forever,
    then leaves: the runner must find the cap broken and kill the children."""
    while True:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            signal.pause()
            os._exit(0)
    sys.stderr.write("fork refused\n")
    sys.stderr.flush()
    os._exit(1)


def send_raw(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def main():
    mode = sys.argv[1]
    marker = sys.argv[2] if len(sys.argv) > 2 else "none"
    for line in sys.stdin:
        message = json.loads(line)
        if "hello" in message:
            send({"ready": {"name": mode}})
        elif "request" in message:
            misbehave(mode, message["request"], marker)
        elif "quit" in message:
            return


main()
