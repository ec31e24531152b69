"""Certified topology of decision regions: Betti numbers, Euler characteristics and connected components.

The sets
--------
Everything is inside a bounded domain ``D`` (a box or a polytope, or a segment or slice of one), in the domain's
coordinates. For a network with one output ``f``:

* ``positive`` ``{f > 0}`` and ``negative`` ``{f < 0}``, open in ``D``;
* ``nonnegative`` ``{f >= 0}`` and ``boundary`` ``{f = 0}`` (the decision boundary), closed.

For ``K >= 2`` outputs, ``class_c`` is ``{f_c > f_j for every j != c}``, open: a point where the largest output is
attained by two classes belongs to neither (on a region where two outputs agree identically, that region is in
no class), and ``boundary`` is the rest of ``D``, closed: the points where the largest output is attained at
least twice. (:func:`polyregions.plotting.regions.class_polygons` colours a tie by its lowest class instead;
the open sets are the ones with a clean topology.)

How
---
On each activation region the network is affine, so each set is a union of relatively open faces of the
region complex refined by the zero sets of the decision functions ``f`` (or ``f_c - f_j``). The refinement is
the complex of the network with one more ReLU layer on them
(:func:`~polyregions.measures._decision_signs.augmented_network`), enumerated by the usual engines; its faces
come from :func:`~polyregions.measures.faces.face_complex` and the sign of every decision function on every
face is decided exactly (:mod:`polyregions.measures._decision_signs`). An open set is closed under taking
cofaces, a closed one under taking faces.

*Closed sets.* A closed union of faces is a subcomplex; its homology is the cellular homology of that
subcomplex, and its Euler characteristic the alternating count of its faces.

*Open sets.* Let ``S`` be open in ``D`` and ``T`` the faces of ``S`` inside the open domain ``int D``. Then
``b_k(S) = h_{d-k}(T)``, where ``h`` is the homology of the chain complex spanned by ``T`` (the cellular boundary
restricted to ``T``). Proof: ``S`` is open in the manifold with boundary ``D``, so it is a manifold whose
boundary is its part on ``dD``; by the collar theorem its interior ``M``, the part of ``S`` in ``int D`` (the
union of the faces ``T``), is a homotopy equivalent subspace. ``M`` is an open subset of ``R^d``, so Poincare
duality gives ``H_k(M) = H_c^{d-k}(M)``. The closure ``L`` of ``M`` and ``L \\ M`` are subcomplexes (``M`` is
open), so ``H_c^*(M) = H^*(L, L \\ M)``, the cohomology of the cellular cochains on ``T``; over a field a cochain
complex and the chain complex it is dual to have homology of equal dimensions. (``S`` is also homotopy
equivalent to the order complex of its faces; the tests check that both give the same numbers.)

*Euler characteristic of an open set*, counted on the complement ``K = D \\ S`` (a subcomplex), other faces than
the ones the Betti numbers come from, with ``K_b`` the part of ``K`` on ``dD`` (a subcomplex too)::

    chi(S) = 1 - (-1)^d (chi(K) - chi(K_b)).

Proof: by the above, ``chi(S) = (-1)^d chi_c(M)`` and ``chi_c(M) = sum over T of (-1)^dim``. The compactly
supported Euler characteristic is additive over a partition into locally closed unions of open cells, equals
``chi`` on compact sets and is ``(-1)^d`` on the open ball ``int D``; so ``chi_c(M) = chi_c(int D) -
chi_c(K \\ K_b) = (-1)^d - (chi(K) - chi(K_b))``. (When ``S`` does not meet ``dD`` and ``d`` is even
this is ``chi(D) - chi(D \\ S)``.) Every result is checked: ``chi`` equals the alternating sum of the Betti
numbers, ``b_d = 0``, and ``b_0`` equals the number of components found below; a failure raises
:class:`~polyregions.errors.CertificateError`.

*Lines and planes.* For ``d <= 2`` no chain complex is built: a set of either kind has ``b_d = 0`` and no
torsion (an open one is homotopy equivalent to an open subset of ``R^d``, a closed one is a compact polyhedron of
``R^d``), so ``b_0`` is its number of components and ``b_1 = b_0 - chi`` (its holes) in the plane. The checks are
then ``b_1 >= 0`` and, on a line, ``b_0 = chi``; the tests compare this with the chain complex.

*Components.* In a union of relatively open faces that is closed under faces or under cofaces, two faces one a
facet of the other lie in one component, and the classes of that relation are the components (each class is
closed in the set: the closure of a face meets the set only in its faces in the set). Each component comes
with a witness: the exact relative interior point (the mean of the vertices) of its face of highest dimension,
in input coordinates.

Homology is over GF(2) or over Q (:mod:`polyregions.measures._homology`); they differ only when the homology
has torsion, which a subset of ``R^d`` for ``d <= 3`` never has.

Examples
--------
The diamond ``1 - |x| - |y| > 0`` in the square ``[-2, 2]^2``: a disc; outside it an annulus; the decision
boundary a circle.

>>> import polyregions as pr
>>> net = pr.Network.from_layers(2, [([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0], "relu"),
...                                  ([[-1, -1, -1, -1]], [1], "linear")])
>>> top = decision_topology(net, pr.box([-2, -2], [2, 2]))
>>> top["positive"].betti, top["negative"].betti, top["boundary"].betti, top["nonnegative"].betti
((1, 0), (1, 1), (1, 1), (1, 0))
>>> top["negative"].euler_characteristic, top["positive"].witnesses
(0, ((Fraction(1, 3), Fraction(1, 3)),))
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from polyregions._support.runtime import collector_paused
from polyregions.errors import CertificateError, InvalidInputError
from polyregions.exact.linalg import Vector
from polyregions.measures._face_arrays import FaceArrays, arrays_of
from polyregions.measures._homology import FIELDS, Field, homology
from polyregions.measures.faces import FaceComplex
from polyregions.regions._arguments import expect_domain, expect_network

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["SetTopology", "DecisionTopology", "decision_topology"]


@dataclass(frozen=True)
class SetTopology:
    """The topology of one set: its Betti numbers, Euler characteristic and connected components.

    Attributes
    ----------
    name : str
        ``"positive"``, ``"nonnegative"``, ``"negative"``, ``"boundary"`` or ``"class_c"``.
    closed : bool
        Whether the set is closed in the domain (otherwise it is open).
    betti : tuple of int
        ``b_0, ..., b_{d-1}`` over the result's field (``b_d`` is always 0 and is checked, not listed).
    euler_characteristic : int
        Counted from faces, independently of the Betti numbers (see the module notes).
    witnesses : tuple of tuple of Fraction
        One exact point of the set per connected component, in input coordinates.
    faces : tuple of int
        The faces of the refined complex (indices into ``DecisionTopology.faces.faces``) that make up the set.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [-1, 0]], [0, 0], "relu"), ([[1, 1]], [-1], "linear")])
    >>> strips = decision_topology(net, pr.box([-2, -2], [2, 2]))["positive"]  # |x| > 1: two strips
    >>> strips.betti, strips.components, strips.closed
    ((2, 0), 2, False)
    """

    name: str
    closed: bool
    betti: tuple[int, ...]
    euler_characteristic: int
    witnesses: tuple[Vector, ...]
    faces: tuple[int, ...] = dataclass_field(repr=False)

    @property
    def components(self) -> int:
        """The number of connected components (``b_0``)."""
        return len(self.witnesses)


@dataclass(frozen=True)
class DecisionTopology:
    """The topology of the decision regions of a network in a bounded domain (:func:`decision_topology`).

    Attributes
    ----------
    sets : tuple of SetTopology
        ``positive``, ``nonnegative``, ``negative``, ``boundary`` for one output; ``class_0``, ...,
        ``class_{K-1}``, ``boundary`` for ``K`` outputs.
    field : {"GF(2)", "Q"}
        The coefficients of the Betti numbers.
    exact : bool
        True when every decision behind the result was certified exactly.
    faces : FaceComplex
        The faces of the complex refined by the decision functions (on the route through the mesh engine's
        cells, built when first asked for: the topology itself needs none of its objects).
    """

    sets: tuple[SetTopology, ...]
    field: Field
    exact: bool
    _build_faces: Callable[[], FaceComplex] = dataclass_field(repr=False, compare=False)

    @cached_property
    def faces(self) -> FaceComplex:
        """The faces of the complex refined by the decision functions."""
        return self._build_faces()

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the sets, in order."""
        return tuple(s.name for s in self.sets)

    def __getitem__(self, name: str) -> SetTopology:
        for s in self.sets:
            if s.name == name:
                return s
        raise KeyError(f"no set {name!r}: expected one of {', '.join(self.names)}")

    def summary(self) -> dict[str, Any]:
        """The JSON of ``polyregions topology --json``.

        Returns
        -------
        dict
            ``betti`` (per set, the Betti numbers from degree 0), ``euler_characteristic`` (per set),
            ``components`` (per set, one witness point per component, coordinates as exact strings),
            ``field`` and ``exact``.

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.Network.from_layers(1, [([[1]], ["-1/2"], "linear")])
        >>> decision_topology(net, pr.box([0], [1])).summary()  # doctest: +NORMALIZE_WHITESPACE
        {'betti': {'positive': [1], 'nonnegative': [1], 'negative': [1], 'boundary': [1]},
         'euler_characteristic': {'positive': 1, 'nonnegative': 1, 'negative': 1, 'boundary': 1},
         'components': {'positive': [['3/4']], 'nonnegative': [['3/4']], 'negative': [['1/4']],
                        'boundary': [['1/2']]},
         'field': 'GF(2)', 'exact': True}
        """
        from polyregions.exact.rationals import format_rational

        return {
            "betti": {s.name: list(s.betti) for s in self.sets},
            "euler_characteristic": {s.name: s.euler_characteristic for s in self.sets},
            "components": {s.name: [[format_rational(x) for x in w] for w in s.witnesses] for s in self.sets},
            "field": self.field,
            "exact": self.exact,
        }


