"""Parsing tf.train.SequenceExample protos: ``parse_single_sequence_example`` and the ParseSequenceExampleV2 op.

Inputs (TF's op): serialized, debug_name, then six string vectors of sorted keys (context sparse / dense /
ragged, feature-list sparse / dense / ragged), ``feature_list_dense_missing_assumed_empty`` (a bool per
dense feature-list key: its FixedLenSequenceFeature's ``allow_missing``), then one default per context
dense key.  Outputs for one (scalar) serialized SequenceExample::

    context_sparse_{indices [n,1], values [n], shapes [1]}    per context VarLenFeature
    context_dense_values                                     per context FixedLenFeature, its shape
    feature_list_sparse_{indices [n,2], values, shapes [2]}  per sequence VarLenFeature: (step, position)
    feature_list_dense_values [steps] + shape               per sequence FixedLenSequenceFeature
    feature_list_dense_lengths                               per sequence FixedLenSequenceFeature: steps
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape, as_shape
from graph.core.graph import convert_to_tensor, get_default_graph, name_scope
from graph.core.sparse_tensor import SparseTensor
from graph.ops import array_ops, constant_ops
from graph.ops.parsing_ops import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, _node_name_part
from graph.proto.example import SequenceExample

__all__ = ["parse_single_sequence_example"]

_KINDS = {"int64_list": dtypes_lib.int64, "float_list": dtypes_lib.float32, "bytes_list": dtypes_lib.string}
_NAMES = {dtypes_lib.int64: "int64", dtypes_lib.float32: "float", dtypes_lib.string: "string"}


def _keys(name: str, keys: list):
    return constant_ops.constant(np.array([k.encode() for k in keys], dtype=object).reshape(len(keys)),
                                 dtype=dtypes_lib.string, name=name)


def _split(features: dict | None, kinds: tuple) -> tuple[list, list]:
    features = features or {}
    for key, spec in features.items():
        if not isinstance(spec, kinds):
            raise ValueError(f"Unsupported feature spec for {key!r}: {spec!r}")
    sparse = sorted(k for k, v in features.items() if isinstance(v, VarLenFeature))
    dense = sorted(k for k, v in features.items() if not isinstance(v, VarLenFeature))
    return sparse, dense


def parse_single_sequence_example(serialized, context_features: dict | None = None,
                                  sequence_features: dict | None = None, example_name=None,
                                  name: str | None = None) -> tuple[dict, dict]:
    """Parses one serialized SequenceExample into (context dict, feature-list dict) of Tensors / SparseTensors.

    Raises:
        ValueError: if both feature dicts are empty, or a spec is of the wrong kind.
    """
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    context_sparse, context_dense = _split(context_features, (FixedLenFeature, VarLenFeature))
    list_sparse, list_dense = _split(sequence_features, (FixedLenSequenceFeature, VarLenFeature))
    with name_scope(name or "ParseSingleSequenceExample"), name_scope("ParseSequenceExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes_lib.string, name="serialized")
        defaults = []
        for key in context_dense:
            spec = context_features[key]
            if spec.default_value is None:
                defaults.append(constant_ops.constant([], dtype=dtypes_lib.as_dtype(spec.dtype)))
            else:
                default = convert_to_tensor(spec.default_value, dtype=dtypes_lib.as_dtype(spec.dtype),
                                            name=f"key_{_node_name_part(key)}")
                defaults.append(array_ops.reshape(default, as_shape(spec.shape).as_list()))
        with name_scope("ParseSequenceExampleV2") as scope:
            debug_name = constant_ops.constant(example_name or "", dtype=dtypes_lib.string, name="debug_name")
            key_inputs = [_keys("context_sparse_keys", context_sparse), _keys("context_dense_keys", context_dense),
                          _keys("context_ragged_keys", []), _keys("feature_list_sparse_keys", list_sparse),
                          _keys("feature_list_dense_keys", list_dense), _keys("feature_list_ragged_keys", [])]
            assumed_empty = constant_ops.constant(
                np.array([bool(sequence_features[k].allow_missing) for k in list_dense], dtype=bool).reshape(-1),
                dtype=dtypes_lib.bool, name="feature_list_dense_missing_assumed_empty")
            op = get_default_graph().create_op(
                "ParseSequenceExampleV2", [serialized, debug_name] + key_inputs + [assumed_empty] + defaults,
                name=scope, attrs={
                    "Ncontext_sparse": len(context_sparse), "Nfeature_list_sparse": len(list_sparse),
                    "Nfeature_list_dense": len(list_dense),
                    "Tcontext_dense": [dtypes_lib.as_dtype(context_features[k].dtype) for k in context_dense],
                    "context_sparse_types": [dtypes_lib.as_dtype(context_features[k].dtype) for k in context_sparse],
                    "context_dense_shapes": [as_shape(context_features[k].shape) for k in context_dense],
                    "feature_list_sparse_types": [dtypes_lib.as_dtype(sequence_features[k].dtype) for k in list_sparse],
                    "feature_list_dense_types": [dtypes_lib.as_dtype(sequence_features[k].dtype) for k in list_dense],
                    "feature_list_dense_shapes": [as_shape(sequence_features[k].shape) for k in list_dense],
                    "context_ragged_value_types": [], "context_ragged_split_types": [],
                    "feature_list_ragged_value_types": [], "feature_list_ragged_split_types": []})
    outputs = iter(op.outputs)
    context = _sparse_outputs(outputs, context_sparse)
    context.update((key, next(outputs)) for key in context_dense)
    lists = _sparse_outputs(outputs, list_sparse)
    lists.update((key, next(outputs)) for key in list_dense)
    return context, lists


def _sparse_outputs(outputs, keys: list) -> dict:
    indices = [next(outputs) for _ in keys]
    values = [next(outputs) for _ in keys]
    shapes = [next(outputs) for _ in keys]
    return {key: SparseTensor(i, v, s) for key, i, v, s in zip(keys, indices, values, shapes)}


def _infer(op):
    attrs = op._attrs
    out = [(dtypes_lib.int64, TensorShape([None, 1]))] * attrs["Ncontext_sparse"]
    out += [(t, TensorShape([None])) for t in attrs["context_sparse_types"]]
    out += [(dtypes_lib.int64, TensorShape([1]))] * attrs["Ncontext_sparse"]
    out += [(t, as_shape(s)) for t, s in zip(attrs["Tcontext_dense"], attrs["context_dense_shapes"])]
    out += [(dtypes_lib.int64, TensorShape([None, 2]))] * attrs["Nfeature_list_sparse"]
    out += [(t, TensorShape([None])) for t in attrs["feature_list_sparse_types"]]
    out += [(dtypes_lib.int64, TensorShape([2]))] * attrs["Nfeature_list_sparse"]
    out += [(t, TensorShape([None]).concatenate(as_shape(s)))
            for t, s in zip(attrs["feature_list_dense_types"], attrs["feature_list_dense_shapes"])]
    out += [(dtypes_lib.int64, TensorShape([]))] * attrs["Nfeature_list_dense"]
    return out


def _array(dtype, values: list):
    if dtype == dtypes_lib.string:
        return np.array(values, dtype=object).reshape(len(values))
    return np.asarray(values, dtype=dtype.numpy_dtype)


def _values(op, feature, dtype, mismatch: str):
    kind = feature.which_oneof("kind")
    if kind is None:
        return _array(dtype, [])
    if _KINDS[kind] != dtype:
        raise errors.InvalidArgumentError(None, op, f"{mismatch}.  Data types don't match. Expected type: "
                                          f"{_NAMES[dtype]}")
    return _array(dtype, list(getattr(feature, kind).value))


def _strings(value) -> list[str]:
    return [k.decode() for k in np.asarray(value, dtype=object).reshape(-1)]


def _compute(ctx, op, inputs):
    attrs = op._attrs
    record = np.asarray(inputs[0], dtype=object)
    if record.ndim != 0:
        raise errors.UnimplementedError(None, op, "ParseSequenceExampleV2 here parses one (scalar) SequenceExample; "
                                        f"got shape {list(record.shape)}.")
    label = np.asarray(inputs[1], dtype=object).item() or b"<unknown>"
    where = f"Name: {label.decode() if isinstance(label, bytes) else label}"
    context_sparse, context_dense, _, list_sparse, list_dense, _ = (_strings(v) for v in inputs[2:8])
    assumed_empty = np.asarray(inputs[8], dtype=bool).reshape(-1)
    defaults = inputs[9:9 + len(context_dense)]
    try:
        example = SequenceExample.FromString(record.item())
    except errors.DataLossError as error:
        raise errors.InvalidArgumentError(None, op, f"{where}, Could not parse example input.") from error
    context = example._values.get("context")
    context = context.feature if context is not None else {}
    lists = example._values.get("feature_lists")
    lists = lists.feature_list if lists is not None else {}
    out: list = [[], [], []]
    for key, dtype in zip(context_sparse, attrs["context_sparse_types"]):
        values = _values(op, context[key], dtype, f"{where}, Context feature: {key}") if key in context \
            else _array(dtype, [])
        out[0].append(np.arange(len(values), dtype=np.int64).reshape(-1, 1))
        out[1].append(values)
        out[2].append(np.array([len(values)], np.int64))
    result = out[0] + out[1] + out[2]
    for key, dtype, shape, default in zip(context_dense, attrs["Tcontext_dense"], attrs["context_dense_shapes"],
                                          defaults):
        shape, default = as_shape(shape).as_list(), np.asarray(default)
        size = int(np.prod(shape)) if shape else 1
        values = _values(op, context[key], dtype, f"{where}, Context feature: {key}") if key in context else None
        if values is None and default.size:
            result.append(default.reshape(shape))
            continue
        found = 0 if values is None else values.size
        if found != size:
            raise errors.InvalidArgumentError(None, op, f"Inconsistent max number of elements for feature {key}: "
                                              f"expected {size}, but found {found}")
        result.append(values.reshape(shape))
    out = [[], [], []]
    for key, dtype in zip(list_sparse, attrs["feature_list_sparse_types"]):
        steps = list(lists[key].feature) if key in lists else []
        rows = [_values(op, f, dtype, f"{where}, Feature list: {key}, Index: {i}") for i, f in enumerate(steps)]
        out[0].append(np.array([[i, j] for i, row in enumerate(rows) for j in range(len(row))], np.int64).reshape(-1, 2))
        out[1].append(np.concatenate(rows) if rows else _array(dtype, []))
        out[2].append(np.array([len(rows), max((len(r) for r in rows), default=0)], np.int64))
    result += out[0] + out[1] + out[2]
    lengths = []
    for index, (key, dtype, shape) in enumerate(zip(list_dense, attrs["feature_list_dense_types"],
                                                     attrs["feature_list_dense_shapes"])):
        shape = as_shape(shape).as_list()
        size = int(np.prod(shape)) if shape else 1
        if key not in lists and not assumed_empty[index]:
            raise errors.InvalidArgumentError(None, op, f"{where}, Feature list '{key}' is required but could not be "
                                              "found.  Did you mean to include it in "
                                              "feature_list_dense_missing_assumed_empty or "
                                              "feature_list_dense_defaults?")
        steps = list(lists[key].feature) if key in lists else []
        rows = []
        for step, feature in enumerate(steps):
            values = _values(op, feature, dtype, f"{where}, Feature list: {key}, Index: {step}")
            if values.size != size:
                raise errors.InvalidArgumentError(None, op, f"{where}, Key: {key}, Index: {step}.  Number of values != "
                                                  f"expected.  values size: {values.size} but output shape: "
                                                  f"[{','.join(str(d) for d in shape)}]")
            rows.append(values.reshape(shape))
        result.append(np.stack(rows) if rows else np.zeros([0] + shape, dtype=object if dtype == dtypes_lib.string
                                                             else dtype.numpy_dtype))
        lengths.append(np.int64(len(rows)))
    return result + lengths


kernels.register("ParseSequenceExampleV2", infer=_infer, compute=_compute)
