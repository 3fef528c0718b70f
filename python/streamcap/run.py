"""Running a program under the CUDA runtime stand-in (``streamcap run --json``)."""

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from . import errors
from .results import Unjoined

CLI_ENV = "STREAMCAP_CLI"


def find_cli(cli: Optional[str] = None) -> str:
    """The ``streamcap`` tool: ``cli``, else ``$STREAMCAP_CLI``, else PATH."""
    found = cli or os.environ.get(CLI_ENV) or shutil.which("streamcap")
    if not found:
        raise FileNotFoundError("the streamcap tool was not found: set %s or put it on PATH" % CLI_ENV)
    return found


@dataclass
class StoredCapture:
    """A graph the program stored: its id, capture, process and size."""

    graph: int
    capture: Optional[int]
    pid: int
    source: str
    label: Optional[str]
    node_count: int
    edge_count: int


@dataclass
class FailedCapture:
    """A capture that failed: the call that broke it and CUDA's error."""

    capture: Optional[int]
    pid: int
    call: Optional[str]
    cuda_error: Optional[int]
    cuda_name: Optional[str]
    message: Optional[str]
    unjoined: List[Unjoined]
    broken_by: Optional[Dict[str, Any]]


@dataclass
class RunResult:
    """What ``streamcap run`` reported about one program's run.

    ``captures`` are the graphs it stored, ``failed`` its failed captures,
    ``report`` the whole ``--json`` summary, ``stdout``/``stderr`` the
    program's output.  :attr:`graphs` reads the stored graphs.
    """

    exit_status: int
    signal: Optional[int]
    captures: List[StoredCapture]
    failed: List[FailedCapture]
    report: Dict[str, Any]
    stdout: str
    stderr: str
    client: Any = field(default=None, repr=False)
    _graphs: Optional[List[Any]] = field(default=None, repr=False)

    @property
    def graphs(self) -> List[Any]:
        """The stored graphs as :class:`streamcap.Graph` objects."""
        if self._graphs is None:
            from .graph import Graph

            self._graphs = [Graph.load(self.client, c.graph) for c in self.captures]
        return self._graphs

    @property
    def graph(self) -> Any:
        """The one graph the run stored; an error unless exactly one."""
        gs = self.graphs
        if len(gs) != 1:
            raise AssertionError(
                "expected the run to store one graph, it stored %d%s" % (len(gs), self._failures_text())
            )
        return gs[0]

    def _failures_text(self) -> str:
        if not self.failed:
            return ""
        parts = []
        for f in self.failed:
            parts.append(
                "capture %s failed in %s: %s %s" % (f.capture, f.call or "?", f.cuda_name or "", f.message or "")
            )
        return " (" + "; ".join(parts) + ")"


def _stored(d: Dict[str, Any]) -> StoredCapture:
    return StoredCapture(
        graph=d["graph"],
        capture=d.get("capture"),
        pid=d.get("pid", 0),
        source=d.get("source", ""),
        label=d.get("label"),
        node_count=d.get("node_count", 0),
        edge_count=d.get("edge_count", 0),
    )


def _failed(d: Dict[str, Any]) -> FailedCapture:
    return FailedCapture(
        capture=d.get("capture"),
        pid=d.get("pid", 0),
        call=d.get("call"),
        cuda_error=d.get("cuda_error"),
        cuda_name=d.get("cuda_name"),
        message=d.get("message"),
        unjoined=Unjoined.from_wire_list(d.get("unjoined")),
        broken_by=d.get("broken_by"),
    )


def run(
    argv: Sequence[str],
    *,
    socket: Optional[str] = None,
    client: Any = None,
    label: Optional[str] = None,
    fail_on: Optional[Sequence[str]] = None,
    env: Optional[Dict[str, str]] = None,
    cwd: Optional[str] = None,
    cli: Optional[str] = None,
    timeout: Optional[float] = None,
    check: bool = False,
) -> RunResult:
    """Run ``argv`` with ``streamcap run --json`` and parse its summary.

    ``label`` names the captures; ``fail_on`` passes ``--fail-on``
    conditions (``["failed", "races"]``); ``env`` and ``cwd`` are the
    program's; ``check`` raises :class:`StreamcapError` when the program
    exits non-zero.  ``client`` (default: one on ``socket``) reads the
    graphs.
    """
    if not argv:
        raise ValueError("run needs a program to run")
    tool = find_cli(cli)
    with tempfile.TemporaryDirectory(prefix="streamcap-run-") as tmp:
        summary = os.path.join(tmp, "summary.json")
        cmd = [tool, "--json"]
        if socket:
            cmd += ["--socket", socket]
        cmd += ["run", "--summary-file", summary]
        if label is not None:
            cmd += ["--label", label]
        if fail_on:
            cmd += ["--fail-on", ",".join(fail_on)]
        cmd += ["--", *argv]
        proc = subprocess.run(
            cmd,
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
        )
        try:
            with open(summary, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            raise errors.StreamcapError(
                "streamcap run left no summary (exit %d): %s" % (proc.returncode, proc.stderr.decode(errors="replace"))
            ) from e
    if client is None:
        from .client import Client

        client = Client(socket)
    result = RunResult(
        exit_status=report.get("exit_status", proc.returncode),
        signal=report.get("signal"),
        captures=[_stored(g) for g in report.get("graphs", [])],
        failed=[_failed(f) for f in report.get("failed", [])],
        report=report,
        stdout=proc.stdout.decode(errors="replace"),
        stderr=proc.stderr.decode(errors="replace"),
        client=client,
    )
    if check and proc.returncode != 0:
        raise errors.StreamcapError(
            "%s exited with status %d%s" % (argv[0], proc.returncode, result._failures_text())
        )
    return result