def decision_topology(network: "Network", domain: "Domain", *, field: Field = "GF(2)",
                      engine: "Engine" = "auto", progress: bool = False) -> DecisionTopology:
    """Betti numbers, Euler characteristics and components of the decision regions of ``network`` in ``domain``.

    Parameters
    ----------
    network : Network
        One output (the sets ``{f > 0}``, ``{f >= 0}``, ``{f < 0}``, ``{f = 0}``) or several (one open set per
        class, and the decision boundary); see the module notes.
    domain : Domain
        A bounded domain of any dimension the engines reach.
    field : {"GF(2)", "Q"}, keyword-only
        The coefficients of the homology.
    engine : {"auto", "mesh", "lp"}, keyword-only
        The refinement engine (:func:`~polyregions.regions.enumeration.enumerate_regions`).
    progress : bool, keyword-only
        Show progress bars on a terminal (the enumeration, then the faces and the homology).

    Returns
    -------
    DecisionTopology

    Raises
    ------
    InvalidInputError
        For an unknown field, an unbounded domain, or a domain that does not fit the network.
    CertificateError
        When a self-check fails (see the module notes).

    Examples
    --------
    Three classes by the largest of ``x``, ``y`` and ``-x-y``: three sectors meeting in a tripod.

    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1], [-1, -1]], [0, 0, 0], "linear")])
    >>> top = decision_topology(net, pr.box([-1, -1], [1, 1]), field="Q")
    >>> [(s.name, s.betti) for s in top.sets]
    [('class_0', (1, 0)), ('class_1', (1, 0)), ('class_2', (1, 0)), ('boundary', (1, 0))]
    """
    from polyregions.measures._decision_signs import augmented_network
    from polyregions.measures.faces import face_complex
    from polyregions.regions.enumeration import enumerate_regions

    expect_domain(domain, input_dim=expect_network(network).input_dim)
    if field not in FIELDS:
        raise InvalidInputError(f"field: expected one of {', '.join(FIELDS)}, got {field!r}")
    if not domain.is_bounded():
        raise InvalidInputError(f"decision_topology: expected a bounded domain, got an unbounded {domain.kind}")
    from polyregions._support.progress import progress_bar

    augmented = augmented_network(expect_network(network))
    if _mesh_cells_apply(augmented, domain, engine):
        from polyregions.measures._mesh_faces import mesh_faces_and_signs

        complex_, arrays, signs = mesh_faces_and_signs(augmented, domain, progress=progress)
        with collector_paused(), progress_bar(total=1, desc="homology", enabled=progress) as bar:
            result = _topology(expect_network(network), complex_, arrays, field, signs=signs)
            bar.update(1)
            return result
    complex_ = enumerate_regions(augmented, domain, engine=engine, progress=progress)
    with collector_paused(), progress_bar(total=2, desc="faces, homology", enabled=progress) as bar:
        faces = face_complex(complex_, neurons=False)
        bar.update(1)
        result = _topology(expect_network(network), complex_, faces, field)
        bar.update(1)
        return result


