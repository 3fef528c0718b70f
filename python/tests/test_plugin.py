"""The pytest plugin's fixtures and failure messages, run with pytester."""

import os

import pytest

from conftest import PLUGIN, attached

GRAPH_HELPERS = '''
def fork_join(c, join=True):
    s = c.session_open().session
    c.capture_begin(session=s, stream=0)
    c.capture_record_memcpy(session=s, stream=0, name="upload", dir="host_to_device", size_bytes=4096)
    c.capture_record_event(session=s, stream=0, event=0)
    c.capture_begin(session=s, stream=2)
    c.capture_wait_event(session=s, stream=2, event=0)
    c.capture_record_kernel(session=s, stream=2, function_name="relu", num_blocks=4, threads_per_block=256)
    if join:
        c.capture_record_event(session=s, stream=2, event=1)
        c.capture_wait_event(session=s, stream=0, event=1)
    c.capture_record_memcpy(session=s, stream=0, name="download", dir="device_to_host", size_bytes=4096)
    return c.graph(c.capture_end(session=s, stream=0).graph)
'''


def test_private_daemon_started_and_stopped(pytester):
    pytester.makepyfile(
        """
        def test_it(streamcapd, streamcap_client, tmp_path_factory):
            assert streamcapd.pid and streamcapd.socket.endswith("streamcap.sock")
            assert streamcap_client.server_info().pid == streamcapd.pid
            open(str(tmp_path_factory.getbasetemp()) + "/../daemon.pid", "w").write(str(streamcapd.pid))
        """
    )
    r = pytester.runpytest_subprocess(*PLUGIN, "--basetemp", str(pytester.path / "bt"))
    r.assert_outcomes(passed=1)
    pid = int((pytester.path / "daemon.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_socket_option_reaches_a_running_daemon(pytester, streamcapd, streamcap_client):
    pid = streamcap_client.server_info().pid
    pytester.makepyfile(
        """
        def test_it(streamcapd, streamcap_client):
            assert streamcapd.pid is None
            assert streamcap_client.server_info().pid == %d
        """
        % pid
    )
    pytester.runpytest_subprocess(*attached(streamcapd)).assert_outcomes(passed=1)


def test_missing_daemon_binary_fails_readably(pytester):
    pytester.makepyfile("def test_it(streamcapd):\n    pass\n")
    r = pytester.runpytest_subprocess(*PLUGIN, "--streamcapd", "/nonexistent/streamcapd")
    r.assert_outcomes(errors=1)
    r.stdout.fnmatch_lines(["*cannot*streamcapd*"])


def test_happens_before_failure_message(pytester, streamcapd):
    pytester.makepyfile(
        GRAPH_HELPERS
        + '''
from streamcap import assert_happens_before

def test_joined(streamcap_client):
    assert_happens_before(fork_join(streamcap_client), "relu", "download")

def test_forgotten(streamcap_client):
    assert_happens_before(fork_join(streamcap_client, join=False), "relu", "download")
'''
    )
    r = pytester.runpytest_subprocess(*attached(streamcapd))
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(
        [
            "*AssertionError: expected 'download' after 'relu' but no path exists; "
            "relu is on stream 2, which was never joined back"
        ]
    )


def test_graph_baseline(pytester, streamcapd):
    pytester.makepyfile(
        test_base=GRAPH_HELPERS
        + '''
import os

def test_graph(streamcap_client, graph_baseline):
    graph_baseline(fork_join(streamcap_client, join=os.environ.get("JOIN") == "1"))
'''
    )
    base = pytester.path / "test_base" / "test_graph.graph.json"
    os.environ["JOIN"] = "1"
    try:
        pytester.runpytest_subprocess(*attached(streamcapd)).assert_outcomes(passed=1)
        assert base.exists()
        written = base.read_text()
        assert '"name": "relu"' in written
        pytester.runpytest_subprocess(*attached(streamcapd)).assert_outcomes(passed=1)
        os.environ["JOIN"] = "0"
        r = pytester.runpytest_subprocess(*attached(streamcapd))
        r.assert_outcomes(failed=1)
        r.stdout.fnmatch_lines(
            ["*graph * differs from the baseline *test_graph.graph.json*", "--- baseline", "-edge relu -> download"]
        )
        assert base.read_text() == written
        r = pytester.runpytest_subprocess(*attached(streamcapd), "--streamcap-update")
        r.assert_outcomes(passed=1)
        assert "relu -> download" not in "\n".join(
            __import__("streamcap").baseline.lines(__import__("json").loads(base.read_text())["graph"])
        )
        pytester.runpytest_subprocess(*attached(streamcapd)).assert_outcomes(passed=1)
    finally:
        os.environ.pop("JOIN", None)


def test_capture_fixture_runs_a_program(pytester, streamcapd):
    prog = os.environ.get("STREAMCAP_TEST_PROGRAM")
    if not prog:
        pytest.skip("STREAMCAP_TEST_PROGRAM is not set: no stand-in program to run")
    pytester.makepyfile(
        '''
from streamcap import assert_happens_before, assert_unordered

def test_fork_join(capture):
    run = capture([%r])
    assert run.exit_status == 0 and not run.failed
    g = run.graph
    assert_unordered(g, "left", "right")
    assert_happens_before(g, "left", g.nodes[-1])

def test_wrong(capture):
    assert_happens_before(capture([%r]).graph, "left", "right")
'''
        % (prog, prog)
    )
    r = pytester.runpytest_subprocess(*attached(streamcapd))
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(
        ["*expected 'right' after 'left' but no path exists; left is on stream *, which joins stream * later, "
         "but not before right (stream *)"]
    )
