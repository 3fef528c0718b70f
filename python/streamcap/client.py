"""The synchronous client: one Unix socket connection to streamcapd.

Requests are JSON-RPC 2.0 lines (proto/PROTOCOL.md); replies come back in
request order, which is what lets :class:`Pipeline` write many requests
before reading any reply.
"""

import json
import json.encoder
import os
import socket as _socket
import struct
from typing import Any, Dict, Iterator, List, Optional, Sequence

from . import errors
from ._methods import Calls
from .results import LogEvent, Raw

SOCKET_ENV = "STREAMCAP_SOCKET"
SOCKET_NAME = "streamcap.sock"

# Bytes asked of one recv: socket.recv allocates that much each call, so a
# larger figure slows every small reply down.
_READ = 65536

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_encode_str = json.encoder.encode_basestring  # type: ignore[attr-defined]
_scan = json.JSONDecoder().scan_once


def _loads(raw: bytes) -> Any:
    """Decode one reply line: the C scanner straight away (the daemon
    writes compact lines), json.loads for anything it does not take."""
    try:
        text = raw.decode("utf-8")
        obj, end = _scan(text, 0)
        if end == len(text) or not text[end:].strip():
            return obj
    except (StopIteration, UnicodeDecodeError, ValueError):
        pass
    return json.loads(raw)


def default_socket(env: Optional[Dict[str, str]] = None, uid: Optional[int] = None) -> str:
    """The socket path the C client and streamcapd default to.

    ``$STREAMCAP_SOCKET`` when set and not empty; else
    ``$XDG_RUNTIME_DIR/streamcap/streamcap.sock`` when that is an absolute
    path; else ``/run/streamcap/streamcap.sock`` for root and
    ``/tmp/streamcap-UID/streamcap.sock`` for any other user.  ``env`` and
    ``uid`` default to this process's.
    """
    env = os.environ if env is None else env
    uid = os.getuid() if uid is None else uid
    given = env.get(SOCKET_ENV, "")
    if given:
        return given
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return "%s/streamcap/%s" % (runtime, SOCKET_NAME)
    if uid == 0:
        return "/run/streamcap/" + SOCKET_NAME
    return "/tmp/streamcap-%d/%s" % (uid, SOCKET_NAME)


def _request(rid: int, method: str, params: Dict[str, Any]) -> str:
    """One request line (without its newline).

    Optional parameters left at None are left out: the daemon treats a
    null member as absent anyway, and the line stays short.  Flat params of
    ints and strings, the record calls' shape, are written by hand, which
    costs half what the json module's general encoder does per call; any
    other value takes the general path.
    """
    parts = []
    for k, v in params.items():
        t = type(v)
        if t is int:
            parts.append('"%s":%d' % (k, v))
        elif t is str:
            parts.append('"%s":%s' % (k, _encode_str(v)))
        elif v is not None:
            p = {k: v for k, v in params.items() if v is not None}
            return _dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": p})
    return '{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s}}' % (rid, method, ",".join(parts))


class _Conn:
    """A connected socket with a line reader (replies and notifications)."""

    def __init__(self, path: str, timeout: Optional[float]):
        self.path = path
        self.sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(path)
            self.set_timeout(timeout)
        except OSError as e:
            self.sock.close()
            raise errors.ConnectionClosed("cannot connect to %s: %s" % (path, e.strerror or e)) from e
        self.buf = b""
        self.lines: List[bytes] = []

    def set_timeout(self, timeout: Optional[float]) -> None:
        """Wait at most ``timeout`` seconds (None: for ever) per read.

        The socket stays blocking and the kernel keeps the time
        (SO_RCVTIMEO): Python's own socket timeouts poll() before every
        send and receive, which doubles a small call's system calls.
        """
        self.sock.settimeout(None)
        t = 0.0 if timeout is None else max(timeout, 1e-3)
        tv = struct.pack("ll", int(t), int((t - int(t)) * 1e6))
        self.sock.setsockopt(_socket.SOL_SOCKET, _socket.SO_RCVTIMEO, tv)
        self.sock.setsockopt(_socket.SOL_SOCKET, _socket.SO_SNDTIMEO, tv)

    def send(self, text: str) -> None:
        try:
            self.sock.sendall(text.encode("utf-8"))
        except BlockingIOError as e:
            raise errors.Timeout("%s took no request bytes within the timeout" % self.path) from e
        except OSError as e:
            raise errors.ConnectionClosed("writing to %s: %s" % (self.path, e)) from e

    def _fill(self) -> None:
        self._take(self._recv())

    def _recv(self) -> bytes:
        try:
            chunk = self.sock.recv(_READ)
        except (_socket.timeout, BlockingIOError) as e:
            raise errors.Timeout("nothing from %s within the timeout" % self.path) from e
        except OSError as e:
            raise errors.ConnectionClosed("reading from %s: %s" % (self.path, e)) from e
        if not chunk:
            raise errors.ConnectionClosed("%s closed the connection" % self.path)
        return chunk

    def _take(self, chunk: bytes) -> None:
        data = self.buf + chunk
        parts = data.split(b"\n")
        self.buf = parts.pop()
        new = [p for p in parts if p.strip()]
        # Kept reversed, so that the next line is popped off the end.
        new.reverse()
        self.lines[:0] = new

    def line(self) -> bytes:
        """The next non-empty line from the daemon (blocks)."""
        if self.lines:
            return self.lines.pop()
        if not self.buf:
            # The usual case of one call at a time: one recv holds exactly
            # the one reply line, which needs no splitting.
            chunk = self._recv()
            if chunk.find(b"\n") == len(chunk) - 1 and chunk.strip():
                return chunk
            self._take(chunk)
        while not self.lines:
            self._fill()
        return self.lines.pop()

    def lines_n(self, n: int) -> List[bytes]:
        """The next n lines, read with as few system calls as the data allows."""
        out: List[bytes] = []
        while len(out) < n:
            if not self.lines:
                self._fill()
            take = min(n - len(out), len(self.lines))
            # self.lines is kept reversed: the next line is last.
            chunk = self.lines[len(self.lines) - take :]
            del self.lines[len(self.lines) - take :]
            chunk.reverse()
            out.extend(chunk)
        return out

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def _result(reply: Any, method: str, result_cls: type) -> Any:
    if not isinstance(reply, dict):
        raise errors.StreamcapError("malformed reply to %s: %r" % (method, reply), method=method)
    if "error" in reply:
        raise errors.from_reply(reply["error"], method)
    return result_cls.from_wire(reply.get("result"))


