"""Summing the gradient terms that reach one tensor (TensorFlow's aggregation methods).

TensorFlow's ``gradients_util._AggregatedGrads``: one term passes through as it is; several
dense terms become one ``AddN`` (per device first, ``_MultiDeviceAddN``), or a chain of
pairwise AddN ops in ``<op>_gradient_sum`` with the experimental methods; terms with an
IndexedSlices among them either densify through AddN (when any term is dense) or
concatenate values and indices (``backprop_util.AggregateIndexedSlicesGradients``).
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Operation, Tensor, convert_to_tensor
from graph.core.indexed_slices import IndexedSlices
from graph.ops import array_concat_ops, array_index_ops, array_ops, math_ops, reduction_ops

__all__ = ["AggregationMethod", "aggregate_gradients"]


class AggregationMethod:
    """The ways of combining gradient terms (TF's tf.AggregationMethod)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2  # an alias of EXPERIMENTAL_TREE in TF 2.x


_VALID_METHODS = [AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]


def _multi_device_add_n(tensors: list[Tensor]) -> Tensor:
    """Sums per device (colocated with each device's first term), then sums the partial sums."""
    by_device: dict[str, list[Tensor]] = {}
    for tensor in tensors:
        by_device.setdefault(tensor.device, []).append(tensor)
    summands = []
    for device in sorted(by_device):
        group = by_device[device]
        with group[0].graph.colocate_with(group[0].op, ignore_existing=True):
            summands.append(reduction_ops.add_n(group))
    return reduction_ops.add_n(summands)


def _as_indexed_slices(value) -> IndexedSlices:
    """A dense gradient as IndexedSlices over all its rows (TF's math_ops._as_indexed_slices)."""
    if isinstance(value, IndexedSlices):
        return value
    shape = array_ops.shape_internal(value, optimize=True)
    return IndexedSlices(value, reduction_ops.range(0, shape[0]), shape)


def _flatten_nested(grad: IndexedSlices) -> IndexedSlices:
    if isinstance(grad.values, Tensor):
        return grad
    inner = _flatten_nested(grad.values)
    return IndexedSlices(inner.values, array_index_ops.gather(grad.indices, inner.indices), inner.dense_shape)


def _aggregate_indexed_slices(grads: list):
    """TF's AggregateIndexedSlicesGradients: AddN if any term is dense, else concatenated slices."""
    grads = [g for g in grads if g is not None]
    if any(isinstance(g, Tensor) for g in grads):
        return reduction_ops.add_n([convert_to_tensor(g) for g in grads])
    slices = [_as_indexed_slices(g) for g in grads]
    if any(s.indices.dtype.base_dtype == dtypes_lib.int32 for s in slices) and \
            any(s.indices.dtype.base_dtype != dtypes_lib.int32 for s in slices):
        slices = [IndexedSlices(s.values, math_ops.cast(s.indices, dtypes_lib.int64), s.dense_shape)
                  if s.indices.dtype.base_dtype == dtypes_lib.int32 else s for s in slices]
    slices = [_flatten_nested(s) for s in slices]
    return IndexedSlices(array_concat_ops.concat([s.values for s in slices], axis=0),
                         array_concat_ops.concat([s.indices for s in slices], axis=0), slices[0].dense_shape)


def aggregate_gradients(grads: dict, op: Operation, aggregation_method=None) -> list:
    """The gradient of each output of ``op``: its collected terms summed, None where there are none.

    Raises:
        ValueError: for an unknown ``aggregation_method``.
        TypeError: if a term is neither a Tensor nor an IndexedSlices.
    """
    if aggregation_method is None:
        aggregation_method = AggregationMethod.DEFAULT
    if aggregation_method not in _VALID_METHODS:
        raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. Accepted values are "
                         f"{_VALID_METHODS}.")
    # In place, as TF: the xs' gradients are read back from ``grads`` after their ops are visited.
    out_grads = grads[op] if op in grads else [[] for _ in op._outputs]
    for i, terms in enumerate(out_grads):
        if terms is None or isinstance(terms, (Tensor, IndexedSlices)):
            continue  # a loop Switch visited a second time: aggregated on its first visit
        if not all(isinstance(g, (Tensor, IndexedSlices)) for g in terms if g is not None):
            raise TypeError(f"Invalid gradient {terms} [index = {i}]. Gradients have to be either all Tensors or "
                            "all IndexedSlices")
        if not terms:
            out_grads[i] = None
        elif len(terms) < 2:
            out_grads[i] = terms[0]
        elif all(isinstance(g, Tensor) for g in terms if g is not None):
            if aggregation_method in (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
                with op.graph.name_scope(op.name + "_gradient_sum"):
                    running_sum = terms[0]
                    for term in terms[1:]:
                        running_sum = reduction_ops.add_n([running_sum, term])
                out_grads[i] = running_sum
            else:
                out_grads[i] = _multi_device_add_n(terms)
        else:
            out_grads[i] = _aggregate_indexed_slices(terms)
    return out_grads
