"""Regions: immutable, geometry deferred until first use and then fixed, equal after a pickle round trip."""

import pickle
from fractions import Fraction

import pytest

from polyregions.networks.activations import relu
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._mesh import refine_mesh
from polyregions.regions.complex import Region

NET = Network.from_layers(1, [([[1]], [0], relu())])


def test_deferred_geometry_is_computed_once_on_first_use():
    calls = []

    def geometry():
        calls.append(1)
        return ((Fraction(-1),), (Fraction(1),)), (Fraction(0), Fraction(1)), (Fraction(1, 2),)

    region = Region.deferred((1,), NET, geometry)
    assert calls == [] and region.pattern == (1,)
    assert region.interior_point == (Fraction(1, 2),) and region.b == (0, 1) and region.dim == 1
    assert calls == [1]
    assert region == Region((1,), region.A, region.b, region.interior_point, NET)


def test_regions_are_immutable():
    region = Region((1,), [[-1], [1]], [0, 1], [Fraction(1, 2)], NET)
    with pytest.raises(AttributeError, match="immutable"):
        region.pattern = (0,)
    with pytest.raises(AttributeError, match="immutable"):
        region.A = ()


@pytest.mark.parametrize("dim", [1, 2])
def test_mesh_regions_survive_a_pickle_round_trip(dim):
    net = he_normal([dim, 5, 5], seed=4)
    complex_ = refine_mesh(net, dom.box([-1] * dim, [1] * dim))
    restored = pickle.loads(pickle.dumps(complex_.regions))
    assert restored == complex_.regions
    assert all(r.contains_strictly(r.interior_point) for r in restored)
    assert [r.output_map for r in restored] == [r.output_map for r in complex_.regions]
