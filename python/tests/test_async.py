"""The asyncio client: the same calls, awaited, concurrent on one connection."""

import asyncio

import pytest

import streamcap
from conftest import submit_fork_join


def run(coro):
    return asyncio.run(coro)


def test_calls_and_gather(streamcapd, streamcap_client):
    g = submit_fork_join(streamcap_client)

    async def main():
        async with streamcap.AsyncClient(streamcapd.socket) as c:
            info = await c.server_info()
            stats, reach = await asyncio.gather(c.graph_stats(graph=g), c.graph_reachable(graph=g, from_=0, to=2))
            many = await asyncio.gather(*[c.graph_reachable(graph=g, from_=2, to=0) for _ in range(200)])
            return info, stats, reach, many

    info, stats, reach, many = run(main())
    assert info.version
    assert stats.nodes == 3 and reach.reachable is True
    assert [m.reachable for m in many] == [False] * 200


def test_errors(streamcapd):
    async def main():
        c = await streamcap.AsyncClient.connect(streamcapd.socket)
        try:
            with pytest.raises(streamcap.NotFound) as e:
                await c.graph_get(graph=987654)
            assert e.value.what == "graph"
            assert (await c.call("server.info"))["version"]
        finally:
            await c.close()

    run(main())


def test_subscribe(streamcapd):
    async def main():
        async with streamcap.AsyncClient(streamcapd.socket) as c:
            events = await c.subscribe(outcome="closed")
            s = (await c.session_open(label="async")).session
            await c.session_close(session=s)
            ev = await asyncio.wait_for(events.__anext__(), 10)
            await events.aclose()
            return s, ev

    s, ev = run(main())
    assert ev.event == "session_ended" and ev.session == s


def test_not_connected():
    c = streamcap.AsyncClient("/nonexistent/streamcap.sock")
    with pytest.raises(streamcap.ConnectionClosed):
        c.server_info()
    with pytest.raises(streamcap.ConnectionClosed):
        run(c.open())
