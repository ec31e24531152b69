"""Topology of decision regions: known shapes exactly, degenerate weights, both fields, duality, the command."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from flint import nmod_mat
from hypothesis import given
from hypothesis import strategies as st

import polyregions as pr
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.measures._homology import homology
from polyregions.measures._incidence import IncidenceSigns
from polyregions.measures.topology import decision_topology

# --- constructions with exact integer weights -------------------------------------------------------------------

def _abs_units(centers, dim):
    """ReLU units ``relu(+-(x_i - c_i))``: the ``2 dim`` units of a centre sum to ``|x - c|_1``."""
    weight, bias = [], []
    for c in centers:
        for i in range(dim):
            for s in (1, -1):
                row = [0] * dim
                row[i] = s
                weight.append(row)
                bias.append(-s * Fraction(c[i]))
    return weight, bias


def diamond(dim=2, radius=1):
    """``radius - |x|_1``: positive on an open ball."""
    w, b = _abs_units([[0] * dim], dim)
    return pr.Network.from_layers(dim, [(w, b, "relu"), ([[-1] * len(w)], [radius], "linear")])


def shell(dim=2):
    """``1/2 - | |x|_1 - 3/2 |``: positive on ``1 < |x|_1 < 2``."""
    w, b = _abs_units([[0] * dim], dim)
    n = len(w)
    return pr.Network.from_layers(dim, [(w, b, "relu"), ([[1] * n, [-1] * n], ["-3/2", "3/2"], "relu"),
                                        ([[-1, -1]], ["1/2"], "linear")])


def bumps(k, *, holes):
    """``sum_c relu(1/2 - |x - c|_1) - 1/4`` over ``k`` centres ``(2i, 0)`` (negated for ``holes``): positive
    on ``k`` disjoint diamonds, or outside them."""
    w, b = _abs_units([[2 * i, 0] for i in range(k)], 2)
    second = [[-1 if j // 4 == i else 0 for j in range(len(w))] for i in range(k)]
    sign = -1 if holes else 1
    return pr.Network.from_layers(2, [(w, b, "relu"), (second, ["1/2"] * k, "relu"),
                                      ([[sign] * k], [Fraction(-sign, 4)], "linear")])


def strips():
    """``|x| - 1``: positive on two strips that reach the sides of the square."""
    return pr.Network.from_layers(2, [([[1, 0], [-1, 0]], [0, 0], "relu"), ([[1, 1]], [-1], "linear")])


SQUARE = pr.box([-2, -2], [2, 2])


def _betti(result):
    return {s.name: s.betti for s in result.sets}


def _value(net, point):
    (value,) = net(point)
    return value


# --- known shapes ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("field", ["GF(2)", "Q"])
@pytest.mark.parametrize("net, domain, expected", [
    (diamond(), SQUARE, {"positive": (1, 0), "nonnegative": (1, 0), "negative": (1, 1), "boundary": (1, 1)}),
    (shell(), pr.box([-3, -3], [3, 3]),
     {"positive": (1, 1), "nonnegative": (1, 1), "negative": (2, 1), "boundary": (2, 2)}),
    (strips(), SQUARE, {"positive": (2, 0), "nonnegative": (2, 0), "negative": (1, 0), "boundary": (2, 0)}),
    (bumps(2, holes=False), pr.box([-2, -2], [4, 2]),
     {"positive": (2, 0), "nonnegative": (2, 0), "negative": (1, 2), "boundary": (2, 2)}),
    (bumps(3, holes=True), pr.box([-2, -2], [6, 2]),
     {"positive": (1, 3), "nonnegative": (1, 3), "negative": (3, 0), "boundary": (3, 3)}),
])
def test_planar_shapes_have_their_known_betti_numbers(net, domain, expected, field):
    result = decision_topology(net, domain, field=field)
    assert _betti(result) == expected
    assert result.field == field and result.exact
    for s in result.sets:
        assert s.euler_characteristic == sum((-1) ** k * b for k, b in enumerate(s.betti))
        assert s.components == s.betti[0]


def test_k_holes():
    for k in range(1, 5):
        result = decision_topology(bumps(k, holes=True), pr.box([-2, -2], [2 * k, 2]))
        assert result["positive"].betti == (1, k) and result["positive"].euler_characteristic == 1 - k
        assert result["negative"].betti == (k, 0)


def test_three_dimensional_shell_has_a_second_betti_number():
    result = decision_topology(shell(3), pr.box([-3, -3, -3], [3, 3, 3]))
    assert _betti(result) == {"positive": (1, 0, 1), "nonnegative": (1, 0, 1), "negative": (2, 0, 1),
                              "boundary": (2, 0, 2)}
    assert result["boundary"].euler_characteristic == 4  # two 2-spheres
    assert _betti(decision_topology(shell(3), pr.box([-3, -3, -3], [3, 3, 3]), field="Q")) == _betti(result)
    ball = decision_topology(diamond(3), pr.box([-2, -2, -2], [2, 2, 2]))
    assert _betti(ball) == {"positive": (1, 0, 0), "nonnegative": (1, 0, 0), "negative": (1, 0, 1),
                            "boundary": (1, 0, 1)}


def test_one_dimensional_domain():
    net = pr.Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, 1]], ["-1/2"], "linear")])  # |x| - 1/2
    result = decision_topology(net, pr.box([-1], [1]))
    assert _betti(result) == {"positive": (2,), "nonnegative": (2,), "negative": (1,), "boundary": (2,)}
    assert result["boundary"].witnesses == ((Fraction(-1, 2),), (Fraction(1, 2),))


def test_slices_polytopes_segments_and_four_dimensions():
    # the 3-D shell cut by the plane z = 0 is the planar annulus; witnesses are in input coordinates
    plane = pr.slice_domain([0, 0, 0], [[1, 0, 0], [0, 1, 0]], [-3, -3], [3, 3])
    result = decision_topology(shell(3), plane)
    assert _betti(result) == _betti(decision_topology(shell(), pr.box([-3, -3], [3, 3])))
    (witness,) = result["positive"].witnesses
    assert len(witness) == 3 and _value(shell(3), witness) > 0
    triangle = pr.polytope_domain([[-1, 0], [0, -1], [1, 1]], [3, 3, 3])
    assert decision_topology(diamond(), triangle)["negative"].betti == (1, 1)
    line = decision_topology(shell(), pr.segment([-3, 0], [3, 0]))
    assert _betti(line) == {"positive": (2,), "nonnegative": (2,), "negative": (3,), "boundary": (4,)}
    ball = decision_topology(diamond(4), pr.box([-2] * 4, [2] * 4), field="Q")
    assert ball["positive"].betti == (1, 0, 0, 0) and ball["boundary"].betti == (1, 0, 0, 1)


def test_witnesses_lie_in_their_sets():
    net = bumps(3, holes=True)
    result = decision_topology(net, pr.box([-2, -2], [6, 2]))
    assert [_value(net, w) > 0 for w in result["positive"].witnesses] == [True]
    assert all(_value(net, w) < 0 for w in result["negative"].witnesses)
    assert all(_value(net, w) == 0 for w in result["boundary"].witnesses)
    assert len(result["negative"].witnesses) == 3


# --- degenerate weights give the answers of their generic rewrites ----------------------------------------------

def _diamond_degenerate():
    """``1 - |x| - |y|`` with duplicated units (ties), a dead unit, and six lines through the origin that the
    output ignores."""
    w, b = _abs_units([[0, 0]], 2)
    w = w + w + [[1, 0], [1, 1], [1, -1], [2, 1], [1, 3], [0, 1], [1, 0]]
    b = b + b + [-10, 0, 0, 0, 0, 0, 0]
    out = [Fraction(-1, 2)] * 8 + [5, 0, 0, 0, 0, 0, 0]
    return pr.Network.from_layers(2, [(w, b, "relu"), ([out], [1], "linear")])


def test_ties_dead_units_and_concurrent_lines_change_nothing():
    generic = decision_topology(diamond(), SQUARE)
    degenerate = decision_topology(_diamond_degenerate(), SQUARE)
    assert _betti(degenerate) == _betti(generic)
    assert {s.name: s.euler_characteristic for s in degenerate.sets} == \
           {s.name: s.euler_characteristic for s in generic.sets}
    assert len(degenerate.faces.faces) > len(generic.faces.faces)


def test_a_zero_set_with_interior_and_an_empty_set():
    # relu(x): zero on the whole left half, never negative
    net = pr.Network.from_layers(2, [([[1, 0]], [0], "relu")])
    result = decision_topology(net, pr.box([-1, -1], [1, 1]))
    assert _betti(result) == {"positive": (1, 0), "nonnegative": (1, 0), "negative": (0, 0), "boundary": (1, 0)}
    assert result["negative"].euler_characteristic == 0 and result["negative"].witnesses == ()
    # |x| + |y|: zero at one point only, which the closed set keeps and the open set loses
    net = pr.Network.from_layers(2, [(_abs_units([[0, 0]], 2)[0], [0] * 4, "relu"), ([[1] * 4], [0], "linear")])
    result = decision_topology(net, pr.box([-1, -1], [1, 1]))
    assert _betti(result) == {"positive": (1, 1), "nonnegative": (1, 0), "negative": (0, 0), "boundary": (1, 0)}
    assert result["boundary"].witnesses == ((Fraction(0), Fraction(0)),)


def test_a_valley_along_a_line_splits_the_positive_set():
    # |x| is zero on the segment x = 0 only: {|x| > 0} has two components
    net = pr.Network.from_layers(2, [([[1, 0], [-1, 0]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
    result = decision_topology(net, pr.box([-1, -1], [1, 1]))
    assert _betti(result) == {"positive": (2, 0), "nonnegative": (1, 0), "negative": (0, 0), "boundary": (1, 0)}


def test_classes_are_open_sets_and_ties_belong_to_the_boundary():
    net = pr.Network.from_layers(2, [([[1, 0], [0, 1], [-1, -1], [0, 0]], [0, 0, 0, -10], "linear")])
    result = decision_topology(net, pr.box([-1, -1], [1, 1]))
    assert _betti(result) == {"class_0": (1, 0), "class_1": (1, 0), "class_2": (1, 0), "class_3": (0, 0),
                              "boundary": (1, 0)}
    # two equal outputs tie everywhere: no class, the whole square is the boundary
    net = pr.Network.from_layers(2, [([[1, 0], [1, 0]], [0, 0], "linear")])
    result = decision_topology(net, pr.box([-1, -1], [1, 1]))
    assert _betti(result) == {"class_0": (0, 0), "class_1": (0, 0), "boundary": (1, 0)}


def test_a_class_with_a_hole():
    # class 1 is the diamond (1 - |x|_1 > 0 against a constant 0 output), class 0 the rest of the square
    w, b = _abs_units([[0, 0]], 2)
    net = pr.Network.from_layers(2, [(w, b, "relu"), ([[0] * 4, [-1] * 4], [0, 1], "linear")])
    result = decision_topology(net, SQUARE, field="Q")
    assert _betti(result) == {"class_0": (1, 1), "class_1": (1, 0), "boundary": (1, 1)}


# --- the homology machinery ------------------------------------------------------------------------------------

@pytest.mark.parametrize("net, domain", [(shell(), pr.box([-3, -3], [3, 3])),
                                         (shell(3), pr.box([-3, -3, -3], [3, 3, 3]))])
def test_incidence_signs_make_a_chain_complex(net, domain):
    fc = pr.face_complex(pr.enumerate_regions(net, domain), neurons=False)
    signs = IncidenceSigns(fc)
    for f in range(len(fc.faces)):
        if fc.faces[f].dim < 2:
            continue
        total: dict[int, int] = {}
        for g in fc.facets_of(f):
            for h in fc.facets_of(g):
                total[h] = total.get(h, 0) + signs(g, f) * signs(h, g)
        assert set(total.values()) <= {0}, f


def _order_complex_betti(fc, cells, top):
    """Betti numbers over GF(2) of the order complex of the faces ``cells`` (chains of faces under inclusion)."""
    cells = set(cells)
    above = {c: [j for j in fc.cofaces(c) if j in cells] for c in cells}
    chains = [[(c,) for c in sorted(cells)]]
    while chains[-1]:
        chains.append([ch + (j,) for ch in chains[-1] for j in above[ch[-1]]])
    chains.pop()
    ranks = [0] * (len(chains) + 1)
    for k in range(1, len(chains)):
        index = {ch: i for i, ch in enumerate(chains[k - 1])}
        matrix = nmod_mat(len(chains[k - 1]), len(chains[k]), 2)
        for j, ch in enumerate(chains[k]):
            for drop in range(len(ch)):
                matrix[index[ch[:drop] + ch[drop + 1:]], j] = 1
        ranks[k] = matrix.rank()
    betti = [len(chains[k]) - ranks[k] - ranks[k + 1] for k in range(len(chains))]
    return tuple((betti + [0] * (top + 1))[:top])


@pytest.mark.parametrize("net, domain", [(diamond(), SQUARE), (strips(), SQUARE),
                                         (bumps(2, holes=True), pr.box([-2, -2], [4, 2])),
                                         (_diamond_degenerate(), SQUARE)])
def test_open_sets_agree_with_their_order_complexes(net, domain):
    result = decision_topology(net, domain)
    for s in result.sets:
        assert _order_complex_betti(result.faces, s.faces, 2) == s.betti, s.name


def test_homology_of_small_complexes():
    dims = [0, 0, 0, 1, 1, 1, 2]
    facets = [(), (), (), (0, 1), (1, 2), (0, 2), (3, 4, 5)]
    assert homology([0, 1, 2], dims, facets, top=2) == (3, 0, 0)
    assert homology([6], dims, facets, top=2) == (0, 0, 1)  # the open triangle, relative to its boundary
    assert homology([3, 6], dims, facets, top=2) == (0, 0, 0)
    assert homology([3, 4, 5, 6], dims, facets, top=2) == (0, 2, 0)  # relative to the three corners


# --- random networks: both fields, duality, witnesses -----------------------------------------------------------

_small = st.integers(-2, 2)


@st.composite
def small_networks(draw):
    """Random ReLU networks 2 -> (2..6) -> (1..4) -> 1 with small integer weights and half-integer biases."""
    widths = [2, draw(st.integers(2, 6)), draw(st.integers(1, 4))]
    layers = []
    for fan_in, width in zip(widths, widths[1:]):
        layers.append(([[draw(_small) for _ in range(fan_in)] for _ in range(width)],
                       [Fraction(draw(st.integers(-3, 3)), 2) for _ in range(width)], "relu"))
    layers.append(([[draw(_small) for _ in range(widths[-1])]], [Fraction(draw(st.integers(-3, 3)), 2)], "linear"))
    return pr.Network.from_layers(2, layers)


@st.composite
def bump_networks(draw):
    """``sum_i w_i relu(r_i - |x - c_i|_1) + b``: overlapping diamonds give holes, several components, tangencies
    and concurrent lines (random networks alone seldom have holes)."""
    k = draw(st.integers(1, 4))
    centers = [[Fraction(draw(st.integers(-3, 3)), 2) for _ in range(2)] for _ in range(k)]
    w, b = _abs_units(centers, 2)
    second = [[-1 if j // 4 == i else 0 for j in range(len(w))] for i in range(k)]
    radii = [Fraction(draw(st.integers(1, 3)), 2) for _ in range(k)]
    out = [draw(st.sampled_from([-2, -1, 1, 2])) for _ in range(k)]
    return pr.Network.from_layers(2, [(w, b, "relu"), (second, radii, "relu"),
                                      ([out], [Fraction(draw(st.integers(-2, 2)), 4)], "linear")])


def _negated(net):
    last = net.layers[-1]
    return pr.Network(net.input_dim, net.layers[:-1] + (pr.Layer([[-w for w in last.weight[0]]], [-last.bias[0]],
                                                                  last.activation),))


def _closed_betti(fc, cells):
    dims = [f.dim for f in fc.faces]
    return homology(cells, dims, [fc.facets_of(i) for i in range(len(fc.faces))], top=2)


@given(st.one_of(small_networks(), bump_networks()))
def test_random_networks_satisfy_duality_and_their_witnesses_lie_in_their_sets(net):
    square = SQUARE
    result = decision_topology(net, square)
    assert _betti(decision_topology(net, square, field="Q")) == _betti(result)  # no torsion in the plane
    fc = result.faces
    # Lefschetz duality in the disc D: H_k(S) = H^{2-k}(D, A) = reduced H^{1-k}(A), A = (D \ S) + dD.
    for name in ("positive", "negative"):
        s = result[name]
        inside = set(s.faces)
        a = [i for i, f in enumerate(fc.faces) if i not in inside or not f.interior]
        h = _closed_betti(fc, a)
        assert s.betti == (h[1], h[0] - 1), name
    # {f >= 0} and {f <= 0} cover D and meet in {f = 0}: chi(D) = 1 = chi(P) + chi(N) - chi(Z)
    flipped = decision_topology(_negated(net), square)
    assert flipped["positive"].betti == result["negative"].betti
    assert flipped["boundary"].betti == result["boundary"].betti
    chi = {s.name: s.euler_characteristic for s in result.sets}
    assert chi["nonnegative"] + flipped["nonnegative"].euler_characteristic - chi["boundary"] == 1
    if len(fc.faces) <= 400:  # small enough for the order complex of every set
        for s in result.sets:
            assert _order_complex_betti(fc, s.faces, 2) == s.betti, s.name
    tests = {"positive": lambda v: v > 0, "negative": lambda v: v < 0, "nonnegative": lambda v: v >= 0,
             "boundary": lambda v: v == 0}
    for s in result.sets:
        assert len(s.witnesses) == s.betti[0]
        assert all(tests[s.name](_value(net, w)) for w in s.witnesses), s.name


# --- the command line -------------------------------------------------------------------------------------------

def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(json.dumps(content))
    return str(path)


def _network_file(tmp_path, net):
    path = tmp_path / "net.json"
    pr.save_network(net, path)
    return str(path)


def test_command_contract_keys_and_values(tmp_path, capsys):
    assert main(["topology", _network_file(tmp_path, shell()), "--box", "-3,3", "--field", "Q", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"betti", "euler_characteristic", "components", "field", "exact"}
    assert out["betti"] == {"positive": [1, 1], "nonnegative": [1, 1], "negative": [2, 1], "boundary": [2, 2]}
    assert out["euler_characteristic"] == {"positive": 0, "nonnegative": 0, "negative": 1, "boundary": 0}
    assert out["field"] == "Q" and out["exact"] is True
    assert [len(w) for w in out["components"].values()] == [1, 1, 2, 2]
    net = shell()
    for point in out["components"]["positive"]:
        assert _value(net, [pr.rational(x) for x in point]) > 0


def test_command_text_and_classes(tmp_path, capsys):
    net = pr.Network.from_layers(2, [([[1, 0], [0, 1], [-1, -1]], [0, 0, 0], "linear")])
    assert main(["topology", _network_file(tmp_path, net), "--box=-1,1"]) == 0
    text = capsys.readouterr().out
    assert "class_2 (open): Betti numbers 1, 0" in text and "over GF(2), exact" in text


@pytest.mark.parametrize("args, message", [
    (["--domain", "SPACE"], "bounded"),
    (["--box", "1,1"], "upper"),
    (["--box", "-1,1", "--field", "R"], "--field"),
])
def test_command_errors_are_one_line(tmp_path, capsys, args, message):
    args = [_write(tmp_path, "space.json", {"type": "space"}) if a == "SPACE" else a for a in args]
    with pytest.raises(SystemExit) as info:
        main(["topology", _network_file(tmp_path, diamond()), *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("polyregions: error:") and err.count("\n") == 1 and message in err


def test_bad_field_and_unbounded_domain_in_python():
    with pytest.raises(InvalidInputError, match="field"):
        decision_topology(diamond(), SQUARE, field="Z")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="bounded"):
        decision_topology(diamond(), pr.space(2))


def test_the_front_files_export_it():
    assert pr.decision_topology is decision_topology
    assert pr.measures.DecisionTopology is pr.DecisionTopology and pr.measures.SetTopology is pr.SetTopology


# --- the shortcut in the plane: components and Euler characteristic ------------------------------------------------

def _both_ways(net, domain, field):
    """The Betti numbers from components and Euler characteristic, and from the chain complex."""
    from polyregions.measures._decision_signs import augmented_network
    from polyregions.measures.faces import face_complex
    from polyregions.measures.topology import _topology

    complex_ = pr.enumerate_regions(augmented_network(net), domain)
    fc = face_complex(complex_, neurons=False)
    return [_betti(_topology(net, complex_, fc, field, general=general)) for general in (False, True)]


@pytest.mark.parametrize("field", ["GF(2)", "Q"])
def test_plane_shortcut_matches_the_chain_complex_on_known_shapes(field):
    # a disc and an annulus (diamond), two components (two strips), k holes (bumps)
    strips = pr.Network.from_layers(2, [([[1, 0], [-1, 0]], [0, 0], "relu"), ([[1, 1]], [-1], "linear")])
    cases = [(diamond(), pr.box([-2, -2], [2, 2])), (strips, pr.box([-2, -2], [2, 2])),
             (bumps(3, holes=True), pr.box([-2, -2], [6, 2])), (diamond(1), pr.box([-2], [2]))]
    for net, domain in cases:
        fast, general = _both_ways(net, domain, field)
        assert fast == general


@given(st.one_of(small_networks(), bump_networks()))
def test_plane_shortcut_matches_the_chain_complex_on_random_networks(net):
    fast, general = _both_ways(net, SQUARE, "GF(2)")
    assert fast == general


# --- the faces read from the mesh engine's cells against the face lattice of every region ------------------------

@st.composite
def degenerate_networks(draw, dim=2):
    """ReLU networks with weights in -1..1 and biases in -1..1 (often all zero): ties between units, dead and
    duplicated units, many lines through one point; one to three outputs."""
    width = draw(st.integers(1, 5))
    through_origin = draw(st.booleans())
    bias = st.just(0) if through_origin else st.integers(-1, 1)
    weight = [[draw(st.integers(-1, 1)) for _ in range(dim)] for _ in range(width)]
    first = [draw(bias) for _ in range(width)]
    outputs = draw(st.integers(1, 3))
    out = [[draw(st.integers(-1, 1)) for _ in range(width)] for _ in range(outputs)]
    return pr.Network.from_layers(dim, [(weight, first, "relu"),
                                        (out, [draw(st.integers(-1, 1)) for _ in range(outputs)], "linear")])


def _through_the_face_lattice(net, domain, field="GF(2)"):
    """The result of the general route: every region's face lattice (face_complex), then the signs."""
    from polyregions.measures._decision_signs import augmented_network
    from polyregions.measures.faces import face_complex
    from polyregions.measures.topology import _topology

    complex_ = pr.enumerate_regions(augmented_network(net), domain, engine="mesh")
    return _topology(net, complex_, face_complex(complex_, neurons=False), field)