def _mesh_cells_apply(augmented: "Network", domain: "Domain", engine: "Engine") -> bool:
    """Whether the faces come straight from the mesh engine's cells (:mod:`~polyregions.measures._mesh_faces`):
    a dense network on a bounded 1-D or 2-D domain, with the engine the enumeration would take there."""
    from polyregions.networks.network import Network

    return (engine in ("auto", "mesh") and domain.dim in (1, 2) and isinstance(augmented, Network)
            and hasattr(augmented.layers[0], "activation"))


def _topology(network: "Network", complex_: "RegionComplex", faces: FaceComplex | FaceArrays, field: Field, *,
              general: bool = False, signs: np.ndarray | None = None) -> DecisionTopology:
    """The sets' topology from the faces (a face complex, or the arrays of the mesh route with ``signs``)."""
    from polyregions.measures._decision_signs import decision_pairs, face_signs

    if isinstance(faces, FaceComplex):
        signs = face_signs(faces, first=network.num_neurons) if signs is None else signs
        faces = arrays_of(faces)
    assert signs is not None  # the mesh route gives its own
    count = faces.dims.size
    outputs = network.output_dim
    masks: list[tuple[str, bool, np.ndarray]]
    if outputs == 1:
        s = signs[:, 0]
        masks = [("positive", False, s > 0), ("nonnegative", True, s >= 0), ("negative", False, s < 0),
                 ("boundary", True, s == 0)]
    else:
        pairs = decision_pairs(outputs)
        column = {pair: i for i, pair in enumerate(pairs)}
        classes = []
        for c in range(outputs):
            inside = np.ones(count, dtype=bool)
            for j in range(outputs):
                if j != c:
                    inside &= signs[:, column[(c, j)]] > 0 if c < j else signs[:, column[(j, c)]] < 0
            classes.append(inside)
        masks = [(f"class_{c}", False, m) for c, m in enumerate(classes)]
        masks.append(("boundary", True, ~np.logical_or.reduce(classes)))
    context = _Context(faces, field, general=general)
    sets = tuple(context.topology(name, closed, mask) for name, closed, mask in masks)
    return DecisionTopology(sets, field, bool(complex_.exact), faces.build)


