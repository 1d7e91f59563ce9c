#!/usr/bin/env python3
# Usage: PATH=target/release:$PATH python3 docs/measure_scrape.py target/release/cairn BOTS
# (the bots run `cairn bot-run`, so `cairn` must be on PATH; BOTS=40 queues 1,560 matches).
# Times /metrics scrapes of a real `cairn serve --http` holding one
# tournament with many queued matches (no runner): back-to-back scrapes
# (gauges from the 1 s cache) and scrapes 1.1 s apart (gauges read).
import http.client, os, shutil, subprocess, sys, tempfile, time, statistics

cairn = sys.argv[1]
bots = int(sys.argv[2]) if len(sys.argv) > 2 else 30
root = tempfile.mkdtemp()
serve = subprocess.Popen([cairn, "serve", "--db", f"{root}/arena.db", "--listen", "127.0.0.1:0",
    "--http", "127.0.0.1:0", "--open-registration", "--no-validation",
    "--runner-token", "measure-runner-token-0123456789", "--quota-bots", "1000",
    "--quota-queued-games", "1000000", "--quota-uploads-per-hour", "100000"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    web = serve.stdout.readline().split("http://")[1].strip().rstrip("/")
    arena = "http://" + serve.stdout.readline().split("http://")[1].split()[0]
    out = subprocess.run([cairn, "owner", "register", "ada", "--arena", arena], capture_output=True, text=True, check=True).stdout
    token = [w for w in out.split() if len(w) >= 32][0]
    names = []
    for i in range(bots):
        d = f"{root}/bots/b{i}"; os.makedirs(d)
        open(f"{d}/cairn-bot.toml", "w").write(f'name = "b{i}"\ncommand = ["cairn", "bot-run", "random"]\n')
        subprocess.run([cairn, "bot", "add", d, "--arena", arena, "--token", token], check=True, capture_output=True)
        names.append(f"b{i}")
    subprocess.run([cairn, "tournament", "create", "--game", "schotten-totten", "--arena", arena, "--token", token] + names, check=True, capture_output=True)
    host, port = web.split(":")
    conn = http.client.HTTPConnection(host, int(port))
    def scrape():
        t = time.perf_counter(); conn.request("GET", "/metrics"); r = conn.getresponse(); body = r.read()
        assert r.status == 200, body
        return time.perf_counter() - t, body.decode()
    time.sleep(3)  # planning finishes
    _, body = scrape()
    waiting = [l for l in body.splitlines() if l.startswith("cairn_matches_waiting ")]
    hot = [scrape()[0] for _ in range(40)]  # within the admission burst
    cold = []
    for _ in range(15):
        time.sleep(1.1); cold.append(scrape()[0])
    print(waiting[0], "bytes", len(body))
    print("cached gauges: median %.3f ms p90 %.3f ms" % (statistics.median(hot)*1e3, sorted(hot)[int(len(hot)*.9)]*1e3))
    print("gauges read:   median %.3f ms p90 %.3f ms" % (statistics.median(cold)*1e3, sorted(cold)[int(len(cold)*.9)]*1e3))
finally:
    serve.kill(); serve.wait()
    shutil.rmtree(root, ignore_errors=True)
