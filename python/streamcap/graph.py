"""Stored graphs as objects: nodes, edges and questions about their order.

Questions of order (:meth:`Graph.happens_before`, :meth:`Graph.unordered`)
are answered by the daemon's ``graph.reachable``; the edges held here only
serve to explain an answer (:mod:`streamcap.assertions`).
"""

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple, Union

from .results import Fingerprint, Race

# Members of a graph.get node that are not its attributes.
_CORE = ("id", "kind", "stream", "name")


@dataclass(frozen=True)
class Node:
    """One node of a stored graph: ``id``, ``kind``, ``stream``, ``name``
    and the kind's other members in ``attrs`` (``function_name``,
    ``size_bytes``, ``accesses``, ...)."""

    id: int
    kind: str
    stream: int
    name: str
    attrs: Dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def from_wire(cls, d: Dict[str, Any]) -> "Node":
        """Build one from a ``graph.get`` node object."""
        return cls(
            id=d["id"],
            kind=d.get("kind", ""),
            stream=d.get("stream", 0),
            name=d.get("name") or "",
            attrs={k: v for k, v in d.items() if k not in _CORE},
        )

    @property
    def kernel(self) -> Optional[str]:
        """The kernel's function name (kernels only)."""
        return self.attrs.get("function_name")

    def label(self) -> str:
        """A short readable name: the node's name, else kind and id."""
        return self.name or "%s#%d" % (self.kind, self.id)

    def to_wire(self) -> Dict[str, Any]:
        """The node as ``graph.get`` sent it."""
        d: Dict[str, Any] = {"id": self.id, "kind": self.kind, "stream": self.stream, "name": self.name}
        d.update(self.attrs)
        return d


NodeRef = Union[int, str, Node]


def _short_name(name: str) -> str:
    # "left(float*, int)" is what CUDA records for a C++ kernel; tests name
    # it "left".
    return name.split("(", 1)[0].strip()


