"""Graph comparison for the embedding and sampled-loss tests: op by op, static shapes compared apart.

TF's shape refiner evaluates any constant subgraph and partial shape tensors (``stack([shape(x)[0], -1])``)
when a shape function asks for an input's value; ours folds a smaller set of ops, so some intermediate
static shapes of these long graphs are less specific than TF's (``[None, None]`` where TF knows
``[None, 3]``).  `assert_same_structure` compares names, types, inputs, control inputs, attrs and
output dtypes exactly, and static shapes only as "ours is TF's or less specific"; the ``results``
it is given must have exactly TF's static shapes.
"""

from __future__ import annotations

import graph.compat.v1 as compat_v1
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from tests.graph.graph_oracle import describe_ours, describe_tf

__all__ = ["assert_same_structure"]


def _split(row):
    name, op_type, inputs, controls, attrs, outputs = row
    return (name, op_type, inputs, controls, attrs, [dtype for dtype, _ in outputs]), [shape for _, shape in outputs]


def _flat_tensors(result):
    if isinstance(result, (list, tuple)):
        return [t for item in result for t in _flat_tensors(item)]
    return [result] if hasattr(result, "shape") and hasattr(result, "op") else []


def assert_same_structure(tf1, build):
    """Builds ``build(tf)`` in both frameworks, compares the graphs; returns ((graph, result), (tf graph, result))."""
    ours = graph_lib.Graph()
    with ours.as_default():
        ours_result = build(compat_v1)
    theirs_result = build(tf1)
    theirs = tf1.get_default_graph()
    mine, real = describe_ours(ours), describe_tf(theirs)
    for index, (a, b) in enumerate(zip(mine, real)):
        (a_row, a_shapes), (b_row, b_shapes) = _split(a), _split(b)
        assert a_row == b_row, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
        for mine_shape, real_shape in zip(a_shapes, b_shapes):
            assert TensorShape(real_shape).is_compatible_with(TensorShape(mine_shape)), (
                f"op #{index} has a static shape TF's contradicts:\n ours: {a}\n   tf: {b}")
    assert len(mine) == len(real), [row[0] for row in mine[len(real):]] + [row[0] for row in real[len(mine):]]
    for mine_tensor, real_tensor in zip(_flat_tensors(ours_result), _flat_tensors(theirs_result)):
        real_shape = real_tensor.shape
        assert mine_tensor.shape.as_list() == real_shape.as_list() if real_shape.ndims is not None else True, (
            f"{mine_tensor.name}: ours {mine_tensor.shape}, TF {real_shape}")
    return (ours, ours_result), (theirs, theirs_result)
