#!/usr/bin/python3
"""test_web_browser.py BIN_DIR ARTIFACTS CHROMIUM CHROMEDRIVER - the web
view in headless Chromium against a real daemon and a real `streamcap
web`: the log page shows a capture another client ends while it is open;
the graph page of a known fork/join graph shows its nodes and lanes,
answers "happens before?" by two clicks and colours its race; the diff
page shows the added node; no token, no page.  A screenshot of each page
is kept in ARTIFACTS."""
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import webenv
from webenv import check

WAIT_S = 30


def browser(chromium, driver, tmp):
    """Headless Chromium through chromedriver, both with TMPDIR=tmp: the
    browser's profile and singleton files go there, not into /tmp."""
    o = Options()
    o.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,900", "--no-first-run", "--disable-extensions"):
        o.add_argument(a)
    return webdriver.Chrome(service=Service(driver, env=dict(os.environ, TMPDIR=tmp)), options=o)


def texts(b, css):
    """The text of every element css selects, read in one go in the page
    (the table is rebuilt as events come: elements found one call earlier
    may be gone)."""
    return b.execute_script("return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", css)


def wait(b, cond, what):
    try:
        WebDriverWait(b, WAIT_S, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: cond(d))
    except Exception:
        raise AssertionError("timed out waiting: " + what)
    print("ok:", what)


def shot(b, art, name):
    path = os.path.join(art, name)
    b.save_screenshot(path)
    print("screenshot:", path)


def rows(b):
    return b.find_elements(By.CSS_SELECTOR, "#log tbody tr")


def log_page(b, d, w, art):
    b.get(w.url)
    wait(b, lambda x: len(rows(x)) >= 2, "the log page lists the demo's sessions")
    diff = b.find_element(By.CSS_SELECTOR, "#log tbody tr[data-session='2'] a[data-testid='diff-link']")
    check(diff.get_attribute("href").endswith("/diff/1/2"), "the second demo run links to its diff against the first")
    wait(b, lambda x: x.find_element(By.ID, "live").text == "live", "the live stream is on")
    # Another client opens a session and begins a capture: the row shows it open.
    conn = d.connect()
    s = d.rpc("session.open", {"label": "live capture"}, conn)["session"]
    d.rpc("capture.begin", {"session": s, "stream": 0}, conn)
    d.rpc("capture.record_kernel", {"session": s, "stream": 0, "function_name": "relu", "num_blocks": 4,
                                    "threads_per_block": 256}, conn)
    sel = f"#log tbody tr[data-session='{s}'] td[data-testid='outcome']"
    wait(b, lambda x: texts(x, sel) == ["open"], "a session opened elsewhere appears, open")
    g = d.rpc("capture.end", {"session": s, "stream": 0}, conn)["graph"]
    conn.close()
    wait(b, lambda x: texts(x, sel) == ["completed"],
         "the capture another client ended shows its outcome without a reload")
    link = f"#log tbody tr[data-session='{s}'] a[data-graph='{g}']"
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, link), "its graph id links to the graph page")
    # The label filter: only the session of that label is left.
    b.find_element(By.ID, "f-label").send_keys("live capture")
    b.find_element(By.CSS_SELECTOR, "#filters button").click()
    wait(b, lambda x: texts(x, "#log tbody tr td:nth-child(2)") == ["live capture"], "filtered by label")
    b.get(w.base + "/")
    wait(b, lambda x: len(rows(x)) >= 3, "the cookie carries the token after the first visit")
    wait(b, lambda x: x.find_element(By.ID, "live").text == "live", "live again")
    shot(b, art, "log.png")


def node(b, i):
    return b.find_element(By.CSS_SELECTOR, f"#drawing svg g#n{i}")


