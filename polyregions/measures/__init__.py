"""What is measured on a region complex: faces and the boundary, its volumes, distances to it,
counts along trajectories, the topology of decision regions, local complexity around data, region statistics,
and the upper bounds that counts are checked against.
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".faces": ["ComplexFace", "FaceComplex", "face_complex"],
    ".boundaries": ["Boundary", "boundary"],
    ".volumes": ["BoundaryVolumes", "boundary_volumes"],
    ".distances": ["Distances", "ExactDistance", "boundary_distances", "exact_distance"],
    ".trajectories": ["Piece", "Trajectory", "trajectory", "line_regions", "regions_along_lines"],
    ".theorem3": ["theorem3_comparison"],
    ".bounds": ["BoundRow", "trivial_bound", "arrangement_bound", "one_layer_bound", "raghu_bound", "serra_bound",
                "compare_with_bounds", "maxout_serra_bound", "maxout_montufar_bound", "ReceptiveField",
                "FieldEntries", "conv_receptive_fields", "conv_field_entries", "conv_layer_bound", "conv_bound",
                "xiong_conv_bound"],
    ".topology": ["SetTopology", "DecisionTopology", "decision_topology"],
    ".persistence": ["Persistence", "PersistencePair", "CriticalPoint"],  # the function: pr.persistence
    ".local": ["LocalComplexity", "local_complexity", "load_points"],
    ".statistics": ["RegionStatistics", "region_statistics"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.measures.boundaries import Boundary, boundary
    from polyregions.measures.bounds import (
        BoundRow,
        FieldEntries,
        ReceptiveField,
        arrangement_bound,
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
    from polyregions.measures.distances import Distances, ExactDistance, boundary_distances, exact_distance
    from polyregions.measures.faces import ComplexFace, FaceComplex, face_complex
    from polyregions.measures.local import LocalComplexity, load_points, local_complexity
    from polyregions.measures.persistence import CriticalPoint, Persistence, PersistencePair
    from polyregions.measures.statistics import RegionStatistics, region_statistics
    from polyregions.measures.theorem3 import theorem3_comparison
    from polyregions.measures.topology import DecisionTopology, SetTopology, decision_topology
    from polyregions.measures.trajectories import Piece, Trajectory, line_regions, regions_along_lines, trajectory
    from polyregions.measures.volumes import BoundaryVolumes, boundary_volumes
