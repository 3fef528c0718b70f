"""Graph baselines: a graph kept in a reviewed file and compared with later runs.

The file holds the graph in a canonical form: streams renumbered in order
of first use (a program's stream handles differ from run to run), without
what changes between identical runs (kernel argument bytes, buffer
addresses, body graph ids).  Two graphs match when their canonical forms
are equal; a mismatch is shown as a unified diff of one line per node and
edge.
"""

import difflib
import json
import os
import re
from typing import Any, Dict, List, Optional

VERSION = 1

# Node members that differ between two runs of the same program.
_VOLATILE = frozenset(("args", "accesses", "child", "bodies"))


def canonical(graph: Any) -> Dict[str, Any]:
    """The canonical form of a :class:`streamcap.Graph`."""
    streams: Dict[int, int] = {}
    nodes = []
    for n in graph.nodes:
        s = streams.setdefault(n.stream, len(streams))
        node = {"id": n.id, "kind": n.kind, "stream": s, "name": n.name}
        node.update({k: v for k, v in sorted(n.attrs.items()) if k not in _VOLATILE})
        nodes.append(node)
    return {"nodes": nodes, "edges": [list(e) for e in graph.edges]}


def lines(form: Dict[str, Any]) -> List[str]:
    """One readable line per node and edge of a canonical form."""
    out = []
    names = {}
    for n in form.get("nodes", []):
        names[n["id"]] = n.get("name") or "%s#%d" % (n.get("kind"), n["id"])
        extra = " ".join(
            "%s=%s" % (k, json.dumps(v)) for k, v in n.items() if k not in ("id", "kind", "stream", "name")
        )
        out.append("node %d %s on stream %d %r %s" % (n["id"], n.get("kind"), n.get("stream", 0), n.get("name"), extra))
    for a, b in form.get("edges", []):
        out.append("edge %s -> %s" % (names.get(a, a), names.get(b, b)))
    return [x.rstrip() for x in out]


def file_name(test_name: str, name: Optional[str] = None) -> str:
    """The baseline file's name for a test (and an optional suffix)."""
    base = test_name + ("-" + name if name else "")
    return re.sub(r"[^\w.-]", "_", base) + ".graph.json"


def write(graph: Any, path: str) -> None:
    """Write ``graph``'s canonical form to ``path``."""
    fp = graph.fingerprint
    doc = {
        "version": VERSION,
        "label": graph.label,
        "fingerprint": {"structure": fp.structure, "full": fp.full} if fp else None,
        "graph": canonical(graph),
    }
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")


def check(graph: Any, path: str, update: bool = False) -> Optional[str]:
    """Compare ``graph`` with the baseline at ``path``: None when it
    matches (or the file was written: absent, or ``update``), else a
    readable account of the difference."""
    if update or not os.path.exists(path):
        write(graph, path)
        return None
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return "cannot read the baseline %s: %s (rewrite it with --streamcap-update)" % (path, e)
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        return "%s is not a version %d graph baseline (rewrite it with --streamcap-update)" % (path, VERSION)
    want = doc.get("graph", {})
    got = canonical(graph)
    if want == got:
        return None
    fp = graph.fingerprint
    old = (doc.get("fingerprint") or {}).get("full", "?")
    diff = difflib.unified_diff(lines(want), lines(got), "baseline", "graph %d" % graph.id, lineterm="", n=2)
    return "graph %d differs from the baseline %s (fingerprint %s, baseline %s); " "--streamcap-update rewrites it:\n%s" % (
        graph.id,
        path,
        fp.full if fp else "?",
        old,
        "\n".join(diff),
    )
