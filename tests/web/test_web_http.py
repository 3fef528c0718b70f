#!/usr/bin/env python3
"""test_web_http.py BIN_DIR - `streamcap web` at the HTTP level against a
real daemon: the token (403 without it, a cookie after it), the Host
check (421), bad ids (404 with a message), the JSON API mirroring the
protocol, a graph above the drawing limit (413, its page still served),
the live log's stream, drawing in $TMPDIR, and a clean stop on SIGINT and
SIGTERM."""
import http.client
import os
import signal
import sys
import tempfile
import time

import webenv
from webenv import check


def token_and_host(w):
    st, _, body, _ = w.get("/", token=False)
    check(st == 403 and "token" in body, "no token: 403 naming the token")
    st, _, _, _ = w.get("/?token=" + "0" * 32, token=False)
    check(st == 403, "a wrong token: 403")
    st, _, _, _ = w.get("/api/log", token=False)
    check(st == 403, "the API without the token: 403")
    st, ctype, body, cookie = w.get("/")
    check(st == 200 and "text/html" in ctype and "capture log" in body, "the log page with the token")
    check(w.token in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie, "the token comes back as a cookie")
    name_value = cookie.split(";")[0]
    st, _, body, _ = w.get("/api/log", token=False, cookie=name_value)
    check(st == 200 and body.startswith("{\"entries\""), "the cookie alone carries the token")
    st, _, body, _ = w.get("/", host="evil.example:%d" % w.port)
    check(st == 421 and "evil.example" in body, "another Host (DNS rebinding): 421 naming it")
    st, _, _, _ = w.get("/", host="localhost:%d" % w.port)
    check(st == 200, "localhost:PORT is the listening address too")
    st, _, _, _ = w.get("/", host="")
    check(st == 421, "an empty Host: 421")


def pages_and_ids(d, w, g, big):
    st, _, body, _ = w.get("/graph/%d" % g)
    check(st == 200 and "happens before" in body, "the graph page of a stored graph")
    st, _, body, _ = w.get("/graph/999999")
    check(st == 404 and "999999" in body and "not found" in body, "an unknown graph: 404 with a message")
    st, _, body, _ = w.get("/graph/abc")
    check(st == 404 and "'abc' is not a graph id" in body, "a bad graph id: 404 naming it")
    st, _, body, _ = w.get("/diff/%d/0" % g)
    check(st == 404 and "'0'" in body, "a bad diff id: 404 naming it")
    st, _, body, _ = w.get("/diff/%d/%d" % (g, big))
    check(st == 200 and "changes" in body, "the diff page of two stored graphs")
    st, _, body, _ = w.get("/nowhere")
    check(st == 404 and "no such page" in body, "an unknown path: 404")
    st, _, body, _ = w.get("/assets/graph.js")
    check(st == 200 and "happens before" in body, "assets are built in")
    st, doc = w.json("/api/graph/999999")
    check(st == 404 and "not found" in doc["error"]["message"], "the API's unknown graph: 404 JSON")
    st, doc = w.json("/api/graph/%d/reachable?from=0&to=99" % g)
    check(st == 404, "an unknown node: 404")
    st, doc = w.json("/api/graph/%d/reachable?from=x&to=1" % g)
    check(st == 400 and "'from'" in doc["error"]["message"], "a bad node id: 400 naming it")


def api(d, w, g, g2):
    st, doc = w.json("/api/graph/%d" % g)
    check(st == 200 and doc == d.rpc("graph.get", {"graph": g}), "graph/ID is graph.get's result")
    st, doc = w.json("/api/graph/%d/stats" % g)
    check(st == 200 and doc["nodes"] == 4 and doc["streams"] == 3, "stats")
    st, doc = w.json("/api/graph/%d/races" % g)
    check(st == 200 and doc["count"] == 1 and (doc["races"][0]["a"], doc["races"][0]["b"]) == (1, 2), "the known race")
    st, doc = w.json("/api/graph/%d/reachable?from=0&to=3" % g)
    check(st == 200 and doc["reachable"] is True, "upload happens before download")
    st, doc = w.json("/api/graph/%d/reachable?from=1&to=2" % g)
    check(st == 200 and doc["reachable"] is False, "relu and scale are unordered")
    st, doc = w.json("/api/diff/%d/%d" % (g, g2))
    check(st == 200 and doc["nodes_added"] == [4] and doc["edges_added"] == [[3, 4]], "the diff finds the added node")
    st, _, svg, _ = w.get("/api/graph/%d/svg" % g)
    check(st == 200 and "<svg" in svg and 'id="n1"' in svg and 'id="e0_1"' in svg, "the drawing names nodes and edges")
    check(svg.count('class="cluster"') == 3, "one lane (cluster) per stream")
    st, doc = w.json("/api/log?label=demo%3A%20fork%2Fjoin&limit=1")
    check(st == 200 and len(doc["entries"]) == 1 and doc["entries"][0]["label"] == "demo: fork/join", "the label filter")
    st, doc = w.json("/api/log?label=no-such-label")
    check(st == 200 and doc["entries"] == [], "a label no session has: no rows")
    st, doc = w.json("/api/log?outcome=completed&limit=1")
    check(st == 200 and len(doc["entries"]) == 1 and doc["entries"][0]["outcome"] == "completed" and "next" in doc, "outcome filter and paging")
    st, doc2 = w.json("/api/log?outcome=completed&limit=1&before=" + doc["next"])
    check(st == 200 and doc2["entries"][0]["session"] != doc["entries"][0]["session"], "the next page by cursor")
    st, doc = w.json("/api/log?outcome=nonsense")
    check(st == 400 and "outcome" in doc["error"]["message"], "a bad filter: 400 naming it")


