"""The fields an export derives from its complex, checked against the verified complex.

``linear_regions`` must be exactly the connected components of the adjacency graph restricted to pairs of regions
with equal output maps; every key of ``summary`` must equal its count in the verified complex (``exact`` and
``engine`` must repeat the export's own); ``exact`` is a boolean and ``engine`` one of :data:`ENGINES`. A
certificate's ``search`` object records how the network was found: the checker cannot rerun the search, so it
checks what can be checked (types, ``enumerated <= evaluations``, ``restarts <= evaluations``, the grid of
values sorted and distinct, the engine the export's) and says so in its report.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .errors import InputError, VerificationError
from .reading import check_keys, describe, get_key, read_bool, read_int, read_list, read_str, read_vector

__all__ = ["ENGINES", "SUMMARY_KEYS", "SEARCH_KEYS", "read_linear_regions", "read_summary", "read_search",
           "read_engine", "components", "check_linear_regions", "check_summary", "check_search"]

#: The engines polyregions names (``""``: a complex built without an engine).
ENGINES = ("mesh", "lp", "")
#: The keys of ``summary``, all required.
SUMMARY_KEYS = ("input_dim", "domain_dim", "neurons", "activation_regions", "linear_regions", "adjacencies",
                "exact", "engine")
#: The keys ``search`` may hold (polyregions writes all of them after a search, none from ``certificate`` alone).
SEARCH_KEYS = ("seed", "evaluations", "enumerated", "restarts", "interrupted", "values", "engine")


def read_engine(value: Any, where: str) -> str:
    """An engine name (:data:`ENGINES`)."""
    engine = read_str(value, where)
    if engine not in ENGINES:
        raise InputError(where, f"expected one of {', '.join(repr(e) for e in ENGINES)}, got {describe(engine)}")
    return engine


def read_linear_regions(value: Any, where: str = "linear_regions") -> tuple[tuple[int, ...], ...]:
    """A list of components, each a list of region indices."""
    return tuple(tuple(read_int(v, f"{where}[{c}][{q}]")
                       for q, v in enumerate(read_list(component, f"{where}[{c}]")))
                 for c, component in enumerate(read_list(value, where)))


def read_summary(value: Any, where: str = "summary") -> dict[str, Any]:
    """The ``summary`` object: every key of :data:`SUMMARY_KEYS` and no other, counts as integers."""
    check_keys(value, SUMMARY_KEYS, where)
    summary: dict[str, Any] = {key: read_int(get_key(value, key, where), f"{where}.{key}", low=0)
                               for key in SUMMARY_KEYS[:6]}
    summary["exact"] = read_bool(get_key(value, "exact", where), f"{where}.exact")
    summary["engine"] = read_engine(get_key(value, "engine", where), f"{where}.engine")
    return summary


def read_search(value: Any, where: str = "search") -> dict[str, Any]:
    """The ``search`` object: any of :data:`SEARCH_KEYS`, each of its type, and no other key."""
    check_keys(value, SEARCH_KEYS, where)
    readers: dict[str, Callable[[Any, str], Any]] = {
        "seed": lambda v, w: read_int(v, w, low=0), "evaluations": lambda v, w: read_int(v, w, low=1),
        "enumerated": lambda v, w: read_int(v, w, low=1), "restarts": lambda v, w: read_int(v, w, low=1),
        "interrupted": read_bool, "values": read_vector, "engine": read_engine}
    return {key: readers[key](value[key], f"{where}.{key}") for key in SEARCH_KEYS if key in value}


def components(n: int, edges) -> set[frozenset[int]]:
    """The connected components of the graph on ``0..n-1`` with these edges (union-find)."""
    parent = list(range(n))

    def find(u):
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for i, j in edges:
        parent[find(i)] = find(j)
    groups: dict[int, set[int]] = {}
    for u in range(n):
        groups.setdefault(find(u), set()).add(u)
    return {frozenset(group) for group in groups.values()}


def check_linear_regions(listed: Sequence[Sequence[int]], verified: set[frozenset[int]], n: int) -> None:
    """The listed components are the verified linear regions: each region in exactly one, each one a component."""
    where_listed: dict[int, int] = {}
    for c, component in enumerate(listed):
        if not component:
            raise VerificationError(f"linear_regions[{c}]: an empty component")
        for i in component:
            if not 0 <= i < n:
                raise VerificationError(f"linear_regions[{c}]: region index out of range 0..{n - 1}: {i}")
            if i in where_listed:
                raise VerificationError(f"linear_regions[{c}]: region {i} is listed twice (also in "
                                        f"linear_regions[{where_listed[i]}])")
            where_listed[i] = c
    missing = sorted(set(range(n)) - where_listed.keys())
    if missing:
        raise VerificationError(f"linear_regions: region {missing[0]} is in no listed component")
    of_region = {i: component for component in verified for i in component}
    for c, component in enumerate(listed):
        expected = of_region[component[0]]
        if frozenset(component) != expected:
            raise VerificationError(
                f"linear_regions[{c}]: lists regions {sorted(component)}, the verified linear region of region "
                f"{component[0]} is {sorted(expected)} (components of the adjacency graph restricted to pairs with "
                f"equal output maps): listed {len(listed)} components, verified {len(verified)}")


def check_summary(summary: dict[str, Any], verified: dict[str, Any]) -> None:
    """Every key of ``summary`` equals its verified value (the count, or the export's own ``exact``/``engine``)."""
    for key in SUMMARY_KEYS:
        if summary[key] != verified[key]:
            raise VerificationError(f"summary.{key}: recorded {describe(summary[key])}, verified "
                                    f"{describe(verified[key])}")


def check_search(fields: dict[str, Any], *, engine: str) -> str:
    """What can be checked of a search record without rerunning it; returns the report line."""
    evaluations = fields.get("evaluations")
    for key in ("enumerated", "restarts"):
        if key in fields and evaluations is not None and fields[key] > evaluations:
            raise VerificationError(f"search.{key}: recorded {fields[key]}, more than the {evaluations} evaluations "
                                    "recorded (each counts one evaluation at least)")
    values = fields.get("values")
    if values is not None:
        if len(values) < 2 or any(x >= y for x, y in zip(values, values[1:])):
            raise VerificationError("search.values: expected the grid as written, at least two distinct numbers in "
                                    "increasing order")
    if "engine" in fields and fields["engine"] != engine:
        raise VerificationError(f"search.engine: recorded {describe(fields['engine'])}, the export's engine is "
                                f"{describe(engine)}")
    if not fields:
        return "note: search: empty (the certificate records no search)"
    return (f"note: search: {', '.join(sorted(fields))} recorded and consistent; how the network was found is not "
            "re-derived (rerun polyregions search with that seed to reproduce it)")
