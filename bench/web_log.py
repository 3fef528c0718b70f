#!/usr/bin/python3
"""web_log.py BIN_DIR [--sessions N] [--nodes N] [--reps R] - how fast the
web view's pages become usable in headless Chromium, against baselines
measured in the same run:

* the log page's first rows with N sessions (default 10,000) in the log,
  against the same page with one session;
* a graph page with N nodes (default 5,000: above the drawing limit, so
  the stats and the paged node list) against the 4-node fork/join graph's
  drawn page.

Times are from navigation start to the page's own mark (window.scFirstRows
after the log's first rows are in the table, window.scReady once a graph
page answers clicks), the median of R loads (default 5).  Needs
chromium, chromium-driver and python3-selenium."""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "web"))
import webenv  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def fill_log(d, n):
    """n sessions opened and closed, pipelined 500 at a time on one connection."""
    c = d.connect()
    f = c.makefile("rb")
    done = 0
    while done < n:
        k = min(500, n - done)
        c.sendall("".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "session.open",
                                      "params": {"label": f"bench {done + i}"}}) + "\n" for i in range(k)).encode())
        ids = [json.loads(f.readline())["result"]["session"] for _ in range(k)]
        c.sendall("".join(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.close",
                                      "params": {"session": s}}) + "\n" for s in ids).encode())
        for _ in range(k):
            f.readline()
        done += k
    c.close()


def browser():
    o = Options()
    o.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
        o.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def measure(b, url, mark, reps):
    times = []
    for _ in range(reps):
        b.get(url)
        WebDriverWait(b, 60, poll_frequency=0.02).until(lambda x: x.execute_script(f"return window.{mark} !== undefined"))
        times.append(b.execute_script(f"return window.{mark}"))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bindir")
    ap.add_argument("--sessions", type=int, default=10000)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    small, big = webenv.Daemon(a.bindir), webenv.Daemon(a.bindir)
    b = None
    try:
        small.cli("demo")
        fill_log(big, a.sessions)
        g_small = webenv.fork_join(big)
        g_big = webenv.chain(big, a.nodes)
        ws, wb = webenv.Web(small), webenv.Web(big)
        b = browser()
        b.get(ws.url)  # the token cookie for each server
        b.get(wb.url)
        base = measure(b, ws.base + "/", "scFirstRows", a.reps)
        log = measure(b, wb.base + "/", "scFirstRows", a.reps)
        gbase = measure(b, f"{wb.base}/graph/{g_small}", "scReady", a.reps)
        graph = measure(b, f"{wb.base}/graph/{g_big}", "scReady", a.reps)
        print(f"log page, first rows: 1 session {base:.0f} ms; {a.sessions} sessions {log:.0f} ms "
              f"({log / base:.2f}x the baseline)")
        print(f"graph page, interactive: 4 nodes drawn {gbase:.0f} ms; {a.nodes} nodes listed {graph:.0f} ms "
              f"({graph / gbase:.2f}x the baseline)")
        ws.stop()
        wb.stop()
    finally:
        if b:
            b.quit()
        small.stop()
        big.stop()


if __name__ == "__main__":
    main()
