"""Assertions about a graph's order, with messages that say why they fail.

The verdict comes from the daemon (``graph.reachable``, ``graph.races``);
the explanation is worked out from the graph's nodes, edges and streams,
for instance::

    expected 'download' after 'relu' but no path exists; relu is on stream 2,
    which was never joined back
"""

from collections import deque
from typing import Any, Dict, List, Optional

from .graph import Graph, Node, NodeRef


def _name(graph: Graph, ref: NodeRef) -> str:
    if isinstance(ref, str):
        return ref
    return graph.node(ref).label()


def _path(graph: Graph, a: Node, b: Node) -> Optional[List[Node]]:
    """A shortest path of edges from a to b, from the edges held here."""
    parent: Dict[int, Optional[int]] = {a.id: None}
    frontier = deque([a.id])
    while frontier:
        i = frontier.popleft()
        if i == b.id:
            out = []
            at: Optional[int] = i
            while at is not None:
                out.append(graph.node(at))
                at = parent[at]
            return list(reversed(out))
        for j in graph._succ.get(i, []):
            if j not in parent:
                parent[j] = i
                frontier.append(j)
    return None


def _path_text(path: List[Node]) -> str:
    return " -> ".join(n.label() for n in path)


def why_not_before(graph: Graph, a: NodeRef, b: NodeRef) -> str:
    """Why no path leads from ``a`` to ``b``, in one clause."""
    na, nb = graph.node(a), graph.node(b)
    an, bn = _name(graph, a), _name(graph, b)
    back = _path(graph, nb, na)
    if back is not None:
        return "%s runs before %s (%s)" % (bn, an, _path_text(back))
    later = graph.descendants(na)
    joined = sorted({graph.node(i).stream for i in later} - {na.stream})
    if na.stream == nb.stream:
        return "both are on stream %d but nothing orders them there" % na.stream
    if not joined:
        return "%s is on stream %d, which was never joined back" % (an, na.stream)
    return "%s is on stream %d, which joins stream%s %s later, but not before %s (stream %d)" % (
        an,
        na.stream,
        "s" if len(joined) > 1 else "",
        ", ".join(str(s) for s in joined),
        bn,
        nb.stream,
    )


def assert_happens_before(graph: Graph, a: NodeRef, b: NodeRef) -> None:
    """Fail unless ``a`` happens before ``b`` (a path leads from a to b)."""
    if graph.happens_before(a, b):
        return
    raise AssertionError(
        "expected %r after %r but no path exists; %s"
        % (_name(graph, b), _name(graph, a), why_not_before(graph, a, b))
    )


def assert_ordered(graph: Graph, *refs: NodeRef) -> None:
    """Fail unless each of ``refs`` happens before the next."""
    answers = graph.reachable_pairs(list(zip(refs, refs[1:])))
    for (a, b), ok in zip(zip(refs, refs[1:]), answers):
        if not ok:
            assert_happens_before(graph, a, b)


def assert_unordered(graph: Graph, a: NodeRef, b: NodeRef) -> None:
    """Fail unless neither of ``a`` and ``b`` happens before the other."""
    ab, ba = graph.reachable_pairs([(a, b), (b, a)])
    if not ab and not ba:
        return
    first, second = (a, b) if ab else (b, a)
    path = _path(graph, graph.node(first), graph.node(second))
    how = " (%s)" % _path_text(path) if path else ""
    raise AssertionError(
        "expected %r and %r unordered, but %r happens before %r%s"
        % (_name(graph, a), _name(graph, b), _name(graph, first), _name(graph, second), how)
    )


def race_text(graph: Graph, race: Any) -> str:
    """One race as a sentence."""
    na, nb = graph.node(race.a), graph.node(race.b)
    return "%r (%s, stream %d) and %r (%s, stream %d) at 0x%x..0x%x" % (
        na.label(),
        race.a_mode,
        na.stream,
        nb.label(),
        race.b_mode,
        nb.stream,
        race.address,
        race.address + race.size,
    )


def assert_no_races(graph: Graph) -> None:
    """Fail when ``graph.races`` finds any race, listing them."""
    races = graph.races()
    if not races:
        return
    raise AssertionError(
        "graph %d has %d race%s: %s"
        % (graph.id, len(races), "" if len(races) == 1 else "s", "; ".join(race_text(graph, r) for r in races))
    )
