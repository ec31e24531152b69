"""Compiling a graph network into stages: every affine operation folded exactly into the next stage's map, the
piecewise-linear operations of one level made one stage's units."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from polyregions.errors import InvalidInputError
from polyregions.networks import operations as ops
from polyregions.networks.activations import Activation, linear

if TYPE_CHECKING:
    from polyregions.networks.graph import GraphNetwork
from polyregions.networks.stage import Stage
from polyregions.networks.stages import StagedNetwork

__all__ = ["compile_graph"]

Expression = tuple[list[dict[int, Fraction]], list[Fraction]]  # rows (variable -> coefficient) and constants


def _is_affine(op: Any) -> bool:
    if isinstance(op, ops.Activation):
        return op.activation.is_linear and op.activation.slopes == (1,) and not op.activation.offset
    if isinstance(op, ops.PReLU):
        return all(s == 1 for s in op.slopes)
    return hasattr(op, "affine")


def _apply(plan: ops.SparseAffine, inputs: list[Expression]) -> Expression:
    rows, constants = [], []
    for terms, constant in zip(plan.terms, plan.constants):
        row: dict[int, Fraction] = {}
        value = constant
        for k, j, w in terms:
            source_rows, source_constants = inputs[k]
            for var, coef in source_rows[j].items():
                row[var] = row.get(var, 0) + w * coef
            value += w * source_constants[j]
        rows.append({var: coef for var, coef in row.items() if coef})
        constants.append(value)
    return rows, constants


def _identity(first: int, count: int) -> Expression:
    return [{first + i: Fraction(1)} for i in range(count)], [Fraction(0)] * count


def _stage(rows: list[dict[int, Fraction]], constants: list[Fraction], width: int,
           activations: list[Activation], groups: list[tuple[int, ...]]) -> Stage:
    if not rows or width < 1:
        raise InvalidInputError("stage: weight: expected at least one row and one column")
    # Sparse rows straight from the operations' sparse maps: no dense row is ever made.
    sparse = tuple(tuple(sorted(row.items())) for row in rows)
    return Stage._trusted(sparse, width, tuple(constants), tuple(activations), tuple(groups))


def compile_graph(network: "GraphNetwork") -> StagedNetwork:
    """The stages of a graph network (see the module documentation); the same function, exactly.

    A node's *level* is the number of piecewise-linear operations on its longest path from the input; the
    piecewise-linear nodes of level ``s`` make stage ``s``'s units, and tensors of a lower level that a later
    affine node (or the output) reads are carried through identity units.
    """
    shapes = network.shapes
    level: dict[str, int] = {"input": 0}
    for node in network.nodes:
        level[node.name] = max(level[name] for name in node.inputs) + (0 if _is_affine(node.op) else 1)
    last = level[network.output]
    needed_until: dict[str, int] = {network.output: last}  # the last state a tensor must be available in
    for node in network.nodes:
        if _is_affine(node.op):
            for name in node.inputs:
                needed_until[name] = max(needed_until.get(name, 0), level[node.name])
    state_width = network.input_dim
    expressions: dict[str, Expression] = {"input": _identity(0, state_width)}
    stages = []
    for s in range(last + 1):
        for node in network.nodes:  # affine nodes of this level, in topological order
            if level[node.name] == s and _is_affine(node.op):
                plan = node.op.affine([shapes[name] for name in node.inputs]) if hasattr(node.op, "affine") \
                    else ops.Flatten().affine([shapes[node.inputs[0]]])
                expressions[node.name] = _apply(plan, [expressions[name] for name in node.inputs])
        if s == last:
            out_rows, out_constants = expressions[network.output]
            stages.append(_stage(out_rows, out_constants, state_width, [linear()] * len(out_rows), []))
            break
        rows: list[dict[int, Fraction]] = []
        constants: list[Fraction] = []
        activations: list[Activation] = []
        outputs: list[tuple[str, int]] = []  # next-state tensors in order, with their sizes (element-wise part)
        max_nodes = []
        for node in network.nodes:
            if level[node.name] == s + 1 and not _is_affine(node.op):
                source_rows, source_constants = expressions[node.inputs[0]]
                if hasattr(node.op, "elementwise"):
                    rows.extend(source_rows)
                    constants.extend(source_constants)
                    activations.extend(node.op.elementwise(shapes[node.inputs[0]]))
                    outputs.append((node.name, len(source_rows)))
                else:
                    max_nodes.append(node)
        for name, expression in expressions.items():
            if level[name] <= s and needed_until.get(name, -1) > s:
                rows.extend(expression[0])
                constants.extend(expression[1])
                activations.extend([linear()] * len(expression[0]))
                outputs.append((name, len(expression[0])))
        # Max units: a window of one value is an identity unit; the others read shared pre-activations.
        groups: list[tuple[int, ...]] = []
        max_outputs: list[tuple[str, list[tuple[str, int]]]] = []
        pending_rows: list[dict[int, Fraction]] = []
        pending_constants: list[Fraction] = []
        for node in max_nodes:
            source_rows, source_constants = expressions[node.inputs[0]]
            placement = []
            for group in cast(Any, node.op).max_groups(shapes[node.inputs[0]]):
                if len(group) == 1:
                    rows.append(source_rows[group[0]])
                    constants.append(source_constants[group[0]])
                    activations.append(linear())
                    placement.append(("unit", len(activations) - 1))
                else:
                    placement.append(("group", len(groups)))
                    groups.append(tuple(len(pending_rows) + i for i in group))
            pending_rows.extend(source_rows)
            pending_constants.extend(source_constants)
            max_outputs.append((node.name, placement))
        e = len(rows)
        groups = [tuple(e + i for i in group) for group in groups]
        rows.extend(pending_rows)
        constants.extend(pending_constants)
        stages.append(_stage(rows, constants, state_width, activations, groups))
        expressions = {}
        position = 0
        for name, size in outputs:
            expressions[name] = _identity(position, size)
            position += size
        for name, placement in max_outputs:
            expressions[name] = ([{i if where == "unit" else len(activations) + i: Fraction(1)}
                                  for where, i in placement], [Fraction(0)] * len(placement))
        state_width = len(activations) + len(groups)
    return StagedNetwork(network.input_dim, tuple(stages))
