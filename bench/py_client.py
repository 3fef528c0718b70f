#!/usr/bin/env python3
"""bench/py_client.py - the Python client against plain socket loops.

Starts its own streamcapd (BUILD/bin/streamcapd, on a temporary socket and
database) and measures, interleaved A B A B and reporting medians:

  round trip   one small call (capture.status) at a time: streamcap.Client
               against a loop writing a pre-encoded request line with
               socket.sendall and reading its reply with recv, the two
               alternating in blocks of 250 calls on their own connections
  pipelined    capture.record_kernel calls through Client.pipeline()
               against the same pre-encoded lines written and read back in
               the same slices by a plain socket

Usage: python3 bench/py_client.py [--build DIR] [--reps N] [--calls N] [--pipelined N]
"""

import argparse
import os
import socket
import statistics
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import streamcap  # noqa: E402
from streamcap.daemon import Daemon  # noqa: E402


def raw_round_trips(sock, line, n):
    t = time.perf_counter()
    for _ in range(n):
        sock.sendall(line)
        buf = sock.recv(65536)
        while not buf.endswith(b"\n"):
            buf += sock.recv(65536)
    return time.perf_counter() - t


def client_round_trips(client, session, n):
    t = time.perf_counter()
    for _ in range(n):
        client.capture_status(session=session, stream=0)
    return time.perf_counter() - t


def round_trips(path, session, calls, block=250):
    """(plain, client) seconds per call over ``calls`` each, alternating
    blocks of ``block`` calls so that both sides see the same load."""
    line = ('{"jsonrpc":"2.0","id":1,"method":"capture.status","params":{"session":%d,"stream":0}}\n' % session).encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    raw = cli = 0.0
    with streamcap.Client(path) as c:
        raw_round_trips(sock, line, block)  # warm both up
        client_round_trips(c, session, block)
        for _ in range(max(1, calls // block)):
            raw += raw_round_trips(sock, line, block)
            cli += client_round_trips(c, session, block)
    sock.close()
    n = max(1, calls // block) * block
    return raw / n, cli / n


def raw_pipelined(path, session, n):
    lines = [
        (
            '{"jsonrpc":"2.0","id":%d,"method":"capture.record_kernel","params":{"session":%d,"stream":0,'
            '"function_name":"k","num_blocks":1,"threads_per_block":32}}' % (i, session)
        )
        for i in range(n)
    ]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    t = time.perf_counter()
    step = 2048
    for i in range(0, n, step):
        chunk = lines[i : i + step]
        s.sendall(("\n".join(chunk) + "\n").encode())
        want = len(chunk)
        buf = b""
        while buf.count(b"\n") < want:
            buf += s.recv(1 << 20)
    t = time.perf_counter() - t
    s.close()
    return t


def client_pipelined(path, session, n):
    with streamcap.Client(path) as c:
        t = time.perf_counter()
        with c.pipeline() as p:
            for _ in range(n):
                p.capture_record_kernel(session=session, stream=0, function_name="k", num_blocks=1, threads_per_block=32)
        return time.perf_counter() - t


def capturing_session(c):
    s = c.session_open(label="bench").session
    c.capture_begin(session=s, stream=0)
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--calls", type=int, default=10000, help="round trips per run")
    ap.add_argument("--pipelined", type=int, default=100000, help="pipelined calls per run")
    a = ap.parse_args()

    with Daemon.start(os.path.join(a.build, "bin", "streamcapd")) as d, d.client() as c:
        s = capturing_session(c)
        raw_rt, cli_rt, raw_pl, cli_pl = [], [], [], []
        for _ in range(a.reps):
            r, k = round_trips(d.socket, s, a.calls)
            raw_rt.append(r)
            cli_rt.append(k)
            # A fresh session per pipelined run keeps the node count (and
            # the daemon's memory) the same for every run.
            for out, fn in ((raw_pl, raw_pipelined), (cli_pl, client_pipelined)):
                ps = capturing_session(c)
                out.append(a.pipelined / fn(d.socket, ps, a.pipelined))
                c.session_close(session=ps)

    rt_raw, rt_cli = statistics.median(raw_rt), statistics.median(cli_rt)
    # The ratio of each run, whose two sides shared its load, then their median.
    rt_ratio = statistics.median(k / r for r, k in zip(raw_rt, cli_rt))
    pl_raw, pl_cli = statistics.median(raw_pl), statistics.median(cli_pl)
    print("| figure | measured | target | met? |")
    print("|---|---|---|---|")
    print("| round trip, plain socket loop (capture.status) | %.1f us | baseline | - |" % (rt_raw * 1e6))
    print(
        "| round trip, streamcap.Client | %.1f us: %.2fx the plain loop | <= 1.5x | %s |"
        % (rt_cli * 1e6, rt_ratio, "yes" if rt_ratio <= 1.5 else "no")
    )
    print("| pipelined record_kernel, plain socket, pre-encoded lines | %.0f k calls/s | baseline | - |" % (pl_raw / 1e3))
    print(
        "| pipelined record_kernel, Client.pipeline() | %.0f k calls/s: %.2fx the plain socket | >= 100k calls/s | %s |"
        % (pl_cli / 1e3, pl_cli / pl_raw, "yes" if pl_cli >= 100e3 else "no")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
