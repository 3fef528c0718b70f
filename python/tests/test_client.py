"""Every protocol method through streamcap.Client against a real daemon.

A client that notes each method it sent backs the last test: a method
added to the table and not exercised here fails it.
"""

import pytest

import streamcap
from streamcap import _methods
from conftest import submit_fork_join

CALLED = set()


class NotingClient(streamcap.Client):
    """A client that notes the wire name of every call it makes."""

    def _call(self, method, params, result):
        CALLED.add(method)
        return super()._call(method, params, result)


@pytest.fixture
def c(streamcapd):
    with NotingClient(streamcapd.socket) as client:
        yield client


def test_server_info(c):
    info = c.server_info()
    assert isinstance(info, streamcap.Result)
    assert info.version and info.backend == "sqlite" and info.pid > 0


def test_default_mode_session(c):
    s = c.session_open(label="py session").session
    assert s >= 1
    info = c.session_info(session=s)
    assert info.label == "py session" and info.capturing is False
    assert s in [x["session"] for x in c.session_list().sessions]
    c.capture_begin(session=s, stream=0)
    assert c.capture_status(session=s, stream=0).status == "active"
    assert c.capture_is_capturing(session=s).capturing is True
    k = c.capture_record_kernel(session=s, stream=0, function_name="k", num_blocks=1, threads_per_block=32)
    m = c.capture_record_memset(session=s, stream=0, name="zero", size_bytes=64, value=0)
    h = c.capture_record_host_callback(session=s, stream=0, label="cb")
    assert (k.node, m.node, h.node) == (0, 1, 2)
    assert c.capture_node_count(session=s).node_count == 3
    end = c.capture_end(session=s, stream=0)
    assert end.node_count == 3 and end.edge_count == 2
    g = c.graph_get(graph=end.graph)
    assert [n["name"] for n in g.nodes] == ["k", "zero", "cb"]
    assert g.edges == [[0, 1], [1, 2]]


def test_close_and_invalidate(c):
    s = c.session_open().session
    c.capture_begin(session=s, stream=1)
    c.capture_invalidate(session=s, stream=1)
    assert c.capture_status(session=s, stream=1).status == "invalidated"
    with pytest.raises(streamcap.Invalidated):
        c.capture_record_memset(session=s, stream=1, name="z", size_bytes=1, value=0)
    c.session_close(session=s)
    with pytest.raises(streamcap.NotFound) as e:
        c.session_info(session=s)
    assert e.value.what == "session"


def test_cuda_mode_calls(c):
    s = c.session_open(semantics="cuda").session
    c.stream_create(session=s, stream=7, flags="non_blocking")
    assert c.capture_exchange_mode(session=s, mode="relaxed").mode == "global"
    assert c.capture_exchange_mode(session=s, mode="global").mode == "relaxed"
    c.capture_begin(session=s, stream=7)
    a = c.capture_record_mem_alloc(session=s, stream=7, name="buf", size_bytes=1024).node
    n = c.capture_add_node(session=s, stream=7, deps=[a], name="by hand").node
    c.capture_update_dependencies(session=s, stream=7, nodes=[a, n], mode="set")
    info = c.capture_info(session=s, stream=7)
    assert info.status == "active" and info.dependencies == [a, n]
    with pytest.raises(streamcap.CudaError) as e:
        c.capture_host_call(session=s, kind="unsafe", call="cudaMalloc")
    assert e.value.code == 900 and e.value.rpc_code == 1009
    assert e.value.name == "cudaErrorStreamCaptureUnsupported"
    c.session_close(session=s)


def test_cuda_mode_graph(c):
    s = c.session_open(semantics="cuda").session
    c.stream_create(session=s, stream=3, flags="non_blocking")
    c.capture_begin(session=s, stream=3)
    c.capture_record_mem_alloc(session=s, stream=3, name="buf", size_bytes=64)
    c.capture_record_mem_free(session=s, stream=3, name="buf")
    end = c.capture_end(session=s, stream=3)
    assert end.capture == 1 and end.node_count == 2
    c.capture_host_call(session=s, kind="device_sync")
    c.session_close(session=s)


def test_unjoined_work_is_a_cuda_error(c):
    s = c.session_open(semantics="cuda").session
    for st in (1, 2):
        c.stream_create(session=s, stream=st, flags="non_blocking")
    c.capture_begin(session=s, stream=1)
    c.capture_record_event(session=s, stream=1, event=5)
    c.capture_wait_event(session=s, stream=2, event=5)
    c.capture_record_kernel(session=s, stream=2, function_name="side", num_blocks=1, threads_per_block=1)
    with pytest.raises(streamcap.CudaError) as e:
        c.capture_end(session=s, stream=1)
    assert e.value.code == 904
    assert e.value.name == "cudaErrorStreamCaptureUnjoined"
    assert e.value.unjoined == [streamcap.Unjoined(stream=2, nodes=[0])]
    assert e.value.capture == 1
    c.session_close(session=s)


