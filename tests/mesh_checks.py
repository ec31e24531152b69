"""Checks shared by the mesh engine's tests in 3-D and up: the mesh's complex against the general engine's, and
its export against the independent checker."""

import subprocess
import sys

import polyregions as pr
from polyregions.networks import activations as act
from polyregions.networks.network import Network
from polyregions.regions._general.refine import refine
from polyregions.regions._mesh import refine_mesh
from polyregions.testing import assert_complexes_equal


def same_as_general(net, domain, *, volumes=False):
    """The mesh's complex of ``net`` in ``domain``, checked equal to the general engine's (regions, linear regions,
    adjacency), with interior points inside their regions and of their patterns, and with ``volumes`` the
    regions' volumes adding up to the domain's."""
    mesh = refine_mesh(net, domain)
    assert mesh.exact and mesh.engine == "mesh"
    general = refine(net, domain)
    assert_complexes_equal(mesh, general)
    assert len(mesh.linear_regions) == len(general.linear_regions)
    assert len(mesh.adjacency) == len(general.adjacency)
    restricted = net.restrict(domain.origin, domain.directions)
    for region in mesh.regions:
        assert region.contains_strictly(region.interior_point)
        assert restricted.pattern(region.interior_point) == region.pattern
    if volumes:
        assert sum(region.polytope.volume() for region in mesh.regions) == domain.volume()
    return mesh


def relu_layers(dims, weights):
    """A ReLU network from flat lists of integers (or Fractions), layer by layer."""
    layers, at = [], 0
    for n_in, n_out in zip(dims, dims[1:]):
        W = [weights[at + i * (n_in + 1):at + i * (n_in + 1) + n_in] for i in range(n_out)]
        b = [weights[at + i * (n_in + 1) + n_in] for i in range(n_out)]
        at += n_out * (n_in + 1)
        layers.append((W, b, act.relu()))
    return Network.from_layers(dims[0], layers)


def assert_export_verifies(complex_, folder):
    """The complex's JSON export, written in ``folder``, passes ``python -m proofs_check verify``."""
    path = folder / "complex.json"
    pr.write_complex_json(complex_, path)
    run = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
