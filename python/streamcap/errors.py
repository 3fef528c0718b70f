"""Exceptions mirroring the protocol's error table (proto/PROTOCOL.md §7).

Every error reply raises a subclass of :class:`StreamcapError` chosen by its
JSON-RPC ``code``; ``data`` keeps the reply's ``error.data`` and ``kind`` its
``data.kind``.  A test keeps :data:`BY_CODE` equal to the error table of
proto/openrpc.json.
"""

from typing import Any, Dict, List, Optional

from .results import Unjoined


class StreamcapError(Exception):
    """Base of every error this package raises.

    ``code`` is the JSON-RPC error code (``rpc_code`` too; :class:`CudaError`
    uses ``code`` for CUDA's number), ``message`` the daemon's text, ``data``
    its ``error.data`` object and ``method`` the call that failed.
    """

    rpc_code = 0

    def __init__(
        self,
        message: str,
        data: Optional[Dict[str, Any]] = None,
        method: Optional[str] = None,
        code: Optional[int] = None,
    ):
        super().__init__(message)
        self.message = message
        self.data = data or {}
        self.method = method
        if code is not None:
            self.rpc_code = code
        self.code = self.rpc_code

    @property
    def kind(self) -> Optional[str]:
        """``error.data.kind``: the error's kind as the daemon names it."""
        return self.data.get("kind")

    def __str__(self) -> str:
        where = "%s: " % self.method if self.method else ""
        return "%s%s (%d)" % (where, self.message, self.rpc_code)


class ConnectionClosed(StreamcapError):
    """The daemon could not be reached, or closed the connection."""


class Timeout(ConnectionClosed, TimeoutError):
    """Nothing came from the daemon within the client's timeout."""


class ParseError(StreamcapError):
    """-32700: the daemon could not parse a request line."""

    rpc_code = -32700


class InvalidRequest(StreamcapError):
    """-32600: not a valid request (also: message too large, bad batch)."""

    rpc_code = -32600


class MethodNotFound(StreamcapError):
    """-32601: the daemon does not know the method (an older daemon)."""

    rpc_code = -32601


class InvalidParams(StreamcapError):
    """-32602: a parameter is missing, mistyped or out of range.

    ``field`` names it (``data.field``).
    """

    rpc_code = -32602

    @property
    def field(self) -> Optional[str]:
        """The parameter the daemon refused."""
        return self.data.get("field")


class InternalError(StreamcapError):
    """-32603: the daemon failed (out of memory, ...); nothing was changed."""

    rpc_code = -32603


class NotFound(StreamcapError):
    """1001: unknown session, graph or node (or another user's).

    ``what`` says which: ``"session"``, ``"graph"`` or ``"node"``.
    """

    rpc_code = 1001

    @property
    def what(self) -> Optional[str]:
        """``data.what``: session, graph or node."""
        return self.data.get("what")


class CaptureState(StreamcapError):
    """1002: the stream is already capturing, or is not capturing."""

    rpc_code = 1002


class Invalidated(StreamcapError):
    """1003: the stream's capture is invalidated or the session poisoned."""

    rpc_code = 1003


class PermissionDenied(StreamcapError):
    """1005: reserved (this daemon answers another user's ids as NotFound)."""

    rpc_code = 1005


class Limit(StreamcapError):
    """1006: a message, connection, session or node limit was reached."""

    rpc_code = 1006


# The daemon is full for now (a limit): retrying later may succeed.
Busy = Limit


class Storage(StreamcapError):
    """1007: the database failed; nothing was acknowledged."""

    rpc_code = 1007


class ShuttingDown(StreamcapError):
    """1008: the daemon is stopping."""

    rpc_code = 1008


class CudaError(StreamcapError):
    """1009: a cuda-mode call returned a CUDA error.

    ``code`` is CUDA's error number (``cuda_error``, e.g. 904), ``name``
    its name (``cudaErrorStreamCaptureUnjoined``), ``unjoined`` the
    streams holding work never joined back (904 only) and ``capture`` the
    capture a failed ``capture.end`` ended.  ``rpc_code`` is 1009.
    """

    rpc_code = 1009

    def __init__(self, message: str, data: Optional[Dict[str, Any]] = None, method=None, code=None):
        super().__init__(message, data, method, code)
        self.code = self.data.get("cuda_error", 0)

    @property
    def name(self) -> Optional[str]:
        """CUDA's name of the error."""
        return self.data.get("cuda_name")

    @property
    def capture(self) -> Optional[int]:
        """The capture a failed ``capture.end`` ended, when it says."""
        return self.data.get("capture")

    @property
    def unjoined(self) -> List[Unjoined]:
        """Streams with work not joined back into the origin stream (904)."""
        return Unjoined.from_wire_list(self.data.get("unjoined"))

    def __str__(self) -> str:
        where = "%s: " % self.method if self.method else ""
        return "%s%s (%s %d)" % (where, self.message, self.name or "cuda error", self.code)


# Error table name (proto/openrpc.json components.errors) -> class.
BY_NAME = {
    "ParseError": ParseError,
    "InvalidRequest": InvalidRequest,
    "MethodNotFound": MethodNotFound,
    "InvalidParams": InvalidParams,
    "InternalError": InternalError,
    "NotFound": NotFound,
    "CaptureState": CaptureState,
    "Invalidated": Invalidated,
    "PermissionDenied": PermissionDenied,
    "Limit": Limit,
    "Storage": Storage,
    "ShuttingDown": ShuttingDown,
    "Cuda": CudaError,
}

# JSON-RPC code -> class.
BY_CODE = {cls.rpc_code: cls for cls in BY_NAME.values()}


def from_reply(error: Any, method: Optional[str] = None) -> StreamcapError:
    """The exception for one reply's ``error`` object."""
    if not isinstance(error, dict):
        return StreamcapError("malformed error reply: %r" % (error,), method=method)
    code = error.get("code")
    message = str(error.get("message", ""))
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    cls = BY_CODE.get(code) if isinstance(code, int) else None
    if cls is None:
        return StreamcapError(message, data, method, code if isinstance(code, int) else 0)
    return cls(message, data, method)