class _Context:
    """What every set's computation shares: the faces' dimensions, facets, interior flags and cover pairs.

    In dimension ``d <= 2`` the Betti numbers follow from the components and the Euler characteristic (see
    :func:`_plane_betti`); ``general=True`` computes them from the chain complex in every dimension instead (the
    tests compare the two)."""

    def __init__(self, faces: FaceArrays, field: Field, *, general: bool = False):
        self.faces, self.field = faces, field
        self.d = faces.dim
        self.from_chains = general or self.d >= 3
        self.dim_array = faces.dims
        self.parity = np.where(self.dim_array % 2 == 0, 1, -1)
        self.interior = faces.interior
        self.covers = faces.covers
        self.sign = None
        if self.from_chains:
            fc = faces.build()
            self.dims = self.dim_array.tolist()
            self.facets = [fc.facets_of(i) for i in range(len(fc.faces))]
            if field == "Q":
                from polyregions.measures._incidence import IncidenceSigns
                self.sign = IncidenceSigns(fc)

    def topology(self, name: str, closed: bool, mask: np.ndarray) -> SetTopology:
        d = self.d
        if closed:
            chi = int(self.parity[mask].sum())
        else:
            rest = ~mask
            chi = 1 - (-1) ** d * int(self.parity[rest].sum() - self.parity[rest & ~self.interior].sum())
        witnesses = self._witnesses(mask)
        kind = "closed" if closed else "open"
        if self.from_chains:
            betti, top = self._chain_betti(closed, mask)
            if top != 0:
                raise CertificateError(f"topology of {name}: expected b_{d} = 0 for a part of R^{d}, got {top}")
        else:
            betti = _plane_betti(d, len(witnesses), chi)
            if any(b < 0 for b in betti):
                raise CertificateError(f"topology of {name} ({kind}): expected {len(witnesses)} components and "
                                       f"the Euler characteristic {chi} of a part of R^{d}, got Betti numbers "
                                       f"{betti}")
        alternating = sum((-1) ** k * b for k, b in enumerate(betti))
        if alternating != chi:
            raise CertificateError(f"topology of {name} ({kind}): expected the alternating sum of the Betti numbers "
                                   f"{betti} to equal the Euler characteristic {chi} counted from faces, got "
                                   f"{alternating}")
        if len(witnesses) != (betti[0] if betti else 0):
            raise CertificateError(f"topology of {name} ({kind}): expected b_0 = {betti[0]} components, found "
                                   f"{len(witnesses)}")
        return SetTopology(name, closed, tuple(betti), chi, witnesses, tuple(np.flatnonzero(mask).tolist()))

    def _chain_betti(self, closed: bool, mask: np.ndarray) -> tuple[list[int], int]:
        """``b_0..b_{d-1}`` and ``b_d`` from the cellular chain complex (module notes)."""
        d = self.d
        cells = mask if closed else mask & self.interior
        h = homology(np.flatnonzero(cells).tolist(), self.dims, self.facets, top=d, field=self.field,
                     sign=self.sign)
        return (list(h[:d]), h[d]) if closed else (list(h[::-1][:d]), h[0])

    def _witnesses(self, mask: np.ndarray) -> tuple[Vector, ...]:
        """A point of every connected component of the set of faces ``mask``."""
        cells = np.flatnonzero(mask)
        if cells.size == 0:
            return ()
        position = np.full(mask.size, -1, dtype=np.int64)
        position[cells] = np.arange(cells.size)
        inside = mask[self.covers[:, 0]] & mask[self.covers[:, 1]]
        labels = _component_labels(cells.size, position[self.covers[inside, 0]], position[self.covers[inside, 1]])
        order = np.lexsort((cells, -self.dim_array[cells]))  # highest dimension first, then lowest index
        _, first = np.unique(labels[order], return_index=True)  # each component's first face in that order
        return tuple(self.faces.point(face) for face in sorted(cells[order[first]].tolist()))