def _assert_same_topology(net, domain):
    mesh = decision_topology(net, domain)
    lattice = _through_the_face_lattice(net, domain)
    assert [s.name for s in mesh.sets] == [s.name for s in lattice.sets]
    for a, b in zip(mesh.sets, lattice.sets):
        assert (a.betti, a.euler_characteristic, a.components) == (b.betti, b.euler_characteristic, b.components)
    assert mesh.faces.f_vector() == lattice.faces.f_vector()
    # the cells form a complex whose chain complex gives the same numbers
    from polyregions.measures.topology import _topology

    assert _betti(_topology(net, mesh.faces.complex, mesh.faces, "GF(2)", general=True)) == _betti(mesh)
    # every face's sign, brute force: the network at the face's exact relative interior point
    fc = mesh.faces
    if len(fc.faces) <= 300:
        member = {s.name: set(s.faces) for s in mesh.sets}
        outputs = net.output_dim
        for i in range(len(fc.faces)):
            values = net(fc.to_input(fc.point(i)))
            if outputs == 1:
                expected = {"positive": values[0] > 0, "nonnegative": values[0] >= 0, "negative": values[0] < 0,
                            "boundary": values[0] == 0}
            else:
                top = max(values)
                expected = {f"class_{c}": all(v < values[c] for j, v in enumerate(values) if j != c)
                            for c in range(outputs)}
                expected["boundary"] = values.count(top) >= 2
            assert {name: i in faces for name, faces in member.items()} == expected, i


