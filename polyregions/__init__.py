"""polyregions: the exact geometry of piecewise-linear neural networks and of hyperplane arrangements.

``import polyregions as pr`` gives the whole working API; each name is loaded from its module on first use, so
the import itself is cheap. The subpackages are the layers of the library, each built on the ones before it:

==========================  ====================================================================================
:mod:`polyregions.exact`    exact rationals, exact linear algebra, certified linear programs, sums of surds
:mod:`~.polyhedra`          exact H-polytopes: vertices, faces, volumes
:mod:`~.networks`           activations, the network type, file formats and importers, initialisers
:mod:`~.regions`            domains, the region complex, the enumeration engines, export
:mod:`~.measures`           faces and the boundary, boundary volumes, distances, trajectories, bounds
:mod:`~.experiments`        training, sweeps, the counterexample search and its claims
:mod:`~.arrangements`       hyperplane arrangements: regions, faces, the intersection poset, Zaslavsky
:mod:`~.plotting`           pictures (matplotlib, optional)
:mod:`~.testing`            assertion helpers for tests: certified LPs, equal complexes, exports that verify
==========================  ====================================================================================

Examples
--------
>>> import polyregions as pr
>>> complex_ = pr.enumerate_regions(pr.sawtooth(3), pr.box([0], [1]))
>>> len(complex_), len(complex_.linear_regions)
(8, 8)
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    ".errors": ["PolyregionsError", "InvalidInputError", "InfeasibleError", "UnboundedError", "CertificateError",
                "MissingDependencyError", "OutputError"],
    ".exact.rationals": ["rational", "rational_vector", "rational_matrix", "format_rational"],
    ".polyhedra.polytope": ["Polytope"],
    ".networks.activations": ["Activation", "relu", "linear", "hardtanh", "leaky_relu", "piecewise_linear"],
    ".networks.layer": ["Layer"],
    ".networks.network": ["Network"],
    ".networks.io": ["load_network", "save_network", "network_from_json", "network_to_json", "network_from_arrays",
                     "load_npz"],
    ".networks.importers": ["network_from_torch", "network_from_exported", "network_from_torchscript",
                            "load_torch_file", "graph_from_onnx", "load_onnx", "network_from_sklearn"],
    ".networks.initializers": ["he_normal", "pytorch_default", "gaussian"],
    ".networks.constructions": ["sawtooth", "montufar"],
    ".regions.domains": ["Domain", "box", "polytope_domain", "space", "segment", "slice_domain", "plane_through"],
    ".regions.domain_files": ["load_domain", "save_domain"],
    ".regions.region": ["Region"],
    ".regions.complex": ["RegionComplex"],
    ".regions.enumeration": ["enumerate_regions"],
    ".regions.export": ["write_complex_json", "write_graphml"],
    ".regions.stream": ["stream_regions", "write_store_json", "write_store_graphml"],
    ".measures.faces": ["face_complex"],
    ".measures.boundaries": ["Boundary", "boundary"],
    ".measures.volumes": ["BoundaryVolumes", "boundary_volumes"],
    ".measures.distances": ["Distances", "boundary_distances", "exact_distance"],
    ".measures.trajectories": ["Trajectory", "trajectory", "regions_along_lines"],
    ".measures.bounds": ["trivial_bound", "one_layer_bound", "raghu_bound", "serra_bound", "compare_with_bounds",
                         "maxout_serra_bound", "maxout_montufar_bound", "conv_receptive_fields", "conv_field_entries",
                         "conv_layer_bound", "conv_bound", "xiong_conv_bound"],
    ".measures.topology": ["DecisionTopology", "SetTopology", "decision_topology"],
    ".measures.persistence": ["Persistence", "PersistencePair", "CriticalPoint", "persistence"],
    ".measures.local": ["LocalComplexity", "local_complexity", "load_points"],
    ".measures.statistics": ["RegionStatistics", "region_statistics"],
}
_SUBPACKAGES = ["exact", "polyhedra", "networks", "regions", "measures", "experiments", "arrangements", "plotting",
                "testing"]

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, subpackages=_SUBPACKAGES)

if TYPE_CHECKING:
    from polyregions import arrangements, exact, experiments, measures, networks, plotting, polyhedra, regions, testing
    from polyregions.errors import (
        CertificateError,
        InfeasibleError,
        InvalidInputError,
        MissingDependencyError,
        OutputError,
        PolyregionsError,
        UnboundedError,
    )
    from polyregions.exact.rationals import format_rational, rational, rational_matrix, rational_vector
    from polyregions.measures.boundaries import Boundary, boundary
    from polyregions.measures.bounds import (
        compare_with_bounds,
        conv_bound,
        conv_field_entries,
        conv_layer_bound,
        conv_receptive_fields,
        maxout_montufar_bound,
        maxout_serra_bound,
        one_layer_bound,
        raghu_bound,
        serra_bound,
        trivial_bound,
        xiong_conv_bound,
    )
    from polyregions.measures.distances import Distances, boundary_distances, exact_distance
    from polyregions.measures.faces import face_complex
    from polyregions.measures.local import LocalComplexity, load_points, local_complexity
    from polyregions.measures.persistence import CriticalPoint, Persistence, PersistencePair, persistence
    from polyregions.measures.statistics import RegionStatistics, region_statistics
    from polyregions.measures.topology import DecisionTopology, SetTopology, decision_topology
    from polyregions.measures.trajectories import Trajectory, regions_along_lines, trajectory
    from polyregions.measures.volumes import BoundaryVolumes, boundary_volumes
    from polyregions.networks.activations import Activation, hardtanh, leaky_relu, linear, piecewise_linear, relu
    from polyregions.networks.constructions import montufar, sawtooth
    from polyregions.networks.importers import (
        graph_from_onnx,
        load_onnx,
        load_torch_file,
        network_from_exported,
        network_from_sklearn,
        network_from_torch,
        network_from_torchscript,
    )
    from polyregions.networks.initializers import gaussian, he_normal, pytorch_default
    from polyregions.networks.io import (
        load_network,
        load_npz,
        network_from_arrays,
        network_from_json,
        network_to_json,
        save_network,
    )
    from polyregions.networks.layer import Layer
    from polyregions.networks.network import Network
    from polyregions.polyhedra.polytope import Polytope
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domain_files import load_domain, save_domain
    from polyregions.regions.domains import (
        Domain,
        box,
        plane_through,
        polytope_domain,
        segment,
        slice_domain,
        space,
    )
    from polyregions.regions.enumeration import enumerate_regions
    from polyregions.regions.export import write_complex_json, write_graphml
    from polyregions.regions.region import Region
    from polyregions.regions.stream import stream_regions, write_store_graphml, write_store_json
