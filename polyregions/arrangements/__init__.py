"""Exact hyperplane arrangements: regions, faces, the intersection poset and Zaslavsky's theorem.

Examples
--------
>>> from polyregions.arrangements import braid
>>> arrangement = braid(4)
>>> arrangement.num_regions(), arrangement.characteristic_polynomial()
(24, (1, -6, 11, -6, 0))
"""

from polyregions.arrangements.arrangement import Arrangement, canonical_hyperplanes
from polyregions.arrangements.io import arrangement_from_json, arrangement_to_json, read_arrangement, write_arrangement
from polyregions.arrangements.library import (
                      braid,
                      catalan,
                      coordinate,
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
)
from polyregions.arrangements.poset import Flat, IntersectionPoset, intersection_poset
from polyregions.arrangements.regions import ArrangementFace, ArrangementRegion, sign_string
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
    "network_layer",
    "parse_name",
    "read_arrangement",
    "write_arrangement",
    "arrangement_from_json",
    "arrangement_to_json",
]
