"""The string options of the enumeration: one ``Literal`` type each, its runtime tuple, and early checks."""

from typing import get_args

import pytest

from polyregions.errors import InvalidInputError
from polyregions.exact.lp import BACKENDS, Backend, LPStatus, maximize
from polyregions.experiments.sweeps import sweep_tasks
from polyregions.networks.constructions import sawtooth
from polyregions.regions import _mesh
from polyregions.regions._general import refine as general_engine
from polyregions.regions.domains import DOMAIN_TYPES, DomainKind, box, polytope_domain, segment, slice_domain, space
from polyregions.regions.enumeration import ENGINES, Engine, enumerate_regions


def test_the_runtime_tuples_are_the_literal_types():
    assert ENGINES == get_args(Engine) == ("auto", "mesh", "lp")
    assert BACKENDS == get_args(Backend) == ("highs", "exact", "cvxpy")
    assert DOMAIN_TYPES == get_args(DomainKind) == ("box", "polytope", "space", "segment", "slice")
    assert set(get_args(LPStatus)) == {"optimal", "infeasible", "unbounded"}


def test_every_domain_kind_and_lp_status_is_a_value_of_its_type():
    domains = [box([0], [1]), polytope_domain([[1]], [1]), space(1), segment([0], [1]),
               slice_domain([0, 0], [[1, 0]], [0], [1])]
    assert [d.kind for d in domains] == list(DOMAIN_TYPES)
    statuses = [maximize([1], [[1]], [1]).status, maximize([1], [[1], [-1]], [0, -1]).status,
                maximize([1], [[-1]], [0]).status]
    assert statuses == ["optimal", "infeasible", "unbounded"]


@pytest.fixture
def no_engine(monkeypatch):
    """Both engines replaced by a trap: a check that passes them has done work it should not have."""
    def trap(*args, **kwargs):
        raise AssertionError("an engine ran before the options were checked")
    monkeypatch.setattr(_mesh, "refine_mesh", trap)
    monkeypatch.setattr(general_engine, "refine", trap)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unknown_backend_is_rejected_at_the_call(no_engine, engine):
    with pytest.raises(InvalidInputError) as error:
        enumerate_regions(sawtooth(2), box([0], [1]), engine=engine, backend="nope")
    assert str(error.value) == "backend: expected one of highs, exact, cvxpy, got 'nope'"


def test_an_unknown_engine_is_rejected_at_the_call(no_engine):
    with pytest.raises(InvalidInputError) as error:
        enumerate_regions(sawtooth(2), box([0], [1]), engine="nope")
    assert str(error.value) == "engine: expected one of auto, mesh, lp, got 'nope'"
    with pytest.raises(InvalidInputError, match="engine: expected one of auto, mesh, lp, got 'nope'"):
        sweep_tasks([[1, 2]], seeds=[0], engine="nope")


@pytest.mark.parametrize("backend", ["highs", "exact"])
def test_every_backend_gives_the_same_complex(backend):
    lp = enumerate_regions(sawtooth(3), box([0], [1]), engine="lp", backend=backend)
    mesh = enumerate_regions(sawtooth(3), box([0], [1]), engine="mesh", backend=backend)
    assert [r.pattern for r in lp.regions] == [r.pattern for r in mesh.regions] and len(lp) == 8
