"""A private streamcapd: started on a temporary socket and database, stopped after.

The pytest plugin's ``streamcapd`` fixture is one of these; scripts can use
it directly::

    with streamcap.daemon.Daemon.start() as d:
        with d.client() as c:
            ...
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Any, List, Optional, Sequence

from . import errors
from .client import Client

DAEMON_ENV = "STREAMCAPD"


def find_daemon(binary: Optional[str] = None) -> str:
    """streamcapd: ``binary``, else ``$STREAMCAPD``, else beside the
    ``streamcap`` tool of ``$STREAMCAP_CLI``, else on PATH."""
    if binary:
        return binary
    if os.environ.get(DAEMON_ENV):
        return os.environ[DAEMON_ENV]
    cli = os.environ.get("STREAMCAP_CLI")
    if cli:
        beside = os.path.join(os.path.dirname(cli), "streamcapd")
        if os.access(beside, os.X_OK):
            return beside
    found = shutil.which("streamcapd")
    if not found:
        raise FileNotFoundError("streamcapd was not found: set %s or put it on PATH" % DAEMON_ENV)
    return found


class Daemon:
    """A streamcapd this process started, or one it was pointed at.

    ``socket`` is where it listens; ``db`` its database and ``pid`` its
    process id (None for a daemon started elsewhere).
    """

    def __init__(self, socket: str, db: Optional[str] = None, proc: Optional[subprocess.Popen] = None, tmp=None):
        self.socket = socket
        self.db = db
        self._proc = proc
        self._tmp = tmp

    @property
    def pid(self) -> Optional[int]:
        """The daemon's process id when this process started it."""
        return self._proc.pid if self._proc else None

    @classmethod
    def attach(cls, socket: str) -> "Daemon":
        """A daemon already running on ``socket`` (never stopped by us)."""
        return cls(socket)

    @classmethod
    def start(
        cls,
        binary: Optional[str] = None,
        args: Sequence[str] = (),
        directory: Optional[str] = None,
        timeout: float = 30.0,
    ) -> "Daemon":
        """Start streamcapd on a socket and database in ``directory``
        (default: a new temporary one, removed by :meth:`stop`); extra
        command-line ``args`` follow ``--socket`` and ``--db``."""
        exe = find_daemon(binary)
        tmp = None
        if directory is None:
            tmp = tempfile.TemporaryDirectory(prefix="streamcapd-")
            directory = tmp.name
        sock = os.path.join(directory, "streamcap.sock")
        db = os.path.join(directory, "streamcap.db")
        log = open(os.path.join(directory, "streamcapd.log"), "wb")
        cmd: List[str] = [exe, "--socket", sock, "--db", db, *args]
        try:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except OSError as e:
            if tmp is not None:
                tmp.cleanup()
            raise FileNotFoundError("cannot run streamcapd %s: %s" % (exe, e.strerror or e)) from None
        finally:
            log.close()
        d = cls(sock, db, proc, tmp)
        d._wait_ready(directory, timeout)
        return d

    def _wait_ready(self, directory: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        assert self._proc is not None
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                text = self.log()
                self._cleanup()
                raise errors.ConnectionClosed(
                    "streamcapd exited during start-up (status %d):\n%s" % (self._proc.returncode, text)
                )
            try:
                Client(self.socket, timeout=5).close()
                return
            except errors.ConnectionClosed:
                time.sleep(0.02)
        self.stop()
        raise errors.ConnectionClosed("streamcapd did not listen on %s within %gs" % (self.socket, timeout))

    def log(self) -> str:
        """What the daemon wrote on its standard output and error."""
        if not self.db:
            return ""
        try:
            with open(os.path.join(os.path.dirname(self.db), "streamcapd.log"), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def client(self, timeout: Optional[float] = 30.0) -> Client:
        """A new :class:`Client` connected to this daemon."""
        return Client(self.socket, timeout=timeout)

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        """Stop a daemon we started (SIGTERM, then SIGKILL after
        ``timeout``); returns its exit status.  Removes its directory."""
        status = None
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                status = self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                status = self._proc.wait()
        elif self._proc is not None:
            status = self._proc.returncode
        self._cleanup()
        return status

    def _cleanup(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> "Daemon":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
