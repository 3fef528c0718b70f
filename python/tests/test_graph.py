"""Graph objects and the assertion helpers' messages."""

import pytest

import streamcap
from conftest import submit_fork_join


@pytest.fixture
def g(streamcap_client, fork_join):
    return streamcap_client.graph(fork_join)


@pytest.fixture
def unjoined(streamcap_client, forgotten_join):
    return streamcap_client.graph(forgotten_join)


def test_nodes_by_id_and_name(g):
    assert [n.name for n in g.nodes] == ["upload", "relu", "download"]
    assert g["relu"].kernel == "relu" and g["relu"].stream == 2
    assert g[0].name == "upload" and g.node(g[2]) is g[2]
    assert g.streams == [0, 2]
    assert [n.name for n in g.successors("upload")] == ["relu", "download"]
    assert [n.name for n in g.predecessors("download")] == ["upload", "relu"]
    with pytest.raises(KeyError, match="no node named 'nope'.*download"):
        g.node("nope")


def test_order(g, unjoined):
    assert g.happens_before("upload", "download")
    assert g.happens_before("relu", "download")
    assert not g.happens_before("download", "relu")
    assert not g.unordered("relu", "download")
    assert unjoined.unordered("relu", "download")


def test_metadata(g, unjoined):
    fp = g.fingerprint
    assert len(fp.structure) == 16 and len(fp.full) == 16
    assert g.stats().critical_path == 3
    d = g.diff(unjoined)
    assert not d.identical and d.edges_removed == [[1, 2]]
    assert "digraph" in g.to_dot()
    assert g.races() == []


def test_races(streamcap_client):
    g = streamcap_client.graph(submit_fork_join(streamcap_client, join=False, races=True))
    assert g.races() == [streamcap.Race(a=1, b=2, address=4096, size=256, a_mode="write", b_mode="read")]
    with pytest.raises(AssertionError) as e:
        streamcap.assert_no_races(g)
    assert str(e.value) == (
        "graph %d has 1 race: 'relu' (write, stream 2) and 'download' (read, stream 0) at 0x1000..0x1100" % g.id
    )


def test_networkx(g):
    try:
        import networkx  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install networkx"):
            g.to_networkx()
        return
    nx = g.to_networkx()
    assert sorted(nx.edges) == [(0, 1), (0, 2), (1, 2)]


def test_happens_before_message(unjoined):
    with pytest.raises(AssertionError) as e:
        streamcap.assert_happens_before(unjoined, "relu", "download")
    assert str(e.value) == (
        "expected 'download' after 'relu' but no path exists; relu is on stream 2, which was never joined back"
    )


def test_reversed_order_message(g):
    with pytest.raises(AssertionError) as e:
        streamcap.assert_happens_before(g, "download", "upload")
    assert str(e.value) == (
        "expected 'upload' after 'download' but no path exists; upload runs before download (upload -> download)"
    )


def test_ordered_and_unordered(g, unjoined):
    streamcap.assert_ordered(g, "upload", "relu", "download")
    streamcap.assert_unordered(unjoined, "relu", "download")
    with pytest.raises(AssertionError) as e:
        streamcap.assert_unordered(g, "download", "relu")
    assert str(e.value) == (
        "expected 'download' and 'relu' unordered, but 'relu' happens before 'download' (relu -> download)"
    )
