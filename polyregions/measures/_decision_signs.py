"""The decision functions of a network, and their signs on every face of the network's complex refined by them.

With one output ``f`` the decision function is ``f``; with ``K >= 2`` outputs they are the differences
``g_{cj} = f_c - f_j`` for ``c < j`` (in that order). :func:`augmented_network` appends a ReLU unit on each, so
the augmented network's activation regions are the network's regions cut by every ``g = 0``: on each closed
region every ``g`` has one weak sign, ``g >= 0`` where its unit is on (piece 1) and ``g <= 0`` where it is off
(piece 0; this includes a region where ``g`` vanishes identically, whose piece is 0).

On a face ``F``, ``g`` is affine and keeps that weak sign on every region around ``F``, so on the relative
interior of ``F``: ``g = 0`` when the regions around ``F`` have both pieces; otherwise ``g`` has their sign
unless it vanishes on all of ``F``, that is at all of its vertices (an affine function of one weak sign on a
polytope that vanishes at a relative interior point vanishes on the whole polytope, so one non-zero vertex
makes the relative interior non-zero). The values at the vertices are signed by the float filter with proven
error bounds, as zero where both pieces meet, and exactly otherwise.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, cast

import numpy as np

from polyregions.errors import CertificateError
from polyregions.networks.activations import linear, relu
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network

if TYPE_CHECKING:
    from polyregions.exact.linalg import Matrix
    from polyregions.measures.faces import FaceComplex

__all__ = ["decision_pairs", "augmented_network", "face_signs", "signs_from_bounds"]


def decision_pairs(outputs: int) -> tuple[tuple[int, int], ...]:
    """The pairs ``(c, j)``, ``c < j``, of the decision functions ``f_c - f_j`` (none for one output).

    Examples
    --------
    >>> decision_pairs(1), decision_pairs(3)
    ((), ((0, 1), (0, 2), (1, 2)))
    """
    return tuple((c, j) for c in range(outputs) for j in range(c + 1, outputs))


def _decision_rows(outputs: int) -> "Matrix":
    if outputs == 1:
        return ((Fraction(1),),)
    return tuple(tuple(Fraction(1 if i == c else -1 if i == j else 0) for i in range(outputs))
                 for c, j in decision_pairs(outputs))


def augmented_network(network: Network) -> Network:
    """``network`` followed by a ReLU layer on its decision functions (their units are the last neurons).

    Examples
    --------
    >>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1], [1, -1]], [0, 0], "linear")])
    >>> aug = augmented_network(net)
    >>> aug.num_neurons - net.num_neurons, aug.layers[-1].weight
    (1, ((Fraction(1, 1), Fraction(-1, 1)),))
    """
    rows = _decision_rows(network.output_dim)
    if not isinstance(network, Network):  # a graph network's stages: one more stage of ReLU units
        from polyregions.networks.stage import Stage
        from polyregions.networks.stages import StagedNetwork

        staged = cast(StagedNetwork, network)
        last = Stage(rows, (Fraction(0),) * len(rows), (relu(),) * len(rows))
        return cast(Network, StagedNetwork(staged.input_dim, staged.layers + (last,)))
    return Network(network.input_dim, network.layers + (Layer(rows, (Fraction(0),) * len(rows), relu()),))


def face_signs(fc: "FaceComplex", *, first: int) -> np.ndarray:
    """The sign (-1, 0 or 1) of every decision function on the relative interior of every face.

    Parameters
    ----------
    fc : FaceComplex
        The faces of the complex of an :func:`augmented_network`.
    first : int, keyword-only
        The position of the first decision unit in the patterns (the original network's number of neurons).

    Returns
    -------
    numpy.ndarray
        int8, one row per face of ``fc``, one column per decision function.

    Raises
    ------
    CertificateError
        When the signs at the vertices contradict the pieces of the regions around a face.
    """
    regions = fc.complex.regions
    net = regions[0].network  # in domain coordinates
    last = net.layers[-1]
    if isinstance(net, Network):
        values = Network(net.input_dim, net.layers[:-1] + (Layer(last.weight, last.bias, linear()),))
    else:  # a graph network's stages
        from polyregions.networks.stage import Stage
        from polyregions.networks.stages import StagedNetwork

        values = cast(Network, StagedNetwork(net.input_dim, net.layers[:-1] + (
            Stage(last.weight, last.bias, (linear(),) * last.width),)))
    m = last.width
    pieces = np.array([r.pattern[first:] for r in regions], dtype=np.int8).reshape(len(regions), m)
    faces = fc.faces
    starts, flat = _ragged([f.regions for f in faces])
    low = np.minimum.reduceat(pieces[flat], starts, axis=0)
    high = np.maximum.reduceat(pieces[flat], starts, axis=0)
    mixed = low != high
    vertex_face = np.zeros(len(fc.vertices), dtype=np.int64)
    for i in fc.faces_of_dimension(0):
        vertex_face[faces[i].vertices[0]] = i
    vertex = _vertex_signs(values, fc.vertices, mixed[vertex_face])
    starts, flat = _ragged([f.vertices for f in faces])
    vmin = np.minimum.reduceat(vertex[flat], starts, axis=0)
    vmax = np.maximum.reduceat(vertex[flat], starts, axis=0)
    return signs_from_bounds(low, high, vmin, vmax)


def signs_from_bounds(low: np.ndarray, high: np.ndarray, vmin: np.ndarray, vmax: np.ndarray) -> np.ndarray:
    """The sign of each decision function on each face (faces x functions, int8), from the least and largest
    piece of the regions around the face (``low``, ``high``) and the least and largest exact sign at its vertices
    (``vmin``, ``vmax``); raises CertificateError where the two disagree."""
    mixed = low != high
    on = ~mixed & (low == 1)
    bad = (mixed & ((vmin != 0) | (vmax != 0))) | (on & (vmin < 0)) | (~mixed & ~on & (vmax > 0))
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise CertificateError(f"decision signs: expected the vertices of face {i} to have the sign of the regions "
                               f"around it for decision function {j}, got vertex signs {int(vmin[i, j])}.."
                               f"{int(vmax[i, j])} with pieces {int(low[i, j])}..{int(high[i, j])}")
    signs = np.where(on, (vmax > 0).astype(np.int8), -(vmin < 0).astype(np.int8))
    return np.where(mixed, 0, signs).astype(np.int8)


def _ragged(groups) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets and the concatenation of non-empty groups of indices."""
    counts = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    flat = np.fromiter((x for g in groups for x in g), dtype=np.int64, count=int(counts.sum()))
    return np.cumsum(counts) - counts, flat


def _vertex_signs(values: Network, vertices, mixed: np.ndarray) -> np.ndarray:
    """Signs of the decision functions (the outputs of ``values``) at the vertices: zero where ``mixed``,
    proven by the float filter, or exact."""
    from polyregions.networks._float_filter import (
        UNCERTAIN,
        activate,
        certified_signs,
        doubles,
        float_layer,
        forward_layer,
    )

    if not isinstance(values, Network):  # a graph network's stages: every vertex exactly
        return _exact_signs(values, vertices, mixed, np.full((len(vertices), values.output_dim), UNCERTAIN,
                                                             dtype=np.int8))
    x, e = doubles([list(v) for v in vertices])
    for layer in values.layers:
        fl = float_layer(layer)
        z, ez = forward_layer(fl, x, e)
        x, e = activate(fl, z, ez)
    signs = certified_signs(x, e, 0.0, 0.0)
    if (mixed & (signs != UNCERTAIN) & (signs != 0)).any():
        v = int(np.argwhere(mixed & (signs != UNCERTAIN) & (signs != 0))[0][0])
        raise CertificateError(f"decision signs: expected a zero at vertex {v}, where both sides meet, "
                               f"got a value proven non-zero")
    return _exact_signs(values, vertices, mixed, signs)


def _exact_signs(values: Network, vertices, mixed: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """``signs`` with the entries the float filter left ``UNCERTAIN`` decided exactly (zero where ``mixed``)."""
    from polyregions.networks._float_filter import UNCERTAIN

    signs[mixed] = 0
    for v in np.flatnonzero((signs == UNCERTAIN).any(axis=1)).tolist():
        exact = values(vertices[v])
        row = np.array([(x > 0) - (x < 0) for x in exact], dtype=np.int8)
        if (row[mixed[v]] != 0).any():
            raise CertificateError(f"decision signs: expected a zero at vertex {v}, where both sides meet, "
                                   f"got {exact}")
        signs[v] = row
    return signs
