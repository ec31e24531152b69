"""Exact hyperplane arrangements: regions, faces, the intersection poset and Zaslavsky's theorem, and counts of
regions too many to list.

Examples
--------
>>> from polyregions.arrangements import braid, count_regions, resonance
>>> arrangement = braid(4)
>>> arrangement.num_regions(), arrangement.characteristic_polynomial()
(24, (1, -6, 11, -6, 0))
>>> count_regions(resonance(6)).regions
1066044
"""

from polyregions.arrangements.arrangement import Arrangement, canonical_hyperplanes
from polyregions.arrangements.counting import RegionCount, characteristic_polynomial, count_regions
from polyregions.arrangements.face_counts import face_vector, restriction_regions
from polyregions.arrangements.freeness import FreenessReport, decide_freeness
from polyregions.arrangements.io import arrangement_from_json, arrangement_to_json, read_arrangement, write_arrangement
from polyregions.arrangements.library import (
                      braid,
                      catalan,
                      coordinate,
                      coxeter,
                      generic,
                      graphical,
                      is_generic,
                      ish,
                      linial,
                      network_layer,
                      parse_name,
                      resonance,
                      semiorder,
                      shi,
                      threshold,
)
from polyregions.arrangements.listing import ListedRegion, iter_regions, read_regions, write_regions
from polyregions.arrangements.orlik_solomon import hilbert_series, nbc_sets
from polyregions.arrangements.poset import Flat, IntersectionPoset, intersection_poset
from polyregions.arrangements.regions import ArrangementFace, ArrangementRegion, sign_string
from polyregions.arrangements.roots import coxeter_number, exponents, positive_roots, weyl_group_order
from polyregions.arrangements.varchenko import varchenko_determinant, varchenko_formula, varchenko_matrix
from polyregions.arrangements.zaslavsky import ZaslavskyReport, check_zaslavsky

__all__ = [
    "Arrangement",
    "canonical_hyperplanes",
    "Flat",
    "IntersectionPoset",
    "intersection_poset",
    "ArrangementFace",
    "ArrangementRegion",
    "sign_string",
    "ZaslavskyReport",
    "check_zaslavsky",
    "RegionCount",
    "count_regions",
    "characteristic_polynomial",
    "face_vector",
    "restriction_regions",
    "ListedRegion",
    "iter_regions",
    "write_regions",
    "read_regions",
    "hilbert_series",
    "nbc_sets",
    "FreenessReport",
    "decide_freeness",
    "varchenko_matrix",
    "varchenko_determinant",
    "varchenko_formula",
    "braid",
    "shi",
    "catalan",
    "linial",
    "semiorder",
    "ish",
    "coordinate",
    "generic",
    "is_generic",
    "graphical",
    "resonance",
    "threshold",
    "coxeter",
    "positive_roots",
    "coxeter_number",
    "exponents",
    "weyl_group_order",
    "network_layer",
    "parse_name",
    "read_arrangement",
    "write_arrangement",
    "arrangement_from_json",
    "arrangement_to_json",
]
