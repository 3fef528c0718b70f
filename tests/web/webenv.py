"""webenv.py - a real streamcapd and a real `streamcap web` for the web
view's tests, each in a fresh temporary directory, plus a small JSON-RPC
client for the daemon's socket and the graphs the tests know the answers
about.  Only the standard library, so that any python3 runs it."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

SKIP = 77


class Daemon:
    def __init__(self, bindir):
        self.bindir = bindir
        self.dir = tempfile.mkdtemp(prefix="sc-web-")
        self.sock = os.path.join(self.dir, "d.sock")
        self.out = open(os.path.join(self.dir, "daemon.log"), "w")
        self.proc = subprocess.Popen(
            [os.path.join(bindir, "streamcapd"), "--socket", self.sock, "--db", os.path.join(self.dir, "db.sqlite")],
            stdout=self.out, stderr=subprocess.STDOUT)
        for _ in range(200):
            if os.path.exists(self.sock):
                return
            time.sleep(0.05)
        raise RuntimeError("streamcapd did not start: " + open(self.out.name).read())

    def rpc(self, method, params=None, conn=None):
        c = conn or self.connect()
        c.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = c.recv(1 << 20)
            if not chunk:
                raise RuntimeError("daemon closed the connection")
            buf += chunk
        if conn is None:
            c.close()
        reply = json.loads(buf)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def connect(self):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(self.sock)
        return c

    def cli(self, *args):
        return subprocess.run([os.path.join(self.bindir, "streamcap"), "--socket", self.sock, *args],
                              check=True, capture_output=True, text=True).stdout

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.out.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Web:
    """`streamcap web` on a free loopback port; url has the token."""

    def __init__(self, daemon, *args, env=None):
        self.proc = subprocess.Popen(
            [os.path.join(daemon.bindir, "streamcap"), "--socket", daemon.sock, "web", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, **(env or {})))
        line = self.proc.stdout.readline()
        m = re.search(r"(http://([^/ ]+)/\?token=([0-9a-f]+))", line)
        if not m:
            raise RuntimeError("streamcap web printed no URL: " + line + self.proc.stderr.read())
        self.url, self.hostport, self.token = m.group(1), m.group(2), m.group(3)
        self.base = "http://" + self.hostport
        self.port = int(self.hostport.rsplit(":", 1)[1])

    def get(self, path, token=True, host=None, cookie=None):
        """(status, content type, body text) of one GET."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        if token is True:
            path += ("&" if "?" in path else "?") + "token=" + self.token
        headers = {"Host": host if host is not None else self.hostport}
        if cookie:
            headers["Cookie"] = cookie
        c.request("GET", path, headers=headers)
        r = c.getresponse()
        body = r.read().decode("utf-8", "replace")
        out = (r.status, r.getheader("Content-Type") or "", body, r.getheader("Set-Cookie") or "")
        c.close()
        return out

    def json(self, path):
        st, _, body, _ = self.get(path)
        return st, json.loads(body)

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=20)
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()


def kernel(name, stream, accesses=None):
    n = {"kind": "kernel", "stream": stream, "function_name": name, "num_blocks": 4, "threads_per_block": 256}
    if accesses:
        n["accesses"] = accesses
    return n


def memcpy(name, stream, direction):
    return {"kind": "memcpy", "stream": stream, "name": name, "dir": direction, "size_bytes": 4096}


BUF = 0x10000


def fork_join(d, label="fork-join", extra=False):
    """upload (S0) -> relu (S1) and scale (S2) -> download (S0); relu and
    scale both write the same 256 bytes: the one race.  With extra, a
    kernel `extra` after download.  Returns the graph id."""
    nodes = [memcpy("upload", 0, "host_to_device"),
             kernel("relu", 1, [{"address": BUF, "size": 256, "mode": "write"}]),
             kernel("scale", 2, [{"address": BUF, "size": 256, "mode": "write"}]),
             memcpy("download", 0, "device_to_host")]
    edges = [[0, 1], [0, 2], [1, 3], [2, 3]]
    if extra:
        nodes.append(kernel("extra", 0))
        edges.append([3, 4])
    return d.rpc("graph.submit", {"label": label, "nodes": nodes, "edges": edges})["graph"]


def chain(d, n, label="chain"):
    nodes = [kernel(f"k{i}", i % 4) for i in range(n)]
    edges = [[i, i + 1] for i in range(n - 1)]
    return d.rpc("graph.submit", {"label": label, "nodes": nodes, "edges": edges})["graph"]


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)