def _component_labels(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The connected components of the graph on ``0..n-1`` with edges ``(a[i], b[i])``: one label per node, the
    smallest node of its component.

    Union by hooking every root onto the smallest root across an edge, then pointer jumping until every node
    points at a root; a hook only joins the trees of two connected nodes, and it stops when every edge has both
    ends under one root. (Vectorised, and it spares the import of scipy.sparse, which costs more than the rest.)
    """
    parent = np.arange(n, dtype=np.int64)
    while True:
        root_a, root_b = parent[a], parent[b]
        apart = root_a != root_b
        if not apart.any():
            return parent
        np.minimum.at(parent, np.maximum(root_a[apart], root_b[apart]), np.minimum(root_a[apart], root_b[apart]))
        while True:
            jumped = parent[parent]
            if (jumped == parent).all():
                break
            parent = jumped


def _plane_betti(d: int, components: int, chi: int) -> list[int]:
    """The Betti numbers of a part of ``R^d``, ``d <= 2``, from its components and Euler characteristic.

    Such a set (a union of relatively open faces, open or closed in the domain) has no homology in degree ``d``
    and none with torsion, over either field: a closed one is a compact polyhedron of the plane, an open one is
    homotopy equivalent to an open subset of ``R^d`` (module notes). So ``b_0`` is the number of components and
    in the plane ``b_1 = b_0 - chi`` (its holes); on a line ``b_0 = chi``, which is checked by the caller.
    """
    return [components] if d == 1 else [components, components - chi] if d == 2 else []
