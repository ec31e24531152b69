"""The mesh engine's domain polygon (``_mesh.mesh_2d._polygon``): by one angular pass, equal to the corners and
supporting rows of the pairwise construction on random, redundant and degenerate rows; a 400-row polygon through
one vertex in well under a second."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from cpu_clock import timed

from polyregions.errors import InvalidInputError
from polyregions.regions._mesh.mesh_2d import _polygon, _Slope
from polyregions.regions._mesh.support import MeshError


def _pairwise(A, b):
    """The former construction: every pair of rows, every candidate corner checked against every row."""
    m = len(A)
    found = set()
    for i in range(m):
        for j in range(i + 1, m):
            (a1, a2), (c1, c2) = A[i], A[j]
            det = a1 * c2 - a2 * c1
            if det == 0:
                continue
            x = Fraction(b[i] * c2 - a2 * b[j]) / det
            y = Fraction(a1 * b[j] - c1 * b[i]) / det
            if all(r[0] * x + r[1] * y <= bi for r, bi in zip(A, b)):
                found.add((x, y))
    points = list(found)
    if len(points) < 3:
        raise InvalidInputError("fewer than 3 corners")
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)

    def angle_key(p):
        dx, dy = p[0] - cx, p[1] - cy
        return (0 if (dy > 0 or (dy == 0 and dx > 0)) else 1), _Slope(dx, dy)

    points.sort(key=angle_key)
    rows = []
    for i, p in enumerate(points):
        q = points[(i + 1) % len(points)]
        row = next((r for r in range(m) if any(A[r]) and A[r][0] * p[0] + A[r][1] * p[1] == b[r]
                    and A[r][0] * q[0] + A[r][1] * q[1] == b[r]), None)
        if row is None:
            raise MeshError("polygon edge without a supporting row")
        rows.append(row)
    return points, rows


def _outcome(construction, A, b):
    try:
        return construction(A, b)
    except (InvalidInputError, MeshError):
        return "refused"


def _random_rows(rng: random.Random):
    kind = rng.randrange(6)
    m = rng.randint(1, 12)
    if kind == 0:  # through one point, plus a few bounding rows
        px, py = rng.randint(-2, 2), rng.randint(-2, 2)
        A = [[rng.randint(-3, 3), rng.randint(-3, 3)] for _ in range(m)]
        b = [a[0] * px + a[1] * py for a in A]
        for _ in range(rng.randint(0, 3)):
            A.append([rng.randint(-3, 3), rng.randint(-3, 3)])
            b.append(rng.randint(-2, 6))
        return A, b
    if kind == 1:  # a box with repeated, scaled and redundant rows
        A = [[1, 0], [-1, 0], [0, 1], [0, -1]] * rng.randint(1, 2)
        b = [rng.randint(-1, 3) for _ in A]
        for _ in range(m):
            i = rng.randrange(len(A))
            k = rng.randint(1, 4)
            A.append([k * A[i][0], k * A[i][1]])
            b.append(k * b[i] + rng.randint(-1, 2))
        return A, b
    if kind == 2:  # zero rows among others
        A = [[rng.randint(-2, 2), rng.randint(-2, 2)] for _ in range(m)] + [[0, 0]]
        b = [rng.randint(-3, 3) for _ in range(m)] + [rng.randint(-1, 1)]
        return A, b
    if kind == 3:  # rational rows
        A = [[Fraction(rng.randint(-5, 5), rng.randint(1, 4)), Fraction(rng.randint(-5, 5), rng.randint(1, 4))]
             for _ in range(m)]
        b = [Fraction(rng.randint(-5, 9), rng.randint(1, 4)) for _ in range(m)]
        return A, b
    A = [[rng.randint(-4, 4), rng.randint(-4, 4)] for _ in range(m)]
    b = [rng.randint(-3, 8) for _ in range(m)]
    return A, b


def test_equal_to_the_pairwise_construction_on_random_rows():
    rng = random.Random(20261128)
    seen = {"polygon": 0, "refused": 0}
    for _ in range(3000):
        A, b = _random_rows(rng)
        rng_order = list(range(len(A)))
        rng.shuffle(rng_order)
        A, b = [A[i] for i in rng_order], [b[i] for i in rng_order]
        expected = _outcome(_pairwise, A, b)
        assert _outcome(_polygon, A, b) == expected, (A, b)
        seen["refused" if expected == "refused" else "polygon"] += 1
    assert min(seen.values()) > 300, seen


@pytest.mark.parametrize("A, b", [
    ([[1, 0], [-1, 0], [0, 1]], [1, 1, 1]),  # unbounded (a strip's end)
    ([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, 1]),  # a segment
    ([[1, 0], [-1, 0], [0, 1], [0, -1]], [-1, 0, 1, 1]),  # empty
    ([[1, 1], [-1, 0], [0, -1], [0, 0]], [1, 0, 0, -1]),  # 0 <= -1
    ([[1, 0], [0, 1]], [1, 1]),
])
def test_degenerate_domains_are_refused(A, b):
    with pytest.raises((InvalidInputError, MeshError)):
        _polygon(A, b)


def test_a_fan_of_400_rows_through_one_vertex_is_quick():
    rows = 400
    A = [[k - rows // 2, -1000] for k in range(rows)] + [[0, 1]]
    b = [0] * rows + [1]
    with timed() as elapsed:
        points, carriers = _polygon(A, b)
    assert elapsed.seconds < 1.0
    assert points == [(Fraction(1000, 199), Fraction(1)), (Fraction(-5, 1), Fraction(1)), (Fraction(0), Fraction(0))]
    assert carriers == [rows, 0, rows - 1]


@pytest.mark.parametrize("rows", [400, 401])
def test_a_400_row_fan_domain_is_counted_by_the_default_engine_as_by_the_lp_engine(rows, tmp_path, capsys):
    import json

    from polyregions.cli import main

    net = {"format": "polyregions.network/1", "input_dim": 2,
           "layers": [{"weight": [[1, 0], [0, 1], [1, 3]], "bias": ["-1/7", 0, "-1/2"], "activation": "relu"},
                      {"weight": [[1, 1, 1]], "bias": [0], "activation": "linear"}]}
    A = [[k - rows // 2, -1000] for k in range(rows)] + [[0, 1], [1, 1]]
    domain = {"type": "polytope", "A": A, "b": [0] * rows + [1, 2]}
    (tmp_path / "net.json").write_text(json.dumps(net))
    (tmp_path / "fan.json").write_text(json.dumps(domain))
    counts = {}
    for engine in ("mesh", "lp"):
        with timed() as elapsed:
            assert main(["regions", str(tmp_path / "net.json"), "--domain", str(tmp_path / "fan.json"), "--json",
                         "--engine", engine]) == 0
        assert elapsed.seconds < 10.0
        summary = json.loads(capsys.readouterr().out)
        counts[engine] = (summary["activation_regions"], summary["linear_regions"], summary["adjacencies"])
    assert counts["mesh"] == counts["lp"] and counts["mesh"][0] >= 3, counts
