"""streamcap: a Python client for streamcapd, the CUDA graph capture daemon.

``Client`` speaks the daemon's JSON-RPC protocol (every method a call with
keyword arguments, results as dataclasses, errors as exceptions);
``AsyncClient`` does the same under asyncio; ``Graph`` answers questions
about a stored graph; ``run`` runs a program under the CUDA runtime
stand-in; ``streamcap.pytest_plugin`` gives pytest fixtures for all of it.
"""

from . import errors
from ._methods import METHODS
from .aio import AsyncClient
from .assertions import assert_happens_before, assert_no_races, assert_ordered, assert_unordered
from .client import Client, Pending, Pipeline, Subscription, default_socket
from .errors import (
    Busy,
    CaptureState,
    ConnectionClosed,
    CudaError,
    InternalError,
    InvalidParams,
    InvalidRequest,
    Invalidated,
    Limit,
    MethodNotFound,
    NotFound,
    ParseError,
    PermissionDenied,
    ShuttingDown,
    Storage,
    StreamcapError,
    Timeout,
)
from .graph import Graph, Node
from .results import Fingerprint, LogEvent, Race, Result, Unjoined
from .run import FailedCapture, RunResult, StoredCapture, run

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "Busy",
    "CaptureState",
    "Client",
    "ConnectionClosed",
    "CudaError",
    "FailedCapture",
    "Fingerprint",
    "Graph",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "Invalidated",
    "Limit",
    "LogEvent",
    "METHODS",
    "MethodNotFound",
    "Node",
    "NotFound",
    "ParseError",
    "Pending",
    "PermissionDenied",
    "Pipeline",
    "Race",
    "Result",
    "RunResult",
    "ShuttingDown",
    "Storage",
    "StoredCapture",
    "StreamcapError",
    "Subscription",
    "Timeout",
    "Unjoined",
    "assert_happens_before",
    "assert_no_races",
    "assert_ordered",
    "assert_unordered",
    "default_socket",
    "errors",
    "run",
]
