"""Pipelined calls: one write, replies matched in order, errors kept apart."""

import pytest

import streamcap


def test_results_in_order(streamcap_client, fork_join):
    c = streamcap_client
    s = c.session_open().session
    c.capture_begin(session=s, stream=0)
    with c.pipeline() as p:
        nodes = [
            p.capture_record_kernel(session=s, stream=0, function_name="k%d" % i, num_blocks=1, threads_per_block=1)
            for i in range(5000)
        ]
        stats = p.graph_stats(graph=fork_join)
    assert [n.result().node for n in nodes] == list(range(5000))
    assert stats.result().nodes == 3
    assert c.capture_node_count(session=s).node_count == 5000
    c.session_close(session=s)


def test_error_raised_after_every_reply(streamcap_client, fork_join):
    c = streamcap_client
    p = c.pipeline()
    a = p.graph_stats(graph=fork_join)
    bad = p.graph_get(graph=123456)
    b = p.server_info()
    with pytest.raises(streamcap.NotFound):
        p.execute()
    assert a.result().nodes == 3 and b.result().version
    assert isinstance(bad.error, streamcap.NotFound)
    # The connection is still in step afterwards.
    assert c.graph_stats(graph=fork_join).edges == 3


def test_execute_without_raising(streamcap_client):
    p = streamcap_client.pipeline()
    p.graph_get(graph=999999)
    p.server_info()
    out = p.execute(raise_on_error=False)
    assert isinstance(out[0], streamcap.NotFound)
    assert out[1].version


def test_pending_before_execute(streamcap_client):
    p = streamcap_client.pipeline()
    x = p.server_info()
    assert not x.done()
    with pytest.raises(streamcap.StreamcapError, match="not run"):
        x.result()
    p.execute()
    assert x.done()
