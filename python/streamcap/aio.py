"""The asyncio client: the same calls as :class:`streamcap.Client`, awaited.

Concurrent calls on one connection are pipelined: each request is written
at once, and since the daemon answers in request order, one reader task
hands every reply to the oldest waiting call.
"""

import asyncio
import collections
import json
from typing import Any, AsyncIterator, Deque, Dict, Optional, Tuple

from . import errors
from ._methods import Calls
from .client import _request, _result, default_socket
from .results import LogEvent, Raw

_LIMIT = 64 << 20  # a graph.get reply may be large


class AsyncClient(Calls):
    """An asyncio connection to streamcapd.

    ::

        async with await streamcap.AsyncClient.connect() as c:
            info = await c.server_info()
            a, b = await asyncio.gather(c.graph_stats(graph=1), c.graph_stats(graph=2))
    """

    def __init__(self, socket: Optional[str] = None):
        self.socket = socket or default_socket()
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._waiting: Deque[Tuple[str, type, "asyncio.Future[Any]"]] = collections.deque()
        self._task: Optional["asyncio.Task[None]"] = None
        self._next_id = 1

    @classmethod
    async def connect(cls, socket: Optional[str] = None) -> "AsyncClient":
        """A connected client (``socket`` as for :class:`streamcap.Client`)."""
        c = cls(socket)
        await c.open()
        return c

    async def open(self) -> None:
        """Connect, if not connected yet."""
        if self._writer is not None:
            return
        try:
            self._reader, self._writer = await asyncio.open_unix_connection(self.socket, limit=_LIMIT)
        except OSError as e:
            raise errors.ConnectionClosed("cannot connect to %s: %s" % (self.socket, e.strerror or e)) from e
        self._task = asyncio.ensure_future(self._read_replies())

    async def _read_replies(self) -> None:
        assert self._reader is not None
        failure: BaseException = errors.ConnectionClosed("%s closed the connection" % self.socket)
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    break
                if not line.strip():
                    continue
                reply = json.loads(line)
                if isinstance(reply, dict) and "id" not in reply:
                    continue  # a notification: not an answer to anything
                if not self._waiting:
                    continue
                method, cls, fut = self._waiting.popleft()
                if fut.done():
                    continue
                try:
                    fut.set_result(_result(reply, method, cls))
                except errors.StreamcapError as e:
                    fut.set_exception(e)
        except (OSError, ValueError) as e:
            failure = errors.ConnectionClosed("reading from %s: %s" % (self.socket, e))
        while self._waiting:
            _, _, fut = self._waiting.popleft()
            if not fut.done():
                fut.set_exception(failure)

    def _call(self, method: str, params: Dict[str, Any], result: type) -> "asyncio.Future[Any]":
        if self._writer is None:
            raise errors.ConnectionClosed("the client is not connected: await AsyncClient.connect()")
        if self._task is not None and self._task.done():
            raise errors.ConnectionClosed("%s closed the connection" % self.socket)
        fut: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        rid = self._next_id
        self._next_id += 1
        self._waiting.append((method, result, fut))
        self._writer.write((_request(rid, method, params) + "\n").encode("utf-8"))
        return fut

    async def call(self, method: str, **params: Any) -> Dict[str, Any]:
        """Send any method by wire name; returns the raw ``result`` object."""
        return await self._call(method, params, Raw)

    def log_subscribe(self, *, outcome: Optional[str] = None, host: Optional[str] = None):
        """Refused here, as on :class:`streamcap.Client`: use :meth:`subscribe`."""
        raise errors.StreamcapError(
            "log.subscribe would end this connection's requests; use client.subscribe()",
            method="log.subscribe",
        )

    async def subscribe(
        self, *, outcome: Optional[str] = None, host: Optional[str] = None
    ) -> AsyncIterator[LogEvent]:
        """Live ``log.event`` notifications, on a connection of their own.

        ``async for ev in await client.subscribe(): ...``; closing the
        iterator (``aclose()``) ends the subscription.
        """
        try:
            reader, writer = await asyncio.open_unix_connection(self.socket, limit=_LIMIT)
        except OSError as e:
            raise errors.ConnectionClosed("cannot connect to %s: %s" % (self.socket, e.strerror or e)) from e
        writer.write((_request(1, "log.subscribe", {"outcome": outcome, "host": host}) + "\n").encode())
        first = json.loads(await reader.readline() or b"{}")
        if "error" in first:
            writer.close()
            raise errors.from_reply(first["error"], "log.subscribe")
        if "result" not in first:
            writer.close()
            raise errors.ConnectionClosed("%s closed the subscription" % self.socket)
        return _events(reader, writer)

    async def close(self) -> None:
        """Close the connection (idempotent)."""
        w, self._writer = self._writer, None
        if w is not None:
            w.close()
            try:
                await w.wait_closed()
            except OSError:
                pass
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def __aenter__(self) -> "AsyncClient":
        await self.open()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


async def _events(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> AsyncIterator[LogEvent]:
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            msg = json.loads(line) if line.strip() else None
            if isinstance(msg, dict) and msg.get("method") == "log.event":
                yield LogEvent.from_params(msg.get("params") or {})
    finally:
        writer.close()
