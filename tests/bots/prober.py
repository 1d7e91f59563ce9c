"""A bot that tries to break out of its sandbox once, when its process
starts, and then plays the first legal action for the rest of the match.

    python3 prober.py PROBE MARKER [ARGUMENT]

PROBE is one of tcp PORT, udp PORT, write-etc, read-other PATH,
open-files, big-file, signal-parent RUNNER_PID, ptrace-parent RUNNER_PID. MARKER
only marks the command line, so a test can look for leftover processes.

The result goes to stderr (which the runner keeps): `probe NAME: denied
(...)` or `probe NAME: ESCAPED (...)`. A bot that escaped answers every
request with the illegal action `escaped NAME`, so the game result alone
proves the denial: the prober forfeits exactly when the probe got through.
Standard library only."""

import ctypes
import errno
import json
import os
import signal
import socket
import sys

PTRACE_ATTACH = 16


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def connect_to_loopback(kind, port):
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.settimeout(1.0)
        sock.connect(("127.0.0.1", port))
        sock.send(b"escaped\n")
    return "sent a byte to 127.0.0.1:%d" % port


def write_etc(marker):
    path = "/etc/cairn-probe-" + marker
    with open(path, "w") as handle:
        handle.write("escaped\n")
    return "wrote " + path


def read_other(path):
    with open(path, "rb") as handle:
        size = len(handle.read())
    return "read %d bytes of %s" % (size, path)


def open_files():
    files = []
    try:
        for _ in range(5000):
            files.append(open("/dev/null"))
    except OSError as error:
        raise OSError(error.errno, "stopped after %d files" % len(files)) from error
    finally:
        for handle in files:
            handle.close()
    return "opened 5000 files"


def big_file():
    """Python ignores SIGXFSZ, so a write past the file size limit fails
    with EFBIG rather than killing the bot."""
    with open("/tmp/big", "wb") as big:
        for _ in range(200):
            big.write(b"\0" * (1 << 20))
            big.flush()
    return "wrote 200 MiB"


def signal_parent(runner_pid):
    outcomes = []
    for target in (os.getppid(), runner_pid):
        try:
            os.kill(target, signal.SIGKILL)
            outcomes.append("signalled %d" % target)
        except OSError as error:
            outcomes.append("kill %d refused: %s" % (target, errno.errorcode.get(error.errno, error.errno)))
    if any(outcome.startswith("signalled") for outcome in outcomes):
        return "; ".join(outcomes)
    raise OSError(errno.EPERM, "; ".join(outcomes))


def ptrace_parent(runner_pid):
    libc = ctypes.CDLL(None, use_errno=True)
    outcomes = []
    for target in (os.getppid(), runner_pid):
        result = libc.ptrace(PTRACE_ATTACH, target, None, None)
        code = ctypes.get_errno()
        outcomes.append("ptrace %d: %d %s" % (target, result, errno.errorcode.get(code, code)))
        if result == 0:
            return "; ".join(outcomes)
    raise OSError(errno.EPERM, "; ".join(outcomes))


def probe(name, argument, marker):
    """Runs one probe; returns (escaped, detail)."""
    attempts = {
        "tcp": lambda: connect_to_loopback(socket.SOCK_STREAM, int(argument)),
        "udp": lambda: connect_to_loopback(socket.SOCK_DGRAM, int(argument)),
        "write-etc": lambda: write_etc(marker),
        "read-other": lambda: read_other(argument),
        "open-files": open_files,
        "big-file": big_file,
        "signal-parent": lambda: signal_parent(int(argument)),
        "ptrace-parent": lambda: ptrace_parent(int(argument)),
    }
    try:
        return True, attempts[name]()
    except OSError as error:
        return False, "%s: %s" % (errno.errorcode.get(error.errno, error.errno), error.strerror)


def main():
    name, marker = sys.argv[1], sys.argv[2]
    argument = sys.argv[3] if len(sys.argv) > 3 else ""
    escaped, detail = probe(name, argument, marker)
    sys.stderr.write("probe %s: %s (%s)\n" % (name, "ESCAPED" if escaped else "denied", detail))
    sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        if "hello" in message:
            send({"ready": {"name": "prober-" + name}})
        elif "request" in message:
            request = message["request"]
            action = "escaped " + name if escaped else request["legalActions"][0]
            send({"action": {"decisionId": request["decisionId"], "action": action}})
        elif "quit" in message:
            return


main()
