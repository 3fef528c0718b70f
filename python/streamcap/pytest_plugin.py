"""pytest fixtures for streamcap (entry point ``pytest11``; or ``-p streamcap.pytest_plugin``).

Fixtures:

``streamcapd``
    session-scoped :class:`streamcap.daemon.Daemon`: a private daemon on a
    temporary socket and database, stopped after the session; with
    ``--streamcap-socket PATH`` the daemon already running there instead.
``streamcap_client``
    a :class:`streamcap.Client` connected to it, closed after the test.
``capture``
    ``capture(argv, **options)`` runs a program under the CUDA runtime
    stand-in (``streamcap run``) and returns its :class:`streamcap.RunResult`
    (``.graphs``, ``.graph``, ``.failed``).
``graph_baseline``
    ``graph_baseline(graph, name=None)`` compares a graph with the baseline
    file beside the test (``<test dir>/<module>/<test>[-name].graph.json``):
    written when absent, rewritten with ``--streamcap-update``, a readable
    diff when it differs.

Options: ``--streamcap-socket``, ``--streamcap-update``, ``--streamcapd``
(the daemon binary; default ``$STREAMCAPD`` or PATH) and ``--streamcap-cli``
(the tool; default ``$STREAMCAP_CLI`` or PATH).
"""

import os
from typing import Any, Callable, Iterator, List, Optional, Sequence

import pytest

from . import baseline as _baseline
from .client import Client
from .errors import ConnectionClosed
from .daemon import Daemon
from .run import RunResult, find_cli
from .run import run as _run


def pytest_addoption(parser: Any) -> None:
    """Register the plugin's command-line options."""
    g = parser.getgroup("streamcap", "streamcap CUDA graph capture")
    g.addoption("--streamcap-socket", default=None, help="use the streamcapd already listening on this socket")
    g.addoption(
        "--streamcap-update",
        action="store_true",
        default=False,
        help="rewrite graph_baseline files from this run's graphs",
    )
    g.addoption("--streamcapd", default=None, help="the streamcapd binary to start (default: $STREAMCAPD, PATH)")
    g.addoption("--streamcap-cli", default=None, help="the streamcap tool (default: $STREAMCAP_CLI, PATH)")


@pytest.fixture(scope="session")
def streamcapd(request: Any) -> Iterator[Daemon]:
    """A streamcapd for the session: private, or ``--streamcap-socket``'s."""
    sock = request.config.getoption("--streamcap-socket")
    if sock:
        yield Daemon.attach(sock)
        return
    try:
        d = Daemon.start(request.config.getoption("--streamcapd"))
    except (FileNotFoundError, ConnectionClosed) as e:
        why = str(e)
    else:
        why = ""
    if why:
        pytest.fail(why, pytrace=False)
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture
def streamcap_client(streamcapd: Daemon) -> Iterator[Client]:
    """A client of the session's daemon, closed after the test."""
    c = streamcapd.client()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def capture(request: Any, streamcapd: Daemon) -> Iterator[Callable[..., RunResult]]:
    """``capture(argv, **options)``: run a program under the stand-in.

    Options are :func:`streamcap.run`'s (``label``, ``fail_on``, ``env``,
    ``cwd``, ``timeout``, ``check``).
    """
    clients: List[Client] = []
    cli = request.config.getoption("--streamcap-cli")

    def run(argv: Sequence[str], **options: Any) -> RunResult:
        c = streamcapd.client()
        clients.append(c)
        options.setdefault("cli", cli or None)
        try:
            find_cli(options["cli"])
            why = ""
        except FileNotFoundError as e:
            why = str(e)
        if why:
            pytest.fail(why, pytrace=False)
        return _run(list(argv), socket=streamcapd.socket, client=c, **options)

    try:
        yield run
    finally:
        for c in clients:
            c.close()


@pytest.fixture
def graph_baseline(request: Any) -> Callable[..., None]:
    """``graph_baseline(graph, name=None)``: check ``graph`` against its baseline."""
    update = request.config.getoption("--streamcap-update")
    # Node.path came with pytest 7, Node.fspath (py.path) is older.
    test_file = str(getattr(request.node, "path", None) or request.node.fspath)
    directory = os.path.join(os.path.dirname(test_file), os.path.splitext(os.path.basename(test_file))[0])

    def check(graph: Any, name: Optional[str] = None) -> None:
        __tracebackhide__ = True
        base = _baseline.file_name(request.node.name, name)
        path = os.path.join(directory, base)
        problem = _baseline.check(graph, path, update)
        if problem:
            pytest.fail(problem, pytrace=False)

    return check