class Client(Calls):
    """A connection to streamcapd with every protocol method as a call.

    ``Client(socket=None)`` connects to ``socket``, else to
    :func:`default_socket`.  Calls take keyword arguments and return the
    method's result dataclass (``client.session_open(label="x").session``);
    an error reply raises the :mod:`streamcap.errors` class of its code.
    Use it as a context manager to close the connection::

        with streamcap.Client() as c:
            print(c.server_info().version)
    """

    def __init__(self, socket: Optional[str] = None, timeout: Optional[float] = 30.0):
        self.socket = socket or default_socket()
        self.timeout = timeout
        self._conn: Optional[_Conn] = _Conn(self.socket, timeout)
        self._next_id = 1

    # -- plumbing ----------------------------------------------------
    def _live(self) -> _Conn:
        if self._conn is None:
            raise errors.ConnectionClosed("the client is closed")
        return self._conn

    def _ids(self, n: int) -> int:
        first = self._next_id
        self._next_id += n
        return first

    def _roundtrip(self, method: str, params: Dict[str, Any]) -> Any:
        conn = self._live()
        conn.send(_request(self._ids(1), method, params) + "\n")
        try:
            return _loads(conn.line())
        except errors.Timeout:
            # Its reply may still come and would be taken for the next
            # call's: the connection cannot be trusted any more.
            self.close()
            raise

    def _call(self, method: str, params: Dict[str, Any], result: type) -> Any:
        return _result(self._roundtrip(method, params), method, result)

    def call(self, method: str, **params: Any) -> Dict[str, Any]:
        """Send any method by wire name; returns the raw ``result`` object."""
        return _result(self._roundtrip(method, params), method, Raw)

    # -- public ------------------------------------------------------
    def pipeline(self) -> "Pipeline":
        """A pipeline: queue calls, send them in one write, read all replies.

        ::

            with client.pipeline() as p:
                a = p.graph_stats(graph=1)
                b = p.graph_stats(graph=2)
            print(a.result().nodes, b.result().nodes)
        """
        return Pipeline(self)

    def log_subscribe(self, *, outcome: Optional[str] = None, host: Optional[str] = None):
        """Refused here: a subscribed connection runs no further requests.

        Use :meth:`subscribe`, which subscribes on a connection of its own.
        """
        raise errors.StreamcapError(
            "log.subscribe would end this connection's requests; use client.subscribe()",
            method="log.subscribe",
        )

    def subscribe(self, *, outcome: Optional[str] = None, host: Optional[str] = None) -> "Subscription":
        """Live ``log.event`` notifications, on a connection of their own.

        Iterate the returned :class:`Subscription` for :class:`LogEvent`
        values; close it (or leave its ``with`` block) to end it.
        """
        return Subscription(self.socket, outcome=outcome, host=host, timeout=None)

    def graph(self, graph_id: int) -> "Any":
        """The stored graph ``graph_id`` as a :class:`streamcap.Graph`."""
        from .graph import Graph

        return Graph.load(self, graph_id)

    def run(self, argv: Sequence[str], **options: Any) -> "Any":
        """Run a program under the CUDA runtime stand-in (``streamcap run``).

        Returns a :class:`streamcap.RunResult`; see :func:`streamcap.run.run`
        for the options.
        """
        from .run import run

        return run(argv, socket=self.socket, client=self, **options)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()


