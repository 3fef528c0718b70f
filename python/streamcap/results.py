"""The base of every result dataclass, and the smaller records results hold."""

from dataclasses import dataclass, fields
from typing import Any, Dict, List, Optional, Tuple


class Result:
    """Base of the method result dataclasses.

    ``from_wire`` builds one from a reply's ``result`` object: members the
    dataclass names become fields, members a newer daemon added stay
    reachable in ``extra`` so an old client never drops them silently.
    """

    extra: Dict[str, Any]

    @classmethod
    def from_wire(cls, obj: Any) -> "Result":
        """Build the dataclass from a decoded ``result`` object."""
        if not isinstance(obj, dict):
            obj = {}
        names, blank = _spec(cls)
        # Filled in directly rather than through __init__: this runs for
        # every reply, and the generated __init__ costs several times more.
        r = cls.__new__(cls)
        d = r.__dict__
        d.update(blank)
        if obj.keys() <= names:
            d.update(obj)
            d["extra"] = {}
        else:
            d.update((k, v) for k, v in obj.items() if k in names)
            d["extra"] = {k: v for k, v in obj.items() if k not in names}
        return r

    def to_dict(self) -> Dict[str, Any]:
        """The result as the daemon sent it (fields, then ``extra``)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]
        d = {k: v for k, v in d.items() if v is not None}
        d.update(getattr(self, "extra", {}))
        return d


class Raw:
    """Stands for a result class where the raw ``result`` object is wanted."""

    @staticmethod
    def from_wire(obj: Any) -> Any:
        """The object itself."""
        return obj


_SPECS: Dict[type, Tuple[frozenset, Dict[str, None]]] = {}


def _spec(cls: type) -> Tuple[frozenset, Dict[str, None]]:
    # Cached: fields() walks the class each time.
    spec = _SPECS.get(cls)
    if spec is None:
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        spec = (frozenset(names), dict.fromkeys(names))
        _SPECS[cls] = spec
    return spec


@dataclass(frozen=True)
class Fingerprint:
    """A graph's fingerprints: 16 hex digits each (docs/analyses.md)."""

    structure: str
    full: str


@dataclass(frozen=True)
class Race:
    """Two unordered nodes whose accesses overlap with a write (graph.races)."""

    a: int
    b: int
    address: int
    size: int
    a_mode: str
    b_mode: str


@dataclass
class LogEvent:
    """One ``log.event`` notification of a subscription."""

    event: str
    session: int
    uid: Optional[int]
    host: Optional[str]
    at: Optional[str]
    params: Dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        """Any member of the notification, e.g. ``ev["graph"]``."""
        return self.params[key]

    def get(self, key: str, default: Any = None) -> Any:
        """A member of the notification, or ``default``."""
        return self.params.get(key, default)

    @classmethod
    def from_params(cls, p: Dict[str, Any]) -> "LogEvent":
        """Build one from a notification's ``params``."""
        return cls(
            event=p.get("event", ""),
            session=p.get("session", 0),
            uid=p.get("uid"),
            host=p.get("host"),
            at=p.get("at"),
            params=p,
        )


@dataclass
class Unjoined:
    """Work left on a stream a capture never joined back (CUDA error 904)."""

    stream: int
    nodes: List[int]

    @classmethod
    def from_wire_list(cls, items: Any) -> List["Unjoined"]:
        """The ``unjoined`` member of a 904 error or a run summary."""
        return [cls(u.get("stream", 0), list(u.get("nodes", []))) for u in items or []]