def too_large(d, w, big):
    st, doc = w.json("/api/graph/%d/svg" % big)
    check(st == 413 and "drawing limit" in doc["error"]["message"] and "12 nodes" in doc["error"]["message"],
          "above the drawing limit: 413 saying so")
    st, _, body, _ = w.get("/graph/%d" % big)
    check(st == 200, "its page is still served (it lists the nodes)")


def live(d, w):
    c = http.client.HTTPConnection("127.0.0.1", w.port, timeout=20)
    c.request("GET", "/api/events?token=" + w.token, headers={"Host": w.hostport})
    r = c.getresponse()
    check(r.status == 200 and r.getheader("Content-Type") == "text/event-stream", "the live log is an event stream")
    got = b""
    deadline = time.time() + 15
    while b"event: status" not in got and time.time() < deadline:
        got += r.fp.readline()
    check(b"live" in got, "the stream says when it is live")
    webenv.fork_join(d, label="live-one")
    while b"graph_stored" not in got and time.time() < deadline:
        got += r.fp.readline()
    check(b"graph_stored" in got and b"live-one" in got, "a new graph arrives on the stream")
    d.cli("demo")
    while b"session_ended" not in got and time.time() < deadline:
        got += r.fp.readline()
    check(b"session_ended" in got, "another client's session ending arrives on the stream")
    c2 = http.client.HTTPConnection("127.0.0.1", w.port, timeout=20)
    c2.request("GET", "/api/events?token=" + w.token, headers={"Host": w.hostport})
    r2 = c2.getresponse()
    r2.fp.readline()
    # server.info counts its own connection: one more is the one subscription.
    check(d.rpc("server.info")["connections"] == 2, "two pages listening: one daemon subscription")
    c.close()
    c2.close()
    for _ in range(100):
        if d.rpc("server.info")["connections"] == 1:
            break
        time.sleep(0.05)
    check(d.rpc("server.info")["connections"] == 1, "nobody listening: no subscription left")


def tmpdir(d, g):
    """Drawings are made in $TMPDIR: one missing is named in the error, and
    a private one is left as it was found."""
    with tempfile.TemporaryDirectory() as t:
        gone = os.path.join(t, "missing")
        w = webenv.Web(d, env={"TMPDIR": gone})
        st, doc = w.json("/api/graph/%d/svg" % g)
        check(st == 500 and gone + "/streamcap-web-" in doc.get("error", {}).get("message", ""),
              "a TMPDIR that does not exist is named: %s" % doc)
        w.stop()
        w = webenv.Web(d, env={"TMPDIR": t})
        st, _, svg, _ = w.get("/api/graph/%d/svg" % g)
        check(st == 200 and "<svg" in svg, "drawn in a private TMPDIR")
        check(os.listdir(t) == [], "nothing left in TMPDIR")
        w.stop()


def main():
    bindir = sys.argv[1]
    d = webenv.Daemon(bindir)
    try:
        d.cli("demo")
        d.cli("demo")
        g = webenv.fork_join(d)
        g2 = webenv.fork_join(d, extra=True)
        big = webenv.chain(d, 12)
        w = webenv.Web(d, "--max-draw", "10")
        token_and_host(w)
        pages_and_ids(d, w, g, big)
        api(d, w, g, g2)
        too_large(d, w, big)
        live(d, w)
        tmpdir(d, g)
        check(w.stop(signal.SIGINT) == 0, "SIGINT stops it with status 0")
        w = webenv.Web(d)
        st, _, _, _ = w.get("/")
        check(st == 200, "a second server starts")
        check(w.stop(signal.SIGTERM) == 0, "SIGTERM stops it with status 0")
        r = webenv.subprocess.run([bindir + "/streamcap", "--socket", d.sock, "web", "--listen", "nonsense"],
                                  capture_output=True, text=True)
        check(r.returncode == 2 and "--listen takes ADDR:PORT" in r.stderr, "a bad --listen is refused")
    finally:
        d.stop()


if __name__ == "__main__":
    main()