class Pending:
    """The reply-to-be of one pipelined call.

    Replies are decoded when first asked for: a pipeline of record calls
    whose node ids nobody reads costs no decoding beyond the error check.
    """

    __slots__ = ("method", "_cls", "_raw", "_value", "_error", "_done")

    def __init__(self, method: str, cls: type):
        self.method = method
        self._cls = cls
        self._raw: Optional[bytes] = None
        self._value: Any = None
        self._error: Optional[BaseException] = None
        self._done = False

    def _settle(self, raw: bytes) -> None:
        self._done = True
        # A reply holding the bytes "error" anywhere (say, in a label) is
        # decoded now to tell; the others only when asked.
        if b'"error"' in raw:
            self._decode(raw)
        else:
            self._raw = raw

    def _decode(self, raw: bytes) -> None:
        self._raw = None
        try:
            self._value = _result(_loads(raw), self.method, self._cls)
        except errors.StreamcapError as e:
            self._error = e

    def done(self) -> bool:
        """Whether the pipeline ran and this call has its reply."""
        return self._done

    def result(self) -> Any:
        """The call's result dataclass; raises its error if it failed."""
        if not self._done:
            raise errors.StreamcapError("the pipeline has not run yet", method=self.method)
        if self._raw is not None:
            self._decode(self._raw)
        if self._error is not None:
            raise self._error
        return self._value

    @property
    def error(self) -> Optional[BaseException]:
        """The call's exception, or None."""
        if self._raw is not None:
            self._decode(self._raw)
        return self._error


class Pipeline(Calls):
    """Calls queued on a client and sent together (see Client.pipeline).

    Each call returns a :class:`Pending`.  :meth:`execute` (run on leaving
    the ``with`` block) writes every queued request at once and reads the
    replies in order; with ``raise_on_error`` (the default) the first failed
    call's exception is raised after all replies were read.
    """

    def __init__(self, client: Client):
        self._client = client
        self._lines: List[str] = []
        self._pending: List[Pending] = []

    def _call(self, method: str, params: Dict[str, Any], result: type) -> Pending:
        c = self._client
        rid = c._next_id
        c._next_id = rid + 1
        self._lines.append(_request(rid, method, params))
        p = Pending(method, result)
        self._pending.append(p)
        return p

    log_subscribe = Client.log_subscribe

    def __len__(self) -> int:
        """How many calls are queued."""
        return len(self._pending)

    def execute(self, raise_on_error: bool = True) -> List[Any]:
        """Send the queued calls; returns their results (or exceptions) in order."""
        pending = self._send(raise_on_error)
        return [p.error if p.error is not None else p.result() for p in pending]

    def _send(self, raise_on_error: bool) -> List[Pending]:
        pending, lines = self._pending, self._lines
        self._pending, self._lines = [], []
        if not pending:
            return []
        conn = self._client._live()
        # Written in slices: the daemon stops reading a connection while
        # 4 MiB of its replies are unread, so a huge pipeline written whole
        # before reading anything could stall both sides.
        step = 2048
        for i in range(0, len(lines), step):
            conn.send("\n".join(lines[i : i + step]) + "\n")
            for p, raw in zip(pending[i : i + step], conn.lines_n(len(lines[i : i + step]))):
                p._settle(raw)
        if raise_on_error:
            for p in pending:
                if p._error is not None:
                    raise p._error
        return pending

    def __enter__(self) -> "Pipeline":
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None:
            self._send(True)


class Subscription:
    """An iterator of live :class:`LogEvent` notifications (log.subscribe).

    It owns its connection: closing it ends the subscription.
    """

    def __init__(
        self,
        socket: Optional[str] = None,
        *,
        outcome: Optional[str] = None,
        host: Optional[str] = None,
        timeout: Optional[float] = None,
    ):
        self._conn: Optional[_Conn] = _Conn(socket or default_socket(), 30.0)
        self._conn.send(_request(1, "log.subscribe", {"outcome": outcome, "host": host}) + "\n")
        try:
            reply = _loads(self._conn.line())
            if "error" in reply:
                raise errors.from_reply(reply["error"], "log.subscribe")
        except BaseException:
            self.close()
            raise
        self._conn.set_timeout(timeout)

    def next(self, timeout: Optional[float] = None) -> LogEvent:
        """The next event; ``timeout`` seconds at most (None: wait)."""
        conn = self._conn
        if conn is None:
            raise StopIteration
        conn.set_timeout(timeout)
        while True:
            msg = _loads(conn.line())
            if isinstance(msg, dict) and msg.get("method") == "log.event":
                return LogEvent.from_params(msg.get("params") or {})

    def __iter__(self) -> Iterator[LogEvent]:
        return self

    def __next__(self) -> LogEvent:
        try:
            return self.next(None)
        except errors.ConnectionClosed:
            self.close()
            raise StopIteration

    def close(self) -> None:
        """End the subscription (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