def graph_page(b, w, g, art):
    b.get(f"{w.base}/graph/{g}")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#drawing svg g.node"), "the graph is drawn")
    check(len(b.find_elements(By.CSS_SELECTOR, "#drawing svg g.node")) == 4, "its four nodes")
    check(len(b.find_elements(By.CSS_SELECTOR, "#drawing svg g.cluster")) == 3, "one lane per stream (three)")
    check("relu" in node(b, 1).text and "<<<4, 256, 0>>>" in node(b, 1).text, "kernel names and launch shapes on the nodes")
    wait(b, lambda x: "race" in node(x, 1).get_attribute("class") and "race" in node(x, 2).get_attribute("class"),
         "the known race is coloured (relu and scale)")
    check("race" not in node(b, 0).get_attribute("class"), "the upload is not in a race")
    node(b, 0).click()
    wait(b, lambda x: "upload" in x.find_element(By.ID, "details").text, "a click shows the node's details")
    node(b, 3).click()
    wait(b, lambda x: x.find_element(By.ID, "answer").get_attribute("data-result") == "before",
         "upload happens before download, by two clicks")
    onpath = b.find_elements(By.CSS_SELECTOR, "#drawing svg g.onpath")
    check(len(onpath) >= 3, "the path is highlighted")
    shot(b, art, "graph.png")
    node(b, 1).click()
    node(b, 2).click()
    wait(b, lambda x: x.find_element(By.ID, "answer").get_attribute("data-result") == "unordered", "relu and scale are unordered")
    s = b.find_element(By.ID, "search")
    s.send_keys("scale")
    wait(b, lambda x: "match" in node(x, 2).get_attribute("class") and "dim" in node(x, 1).get_attribute("class"),
         "search by kernel name")
    check("1 found" in b.find_element(By.ID, "search-count").text, "the search counts its hits")


def too_large(b, w, big, art):
    b.get(f"{w.base}/graph/{big}")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "[data-testid='too-large']"), "a graph above the limit says so")
    check(len(b.find_elements(By.CSS_SELECTOR, "[data-testid='node-list'] tr")) == 101, "its node list, a page of 100")
    check(len(b.find_elements(By.CSS_SELECTOR, "#streams tr")) == 5, "per-stream summaries (four streams)")
    shot(b, art, "graph-too-large.png")


def diff_page(b, w, g, g2, art):
    b.get(f"{w.base}/diff/{g}/{g2}")
    wait(b, lambda x: x.find_elements(By.CSS_SELECTOR, "#a-drawing svg g#n3") and x.find_elements(By.CSS_SELECTOR, "#b-drawing svg g#n4"),
         "both graphs are drawn")
    wait(b, lambda x: x.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", "the diff is coloured")
    check("added" in b.find_element(By.CSS_SELECTOR, "#b-drawing svg g#n4").get_attribute("class"), "the added node is coloured")
    check("added" in b.find_element(By.CSS_SELECTOR, "#b-drawing svg g#e3_4").get_attribute("class"), "the added edge is coloured")
    check("extra" in b.find_element(By.CSS_SELECTOR, "li[data-added='4']").text, "the list names the added node")
    shot(b, art, "diff.png")


def no_token(b, d, art):
    w2 = webenv.Web(d)
    try:
        b.delete_all_cookies()
        b.get(w2.base + "/")
        body = b.find_element(By.TAG_NAME, "body").text
        check("refused: no valid token" in body, "a page without the token is refused")
        st, _, _, _ = w2.get("/", token=False)
        check(st == 403, "... with 403")
    finally:
        w2.stop()


def main():
    bindir, art, chromium, driver = sys.argv[1:5]
    os.makedirs(art, exist_ok=True)
    d = webenv.Daemon(bindir)
    b = None
    tmp = tempfile.TemporaryDirectory()
    try:
        d.cli("demo")
        d.cli("demo")
        g = webenv.fork_join(d, label="step")
        g2 = webenv.fork_join(d, label="step", extra=True)
        big = webenv.chain(d, 150)
        w = webenv.Web(d, "--max-draw", "100")
        b = browser(chromium, driver, tmp.name)
        log_page(b, d, w, art)
        graph_page(b, w, g, art)
        too_large(b, w, big, art)
        diff_page(b, w, g, g2, art)
        no_token(b, d, art)
        check(w.stop() == 0, "streamcap web stops on SIGTERM")
    finally:
        if b:
            b.quit()
        d.stop()
        tmp.cleanup()


if __name__ == "__main__":
    main()