@given(st.one_of(small_networks(), bump_networks(), degenerate_networks()))
def test_mesh_cells_agree_with_the_face_lattice_route(net):
    _assert_same_topology(net, SQUARE)


@given(degenerate_networks(dim=1))
def test_mesh_cells_agree_with_the_face_lattice_route_on_a_segment(net):
    _assert_same_topology(net, pr.box([-2], [2]))


def test_mesh_cells_agree_on_known_shapes_and_lines_through_one_point():
    star = pr.Network.from_layers(2, [([[1, 0], [0, 1], [1, 1], [1, -1], [2, 1]], [0] * 5, "relu"),
                                      ([[1, -1, 1, -1, -1]], [0], "linear")])
    for net, domain in [(diamond(), SQUARE), (shell(), pr.box([-3, -3], [3, 3])), (strips(), SQUARE),
                        (bumps(3, holes=True), pr.box([-2, -2], [6, 2])), (_diamond_degenerate(), SQUARE),
                        (star, SQUARE), (diamond(1), pr.box([-2], [2]))]:
        _assert_same_topology(net, domain)


def test_the_mesh_cells_are_used_only_where_they_apply():
    from polyregions.measures._decision_signs import augmented_network
    from polyregions.measures.topology import _mesh_cells_apply

    net = augmented_network(diamond())
    assert _mesh_cells_apply(net, SQUARE, "auto") and _mesh_cells_apply(net, SQUARE, "mesh")
    assert not _mesh_cells_apply(net, SQUARE, "lp")
    assert not _mesh_cells_apply(augmented_network(diamond(3)), pr.box([-2] * 3, [2] * 3), "auto")
    lp = decision_topology(diamond(), SQUARE, engine="lp")
    assert _betti(lp) == _betti(decision_topology(diamond(), SQUARE))