def test_graph_queries(c):
    a = submit_fork_join(c)
    b = submit_fork_join(c, join=False)
    assert a in [g["graph"] for g in c.graph_list(limit=10).graphs]
    assert c.graph_reachable(graph=a, from_=1, to=2).reachable is True
    assert c.graph_reachable(graph=b, pairs=[[1, 2], [0, 2]]).reachable == [False, True]
    st = c.graph_stats(graph=a)
    assert (st.nodes, st.edges, st.streams) == (3, 3, 2)
    assert c.graph_races(graph=a).count == 0
    d = c.graph_diff(a=a, b=b)
    assert d.identical is False and d.edges_removed == [[1, 2]]
    assert c.graph_export(graph=a, format="dot").text.startswith("digraph")
    sub = c.graph_submit(label="hand", nodes=[{"kind": "empty", "name": "x"}], edges=[])
    assert sub.node_count == 1
    c.graph_delete(graph=sub.graph)
    with pytest.raises(streamcap.NotFound) as e:
        c.graph_get(graph=sub.graph)
    assert e.value.what == "graph"


def test_log_list(c):
    s = c.session_open(label="logged").session
    c.session_close(session=s)
    entries = c.log_list(limit=5, outcome="closed").entries
    assert entries[0]["session"] == s and entries[0]["outcome"] == "closed"


def test_pin_and_prune(c):
    g = c.graph_submit(label="pinned", nodes=[{"kind": "kernel", "stream": 0, "name": "k",
                                                "function_name": "k", "num_blocks": 1,
                                                "threads_per_block": 1}], edges=[]).graph
    c.graph_pin(graph=g)
    with pytest.raises(streamcap.InvalidParams) as e:
        c.graph_delete(graph=g)
    assert e.value.field == "force" and "pinned" in str(e.value)
    plan = c.store_prune(dry_run=True, older_than="0s")
    assert g not in plan.graphs
    c.graph_pin(graph=g, pinned=False)
    assert g in c.store_prune(dry_run=True, older_than="0s").graphs
    c.graph_delete(graph=g)


def test_store_backup(c, tmp_path):
    target = tmp_path / "copy.db"
    r = c.store_backup(path=str(target))
    assert r.path == str(target) and r.bytes == target.stat().st_size > 0
    assert target.read_bytes()[:16] == b"SQLite format 3\x00"
    with pytest.raises(streamcap.StreamcapError) as e:
        c.store_backup(path=str(target))
    assert "exists" in str(e.value)


def test_subscribe(c, streamcapd):
    with c.subscribe(outcome="closed") as sub:
        s = c.session_open(label="watched").session
        c.session_close(session=s)
        ev = sub.next(timeout=10)
    CALLED.add("log.subscribe")
    assert isinstance(ev, streamcap.LogEvent)
    assert (ev.event, ev.session, ev["outcome"]) == ("session_ended", s, "closed")


def test_subscription_timeout_then_event(c):
    with c.subscribe(outcome="closed") as sub:
        with pytest.raises(streamcap.Timeout):
            sub.next(timeout=0.05)
        s = c.session_open().session
        c.session_close(session=s)
        assert sub.next(timeout=10).session == s


def test_log_subscribe_on_a_calling_connection_is_refused(c):
    with pytest.raises(streamcap.StreamcapError, match="subscribe"):
        c.log_subscribe()


def test_invalid_params_name_the_field(c):
    s = c.session_open().session
    with pytest.raises(streamcap.InvalidParams) as e:
        c.capture_begin(session=s, stream=-1)
    assert e.value.field == "stream" and e.value.code == -32602
    assert "'stream' must be an integer" in str(e.value)
    c.session_close(session=s)


def test_unknown_method(c):
    with pytest.raises(streamcap.MethodNotFound):
        c.call("no.such_method")


def test_capture_state(c):
    s = c.session_open().session
    with pytest.raises(streamcap.CaptureState):
        c.capture_record_memset(session=s, stream=0, name="z", size_bytes=1, value=0)
    c.session_close(session=s)


def test_closed_client_raises():
    with pytest.raises(streamcap.ConnectionClosed):
        streamcap.Client("/nonexistent/streamcap.sock")


def test_every_method_was_called():
    missing = sorted(set(_methods.METHODS) - CALLED)
    assert not missing, "methods no test here sent: %s" % ", ".join(missing)
