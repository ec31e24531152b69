"""Raghu et al.'s convolutional experiment on scikit-learn's 8x8 digits, exactly.

A small convolutional ReLU network (three 3x3 convolutions, the last two with stride 2, then a dense layer to the
ten classes) is trained in-process in numpy (Adam on the cross-entropy; nothing is downloaded, the digits ship
with scikit-learn) and read as an exact :class:`~polyregions.networks.graph.GraphNetwork`. Along a trajectory
through digit images (a segment between two digits, or a closed curve through two digits), and for every depth
``d`` (the network cut after its ``d``-th activation):

- the number of activation regions the trajectory crosses (:attr:`DepthProfile.regions`; it can only grow with
  depth, since deeper cuts refine shallower ones);
- the exact length of the trajectory's image after layer ``d`` (:attr:`DepthProfile.lengths`, sums of square roots
  of rationals; Raghu et al., Theorem 3, predict growth with depth for random networks of large weight variance).

:func:`plane_regions` counts the regions, per depth, on the plane through three digit images.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.surds import SurdSum

if TYPE_CHECKING:
    from polyregions.networks.graph import GraphNetwork

__all__ = ["ConvNet", "train_conv_digits", "activation_nodes", "truncated", "DepthProfile", "depth_profile",
           "circle_points", "plane_regions"]


# --- a small convolutional network in numpy ----------------------------------------------------------------------

def _conv_indices(shape: tuple[int, int, int], c_out: int, stride: int) -> tuple[np.ndarray, ...]:
    """Rows, columns and kernel entries of a 3x3 convolution with zero padding 1 as a sparse matrix."""
    c_in, height, width = shape
    out_h, out_w = (height - 1) // stride + 1, (width - 1) // stride + 1
    rows, cols, taps = [], [], []
    for o in range(c_out):
        for i in range(out_h):
            for j in range(out_w):
                row = (o * out_h + i) * out_w + j
                for c in range(c_in):
                    for di in range(3):
                        for dj in range(3):
                            y, x = i * stride - 1 + di, j * stride - 1 + dj
                            if 0 <= y < height and 0 <= x < width:
                                rows.append(row)
                                cols.append((c * height + y) * width + x)
                                taps.append(((o * c_in + c) * 3 + di) * 3 + dj)
    return np.array(rows), np.array(cols), np.array(taps), np.array((c_out, out_h, out_w))


@dataclass
class ConvNet:
    """Three 3x3 convolutions (padding 1; strides 1, 2, 2) with ReLU, then a dense layer; float64 weights.

    ``kernels[l]`` has shape ``[C_out, C_in, 3, 3]``; ``dense`` is ``(W, b)`` of the last layer.
    """

    kernels: list[np.ndarray]
    biases: list[np.ndarray]
    dense: tuple[np.ndarray, np.ndarray]
    strides: tuple[int, ...] = (1, 2, 2)

    @classmethod
    def initialize(cls, channels: Sequence[int], *, seed: Any = 0, weight_scale: float = 1.0) -> "ConvNet":
        """He-normal kernels times ``weight_scale`` (``sigma_w^2 = 2 weight_scale^2 / fan_in``), zero biases."""
        rng = np.random.default_rng(seed)
        kernels, biases, c_in = [], [], 1
        for c in channels:
            kernels.append(rng.normal(size=(c, c_in, 3, 3)) * weight_scale * np.sqrt(2 / (9 * c_in)))
            biases.append(np.zeros(c))
            c_in = c
        net = cls(kernels, biases, (np.zeros((10, 1)), np.zeros(10)))
        size = int(np.prod(net._shapes()[-1]))
        net.dense = (rng.normal(size=(10, size)) * np.sqrt(1 / size), np.zeros(10))
        return net

    def _shapes(self) -> list[tuple[int, int, int]]:
        shapes = [(1, 8, 8)]
        for kernel, stride in zip(self.kernels, self.strides):
            _, h, w = shapes[-1]
            shapes.append((kernel.shape[0], (h - 1) // stride + 1, (w - 1) // stride + 1))
        return shapes

    def _plans(self) -> list[tuple[np.ndarray, ...]]:
        shapes = self._shapes()
        return [_conv_indices(shapes[i], k.shape[0], s) for i, (k, s) in enumerate(zip(self.kernels, self.strides))]

    def _matrices(self, plans) -> list[np.ndarray]:
        out = []
        for kernel, (rows, cols, taps, shape), size in zip(self.kernels, plans, self._shapes()):
            M = np.zeros((int(np.prod(shape)), int(np.prod(size))))
            M[rows, cols] = kernel.reshape(-1)[taps]
            out.append(M)
        return out

    def logits(self, X: np.ndarray) -> np.ndarray:
        """The logits of a batch of flattened 8x8 images (rows)."""
        plans = self._plans()
        h = X
        for M, b, (_, _, _, shape) in zip(self._matrices(plans), self.biases, plans):
            h = np.maximum(h @ M.T + np.repeat(b, shape[1] * shape[2]), 0)
        return h @ self.dense[0].T + self.dense[1]

    def to_graph(self) -> "GraphNetwork":
        """The exact graph network (every weight the exact value of its float)."""
        from polyregions.networks import operations as ops
        from polyregions.networks.graph import GraphNetwork, Node

        nodes, previous = [], "input"
        for i, (kernel, bias, stride) in enumerate(zip(self.kernels, self.biases, self.strides), start=1):
            nodes.append(Node(f"conv{i}", ops.Conv(kernel, bias, stride=(stride,), padding=(1,)), (previous,)))
            nodes.append(Node(f"relu{i}", ops.Activation("relu"), (f"conv{i}",)))
            previous = f"relu{i}"
        nodes.append(Node("flatten", ops.Flatten(), (previous,)))
        nodes.append(Node("dense", ops.Dense(*self.dense), ("flatten",)))
        return GraphNetwork((1, 8, 8), tuple(nodes), "dense")


def train_conv_digits(channels: Sequence[int] = (4, 4, 4), *, epochs: int = 5, lr: float = 1e-2,
                      batch_size: int = 32, seed: Any = 0, weight_scale: float = 1.0) -> tuple[ConvNet, float]:
    """Train :class:`ConvNet` on the 1797 digits (pixels / 16) with Adam; return it and its training accuracy.

    Parameters
    ----------
    channels : sequence of int
        Output channels of the three convolutions.
    epochs, lr, batch_size : keyword-only
        Adam's passes over the data, step size and minibatch size (``epochs=0``: the initialisation).
    seed : keyword-only
        Seeds the initialisation and the minibatch order.
    weight_scale : float, keyword-only
        Multiplies the He-normal kernels (Raghu et al. vary ``sigma_w``).

    Returns
    -------
    (ConvNet, float)
        The trained network and its accuracy on the digits.

    Examples
    --------
    >>> net, accuracy = train_conv_digits((2, 2, 2), epochs=1, seed=0)  # doctest: +SKIP
    >>> accuracy > 0.5  # doctest: +SKIP
    True
    """
    from polyregions.experiments.datasets import digits

    if len(channels) != 3 or any(not isinstance(c, int) or c < 1 for c in channels):
        raise InvalidInputError(f"channels: expected three positive integers, got {list(channels)!r}")
    data = digits()
    net = ConvNet.initialize(channels, seed=seed, weight_scale=weight_scale)
    rng = np.random.default_rng(seed)
    plans = net._plans()
    params = net.kernels + net.biases + [net.dense[0], net.dense[1]]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(data.X))
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            grads = _gradients(net, plans, data.X[batch], data.y[batch])
            step += 1
            for p, g, (m, v) in zip(params, grads, moments):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    accuracy = float(np.mean(np.argmax(net.logits(data.X), axis=1) == data.y))
    return net, accuracy


def _gradients(net: ConvNet, plans, X: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    matrices = net._matrices(plans)
    activations, pre = [X], []
    for M, b, (_, _, _, shape) in zip(matrices, net.biases, plans):
        z = activations[-1] @ M.T + np.repeat(b, shape[1] * shape[2])
        pre.append(z)
        activations.append(np.maximum(z, 0))
    logits = activations[-1] @ net.dense[0].T + net.dense[1]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1
    delta = p / len(y)
    grad_dense = (delta.T @ activations[-1], delta.sum(axis=0))
    back = delta @ net.dense[0]
    kernel_grads, bias_grads = [], []
    for layer in reversed(range(len(matrices))):
        rows, cols, taps, shape = plans[layer]
        back = back * (pre[layer] > 0)
        dM = back.T @ activations[layer]
        kernel_grads.append(np.bincount(taps, weights=dM[rows, cols], minlength=net.kernels[layer].size)
                            .reshape(net.kernels[layer].shape))
        bias_grads.append(back.sum(axis=0).reshape(shape[0], -1).sum(axis=1))
        back = back @ matrices[layer]
    return kernel_grads[::-1] + bias_grads[::-1] + [grad_dense[0], grad_dense[1]]


# --- exact measurements per depth ----------------------------------------------------------------------------------

def activation_nodes(network: "GraphNetwork") -> tuple[str, ...]:
    """The names of the nodes with piecewise-linear units (activations, PReLU, max pooling, maxout), in order."""
    return tuple(node.name for node in network.nodes
                 if hasattr(node.op, "elementwise") or hasattr(node.op, "max_groups"))


def truncated(network: "GraphNetwork", name: str) -> "GraphNetwork":
    """The network cut after node ``name`` (which becomes the output)."""
    from polyregions.networks.graph import GraphNetwork

    names = [node.name for node in network.nodes]
    if name not in names:
        raise InvalidInputError(f"name: expected a node of the network ({', '.join(names)}), got {name!r}")
    return GraphNetwork(network.input_shape, network.nodes[:names.index(name) + 1], name)


@dataclass(frozen=True)
class DepthProfile:
    """Regions crossed and image lengths of one trajectory, per depth.

    ``depths[d - 1]`` names the ``d``-th activation node; ``regions[d - 1]`` counts the runs of constant pattern of
    the network cut there along the trajectory; ``lengths[0]`` is the trajectory's own length and
    ``lengths[d]`` the exact length of its image after the ``d``-th activation.
    """

    depths: tuple[str, ...]
    regions: tuple[int, ...]
    lengths: tuple[SurdSum, ...]

    def float_lengths(self) -> tuple[float, ...]:
        return tuple(float(v) for v in self.lengths)


def _image_length(network: "GraphNetwork", start: Sequence[Fraction], end: Sequence[Fraction]) -> SurdSum:
    from polyregions.regions.domains import segment
    from polyregions.regions.enumeration import enumerate_regions

    parts = []
    for region in enumerate_regions(network, segment(start, end)).regions:
        low = max((b / a for (a,), b in zip(region.A, region.b) if a < 0), default=Fraction(0))
        high = min((b / a for (a,), b in zip(region.A, region.b) if a > 0), default=Fraction(1))
        M, _ = region.output_map
        parts.append(SurdSum.sqrt(sum(row[0] * row[0] for row in M)) * (high - low))
    return SurdSum.total(parts)


def depth_profile(network: "GraphNetwork", points: Sequence[Any]) -> DepthProfile:
    """Regions crossed and exact image lengths of the polyline through ``points``, for every depth.

    Parameters
    ----------
    network : GraphNetwork
        The network (its activation nodes define the depths).
    points : sequence of input points
        The polyline's vertices (read exactly), at least two.

    Returns
    -------
    DepthProfile

    Examples
    --------
    >>> from polyregions.networks.graph import GraphNetwork, Node
    >>> from polyregions.networks import operations as ops
    >>> net = GraphNetwork((1, 2), (Node("c", ops.Conv([[[1, 1]], [[1, -1]]], [0, 0]), ("input",)),
    ...                             Node("r", ops.Activation("relu"), ("c",))), "r")
    >>> p = depth_profile(net, [[-1, 0], [1, 0]])
    >>> p.regions, [str(v) for v in p.lengths]
    ((2,), ['2', 'sqrt(2)'])
    """
    from polyregions.exact.rationals import rational_vector
    from polyregions.measures.trajectories import trajectory

    pts = [rational_vector(np.asarray(p).reshape(-1) if isinstance(p, np.ndarray) else p, what=f"points[{i}]",
                           length=network.input_dim) for i, p in enumerate(points)]
    if len(pts) < 2:
        raise InvalidInputError(f"points: expected at least two points, got {len(pts)}")
    own = SurdSum.total(SurdSum.sqrt(sum((a - b) ** 2 for a, b in zip(p, q))) for p, q in zip(pts, pts[1:]))
    depths = activation_nodes(network)
    regions, lengths = [], [own]
    for name in depths:
        cut = truncated(network, name)
        regions.append(trajectory(cut, pts).regions)
        lengths.append(SurdSum.total(_image_length(cut, p, q) for p, q in zip(pts, pts[1:])))
    return DepthProfile(depths, tuple(regions), tuple(lengths))


def circle_points(first: Any, second: Any, center: Any, samples: int) -> list[tuple[Fraction, ...]]:
    """``samples`` exact points of the closed curve ``center + cos(a) (first - center) + sin(a) (second - center)``
    (through ``first`` at ``a = 0`` and ``second`` at ``a = pi/2``), at the rational points
    ``((1 - s^2) / (1 + s^2), 2 s / (1 + s^2))`` of the unit circle, closed by repeating the first point.

    Examples
    --------
    >>> [tuple(map(str, p)) for p in circle_points([1, 0], [0, 1], [0, 0], 4)]
    [('1', '0'), ('0', '1'), ('-1', '0'), ('0', '-1'), ('1', '0')]
    """
    from polyregions.exact.rationals import rational_vector

    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 3:
        raise InvalidInputError(f"samples: expected an integer >= 3, got {samples!r}")
    u, v, c = (rational_vector(np.asarray(p).reshape(-1) if isinstance(p, np.ndarray) else p, what=name)
               for p, name in ((first, "first"), (second, "second"), (center, "center")))
    out = []
    for k in range(samples):
        angle = 2 * np.pi * k / samples
        if abs(np.cos(angle) + 1) < 1e-12:
            cos, sin = Fraction(-1), Fraction(0)
        else:  # s = tan(angle / 2), rounded to a rational: the point stays exactly on the circle
            s = Fraction(float(np.tan(angle / 2))).limit_denominator(10 ** 6)
            cos, sin = (1 - s * s) / (1 + s * s), 2 * s / (1 + s * s)
        out.append(tuple(ci + cos * (ui - ci) + sin * (vi - ci) for ui, vi, ci in zip(u, v, c)))
    return out + [out[0]]


def plane_regions(network: "GraphNetwork", a: Any, b: Any, c: Any, *, half_width: Any = None) -> tuple[int, ...]:
    """Activation regions, per depth, on the square of the plane through three inputs centred at their
    circumcentre (:func:`polyregions.regions.domains.plane_through`, ``half_width`` as there)."""
    from polyregions.regions.domains import plane_through
    from polyregions.regions.enumeration import enumerate_regions

    domain = plane_through(a, b, c, half_width=half_width)
    return tuple(len(enumerate_regions(truncated(network, name), domain).regions)
                 for name in activation_nodes(network))