class Graph:
    """A stored graph, read with ``graph.get`` (see :meth:`Client.graph`).

    Nodes are found by id, by name or by kernel name (``graph["relu"]``);
    a kernel recorded as ``relu(float*, int)`` answers to ``relu`` too.
    """

    def __init__(self, client: Any, data: Dict[str, Any]):
        self.client = client
        self.data = data
        self.id: int = data["graph"]
        self.label: str = data.get("label") or ""
        self.nodes: List[Node] = [Node.from_wire(n) for n in data.get("nodes", [])]
        self.edges: List[Tuple[int, int]] = [(e[0], e[1]) for e in data.get("edges", [])]
        self._by_id = {n.id: n for n in self.nodes}
        self._succ: Dict[int, List[int]] = {n.id: [] for n in self.nodes}
        self._pred: Dict[int, List[int]] = {n.id: [] for n in self.nodes}
        for a, b in self.edges:
            self._succ.setdefault(a, []).append(b)
            self._pred.setdefault(b, []).append(a)

    @classmethod
    def load(cls, client: Any, graph_id: int) -> "Graph":
        """Read graph ``graph_id`` through ``client``."""
        return cls(client, client.call("graph.get", graph=graph_id))

    # -- metadata ----------------------------------------------------
    @property
    def fingerprint(self) -> Optional[Fingerprint]:
        """The graph's fingerprints, or None for a graph without them."""
        fp = self.data.get("fingerprint")
        if not isinstance(fp, dict):
            return None
        return Fingerprint(fp.get("structure", ""), fp.get("full", ""))

    @property
    def streams(self) -> List[int]:
        """The streams the nodes ran on, in order of first use."""
        seen: Dict[int, None] = {}
        for n in self.nodes:
            seen.setdefault(n.stream, None)
        return list(seen)

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __repr__(self) -> str:
        return "<Graph %d %r: %d nodes, %d edges>" % (self.id, self.label, len(self.nodes), len(self.edges))

    # -- nodes -------------------------------------------------------
    def nodes_named(self, name: str) -> List[Node]:
        """Nodes whose name or kernel name is ``name`` (or, for a C++
        kernel, whose name up to its parameter list is)."""
        exact = [n for n in self.nodes if name in (n.name, n.kernel)]
        if exact:
            return exact
        return [n for n in self.nodes if name in (_short_name(n.name), _short_name(n.kernel or ""))]

    def node(self, ref: NodeRef) -> Node:
        """The node ``ref`` names: a Node, an id, or a unique name."""
        if isinstance(ref, Node):
            return ref
        if isinstance(ref, int):
            try:
                return self._by_id[ref]
            except KeyError:
                raise KeyError("graph %d has no node %d" % (self.id, ref)) from None
        found = self.nodes_named(ref)
        if not found:
            names = ", ".join(sorted({n.label() for n in self.nodes})) or "none"
            raise KeyError("graph %d has no node named %r (its nodes: %s)" % (self.id, ref, names))
        if len(found) > 1:
            raise KeyError(
                "graph %d has %d nodes named %r (ids %s): name one by id"
                % (self.id, len(found), ref, ", ".join(str(n.id) for n in found))
            )
        return found[0]

    __getitem__ = node

    def successors(self, ref: NodeRef) -> List[Node]:
        """The nodes with an edge from ``ref``."""
        return [self._by_id[i] for i in self._succ.get(self.node(ref).id, [])]

    def predecessors(self, ref: NodeRef) -> List[Node]:
        """The nodes with an edge to ``ref``."""
        return [self._by_id[i] for i in self._pred.get(self.node(ref).id, [])]

    def descendants(self, ref: NodeRef) -> Set[int]:
        """Ids of every node a path from ``ref`` reaches (not ``ref``),
        from the edges held here."""
        start = self.node(ref).id
        seen: Set[int] = set()
        frontier = deque(self._succ.get(start, []))
        while frontier:
            i = frontier.popleft()
            if i not in seen:
                seen.add(i)
                frontier.extend(self._succ.get(i, []))
        return seen

    # -- questions the daemon answers --------------------------------
    def happens_before(self, a: NodeRef, b: NodeRef) -> bool:
        """Whether a path leads from ``a`` to ``b`` (``graph.reachable``)."""
        r = self.client.call("graph.reachable", graph=self.id, **{"from": self.node(a).id, "to": self.node(b).id})
        return bool(r["reachable"])

    def reachable_pairs(self, pairs: Iterable[Tuple[NodeRef, NodeRef]]) -> List[bool]:
        """``happens_before`` for many pairs in one request."""
        ids = [[self.node(a).id, self.node(b).id] for a, b in pairs]
        if not ids:
            return []
        return list(self.client.call("graph.reachable", graph=self.id, pairs=ids)["reachable"])

    def unordered(self, a: NodeRef, b: NodeRef) -> bool:
        """Whether neither of ``a`` and ``b`` happens before the other."""
        ab, ba = self.reachable_pairs([(a, b), (b, a)])
        return not ab and not ba

    def races(self, limit: Optional[int] = None) -> List[Race]:
        """Unordered node pairs whose accesses overlap with a write."""
        r = self.client.call("graph.races", graph=self.id, limit=limit)
        return [Race(**{k: x[k] for k in ("a", "b", "address", "size", "a_mode", "b_mode")}) for x in r["races"]]

    def stats(self) -> Any:
        """``graph.stats``: kinds, roots, leaves, critical path, width."""
        return self.client.graph_stats(graph=self.id)

    def diff(self, other: Union["Graph", int]) -> Any:
        """``graph.diff`` from this graph to ``other`` (a Graph or an id)."""
        b = other.id if isinstance(other, Graph) else other
        return self.client.graph_diff(a=self.id, b=b)

    def to_dot(self) -> str:
        """The graph as Graphviz DOT text (``graph.export``)."""
        return self.client.call("graph.export", graph=self.id, format="dot")["text"]

    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph`` of the nodes (with their members) and
        edges; needs networkx, which this package never requires."""
        try:
            import networkx  # type: ignore
        except ImportError as e:
            raise ImportError("Graph.to_networkx needs networkx: pip install networkx") from e
        g = networkx.DiGraph(graph=self.id, label=self.label)
        for n in self.nodes:
            g.add_node(n.id, **n.to_wire())
        g.add_edges_from(self.edges)
        return g
