"""Reading a ``polyregions.regions/1`` export (or a ``polyregions search`` certificate) into exact values.

Every key the checker knows is required (except a certificate's ``claim`` and ``search``, which come together),
and a key it does not know is rejected at any level: the checker cannot vouch for what it does not read. The
first missing, null, mistyped or unknown field raises :class:`~proofs_check.errors.InputError` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .claims import ClaimRecord, read_claim
from .derived import read_engine, read_linear_regions, read_search, read_summary
from .domain import Domain, read_domain
from .errors import InputError
from .network import Network, read_network
from .reading import (
    check_keys,
    describe,
    get_key,
    read_bool,
    read_int,
    read_list,
    read_matrix,
    read_vector,
)

__all__ = ["FORMAT", "EXPORT_KEYS", "CERTIFICATE_KEYS", "REGION_KEYS", "Region", "Export", "load_export"]

FORMAT = "polyregions.regions/1"
#: The keys of every export, all required.
EXPORT_KEYS = ("format", "network", "domain", "exact", "engine", "summary", "regions", "adjacency", "linear_regions")
#: The keys a certificate adds, both present or both absent.
CERTIFICATE_KEYS = ("claim", "search")
#: The keys of a region (``output_map`` holds ``M`` and ``c``).
REGION_KEYS = ("pattern", "A", "b", "interior_point", "output_map")


@dataclass(frozen=True)
class Region:
    """One region as the file states it: ``A t <= b``, an interior point and the output map ``M t + c``."""

    pattern: tuple[int, ...]
    A: tuple[tuple[Fraction, ...], ...]
    b: tuple[Fraction, ...]
    point: tuple[Fraction, ...]
    M: tuple[tuple[Fraction, ...], ...]
    c: tuple[Fraction, ...]


@dataclass(frozen=True)
class Export:
    """An export as read; ``claim`` and ``search`` are None unless it is a certificate."""

    network: Network
    domain: Domain
    regions: tuple[Region, ...]
    adjacency: tuple[tuple[int, int, tuple[int, ...]], ...]
    linear_regions: tuple[tuple[int, ...], ...]
    summary: dict[str, Any]
    exact: bool
    engine: str
    claim: ClaimRecord | None = None
    search: dict[str, Any] | None = None


def _region(obj: Any, here: str, n_neurons: int, k: int, out: int) -> Region:
    check_keys(obj, REGION_KEYS, here)
    entries = read_list(get_key(obj, "pattern", here), f"{here}.pattern", n_neurons)
    if set(map(type, entries)) <= {int}:  # the common case; bool, a subclass of int, is refused below
        pattern = tuple(entries)
    else:
        pattern = tuple(read_int(v, f"{here}.pattern[{j}]") for j, v in enumerate(entries))
    A = read_matrix(get_key(obj, "A", here), f"{here}.A", None, k)
    b = read_vector(get_key(obj, "b", here), f"{here}.b", len(A))
    point = read_vector(get_key(obj, "interior_point", here), f"{here}.interior_point", k)
    output_map = get_key(obj, "output_map", here)
    check_keys(output_map, ("M", "c"), f"{here}.output_map")
    M = read_matrix(get_key(output_map, "M", f"{here}.output_map"), f"{here}.output_map.M", out, k)
    c = read_vector(get_key(output_map, "c", f"{here}.output_map"), f"{here}.output_map.c", out)
    return Region(pattern, A, b, point, M, c)


def load_export(doc: Any) -> Export:
    """Read an export (already parsed from JSON); :class:`InputError` names the first unreadable field."""
    if not isinstance(doc, dict):
        raise InputError("(top level)", f"expected a JSON object, got {describe(doc)}")
    if get_key(doc, "format", "") != FORMAT:
        raise InputError("format", f"expected {FORMAT!r}, got {describe(doc['format'])}")
    check_keys(doc, EXPORT_KEYS + CERTIFICATE_KEYS, "")
    network = read_network(get_key(doc, "network", ""), "network")
    domain = read_domain(get_key(doc, "domain", ""), network.input_dim, "domain")
    exact = read_bool(get_key(doc, "exact", ""), "exact")
    engine = read_engine(get_key(doc, "engine", ""), "engine")
    summary = read_summary(get_key(doc, "summary", ""))
    k, n_neurons, out = domain.dim, len(network.neurons), network.output_dim
    regions = tuple(_region(obj, f"regions[{i}]", n_neurons, k, out)
                    for i, obj in enumerate(read_list(get_key(doc, "regions", ""), "regions")))
    adjacency = []
    for e, entry in enumerate(read_list(get_key(doc, "adjacency", ""), "adjacency")):
        here = f"adjacency[{e}]"
        i, j, labels = read_list(entry, here, 3)
        labels = tuple(read_int(v, f"{here}[2][{q}]") for q, v in enumerate(read_list(labels, f"{here}[2]")))
        adjacency.append((read_int(i, f"{here}[0]"), read_int(j, f"{here}[1]"), labels))
    linear = read_linear_regions(get_key(doc, "linear_regions", ""))
    claim = search = None
    if any(key in doc for key in CERTIFICATE_KEYS):
        claim = read_claim(get_key(doc, "claim", ""))
        search = read_search(get_key(doc, "search", ""))
    return Export(network, domain, regions, tuple(adjacency), linear, summary, exact, engine, claim, search)
