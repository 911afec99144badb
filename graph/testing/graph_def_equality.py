"""``tf.test.assert_equal_graph_def``: TF's EqualGraphDef (core/util/equal_graph_def.cc) and the node summaries
its messages quote (SummarizeNodeDef, SummarizeAttrValue).

Two GraphDefs are equal when they hold the same nodes by name, whatever their order and versions: per node
the same op, device and data inputs in order (``x`` equals ``x:0``), the same control inputs in any order,
and the same attrs, those starting with ``_`` left out.  Tensor attrs compare by value, other attrs by their
serialized bytes.  The first difference found is the AssertionError's message, worded as TF's; where several
attrs differ this names the first by name (an unexpected node: the actual graph's first), TF whichever its
hash map yields first.
"""

from __future__ import annotations

import re

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.ops.control_flow_assert import summarize_value
from graph.ops.string_hashes import fingerprint64
from graph.proto.framework import AttrValue, GraphDef, NameAttrList, NodeDef, TensorProto, TensorShapeProto
from graph.proto.values import ndarray_of

__all__ = ["assert_equal_graph_def", "equal_graph_def", "summarize_node_def", "summarize_attr_value"]

_MAX_STRING_SUMMARY = 80  # attr_value_util.cc kMaxStringSummarySize: longer strings keep 10 chars each end
_MAX_LIST_SUMMARY = 30  # kMaxListSummarySize: longer lists show 5 + "..." + 5 items and a fingerprint
_C_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
              ord("\\"): "\\\\"}
# A V2 checkpoint's save graph names its temporary files with a random suffix (saver.py's _SHARDED_SUFFIX).
_SHARDED_SAVE_OP = re.compile(rb"_temp_[0-9a-z]{32}/part")
_TABLE_SHARED_NAME = re.compile(rb"hash_table_[0-9a-z\-]+")


def _c_escape(data: bytes) -> str:
    """absl::CEscape: named escapes, other bytes outside printable ASCII as three octal digits."""
    return "".join(_C_ESCAPES.get(byte) or (chr(byte) if 0x20 <= byte < 0x7F else "\\%03o" % byte) for byte in data)


def _summarize_string(data: bytes) -> str:
    escaped = _c_escape(data)
    if len(escaped) >= _MAX_STRING_SUMMARY:
        return '"' + escaped[:10] + "..." + escaped[-10:] + '"'
    return '"' + escaped + '"'


def _float_text(value: float) -> str:
    """StrCat of a float (FloatToBuffer): ``%.6g``, or ``%.9g`` when that does not give the float32 back."""
    text = "%.6g" % value
    return text if not np.isfinite(value) or np.float32(text) == np.float32(value) else "%.9g" % value


def _shape_text(shape: TensorShapeProto) -> str:
    """PartialTensorShape::DebugString: ``[2,?]``, or ``<unknown>`` for an unknown rank."""
    if shape.unknown_rank:
        return "<unknown>"
    return "[" + ",".join("?" if dim.size < 0 else str(dim.size) for dim in shape.dim) + "]"


def _summarize_tensor(tensor: TensorProto) -> str:
    """Tensor::DebugString: ``Tensor<type: float shape: [2] values: 1 2>`` (at most three values)."""
    dtype = dtypes_lib.as_dtype(tensor.dtype)
    value = np.asarray(ndarray_of(tensor))
    shape = "[" + ",".join(str(size) for size in value.shape) + "]"
    return f"Tensor<type: {dtype.message_name} shape: {shape} values: {summarize_value(value, 3)}>"


def _summarize_func(func: NameAttrList) -> str:
    entries = sorted(f"{name}={summarize_attr_value(value)}" for name, value in func.attr.items())
    return f"{func.name}[{', '.join(entries)}]"


def _summarize_list(items: AttrValue.ListValue) -> str:
    if items.s:
        pieces = [_summarize_string(item) for item in items.s]
    elif items.i:
        pieces = [str(item) for item in items.i]
    elif items.f:
        pieces = [_float_text(item) for item in items.f]
    elif items.b:
        pieces = ["true" if item else "false" for item in items.b]
    elif items.type:
        pieces = [dtypes_lib.as_dtype(item).proto_name for item in items.type]
    elif items.shape:
        pieces = [_shape_text(item) for item in items.shape]
    elif items.tensor:
        pieces = [_summarize_tensor(item) for item in items.tensor]
    else:
        pieces = [_summarize_func(item) for item in items.func]
    if len(pieces) >= _MAX_LIST_SUMMARY:
        fingerprint = fingerprint64(",".join(pieces).encode("utf-8"))
        return "[" + ", ".join(pieces[:5] + ["..."] + pieces[-5:]) + "]{attr_hash=%d}" % fingerprint
    return "[" + ", ".join(pieces) + "]"


def summarize_attr_value(value: AttrValue) -> str:
    """TF's SummarizeAttrValue: a one-line rendering of an attr value (``DT_FLOAT``, ``[2,3]``, ``"s"``, ...)."""
    kind = value.which_oneof("value")
    if kind == "s":
        return _summarize_string(value.s)
    if kind == "i":
        return str(value.i)
    if kind == "f":
        return _float_text(value.f)
    if kind == "b":
        return "true" if value.b else "false"
    if kind == "type":
        return dtypes_lib.as_dtype(value.type).proto_name
    if kind == "shape":
        return _shape_text(value.shape)
    if kind == "tensor":
        return _summarize_tensor(value.tensor)
    if kind == "list":
        return _summarize_list(value.list)
    if kind == "func":
        return _summarize_func(value.func)
    if kind == "placeholder":
        return "$" + value.placeholder
    return "<Unknown AttrValue type>"


def summarize_node_def(node: NodeDef) -> str:
    """TF's SummarizeNodeDef: ``{{node a}} = Op[attr=value, ..., _device="..."](input, ^control)``."""
    attrs = [f"{name}={summarize_attr_value(node.attr[name])}" for name in sorted(node.attr)]
    if node.device:
        attrs.append(f'_device="{node.device}"')
    return f"{{{{node {node.name}}}}} = {node.op}[{', '.join(attrs)}]({', '.join(node.input)})"


def _tensors_equal(left: TensorProto, right: TensorProto) -> bool:
    """AreTensorProtosEqual: by dtype, shape and value, whatever the encoding (tensor_content or *_val)."""
    if left.dtype != right.dtype:
        return False
    left_value, right_value = np.asarray(ndarray_of(left)), np.asarray(ndarray_of(right))
    if left_value.shape != right_value.shape:
        return False
    if left_value.dtype == object:
        return left_value.tolist() == right_value.tolist()
    return left_value.tobytes() == right_value.tobytes()


def _attr_values_equal(left: AttrValue, right: AttrValue) -> bool:
    """AreAttrValuesEqual: tensors by value, funcs attr by attr, everything else by serialized bytes."""
    if (left.which_oneof("value") == "tensor") != (right.which_oneof("value") == "tensor"):
        return False
    if left.which_oneof("value") == "tensor":
        return _tensors_equal(left.tensor, right.tensor)
    if (left.which_oneof("value") == "func") != (right.which_oneof("value") == "func"):
        return False
    if left.which_oneof("value") == "func":
        if left.func.name != right.func.name or set(left.func.attr) != set(right.func.attr):
            return False
        return all(_attr_values_equal(left.func.attr[name], right.func.attr[name]) for name in left.func.attr)
    return left.SerializeToString(deterministic=True) == right.SerializeToString(deterministic=True)


def _node_difference(actual: NodeDef, expected: NodeDef) -> str | None:
    """EqualNodeDef: the first difference of two same-named nodes, in TF's words, or None."""
    name = actual.name
    if actual.op != expected.op:
        return f"Node named '{name}' has op '{actual.op}' that is not expected '{expected.op}'"
    if actual.device != expected.device:
        return f"Node named '{name}' has device '{actual.device}' that is not expected '{expected.device}'"
    if len(actual.input) != len(expected.input):
        return (f"Node named '{name}' has inputs '{', '.join(actual.input)}' that don't match expected "
                f"'{', '.join(expected.input)}'")
    first_control = len(actual.input)
    for index, (got, want) in enumerate(zip(actual.input, expected.input)):
        if got.startswith("^"):
            first_control = index
            break
        if got != want and got != want + ":0" and got + ":0" != want:
            return f"Node named '{name}' has input {index} '{got}' that doesn't match expected '{want}'"
    actual_control = list(dict.fromkeys(actual.input[first_control:]))
    for control in dict.fromkeys(expected.input[first_control:]):
        if control not in actual_control:
            return f"Node named '{name}' missing expected control input '{control}'"
        actual_control.remove(control)
    if actual_control:
        return f"Node named '{name}' has unexpected control input '{actual_control[0]}'"
    actual_attrs = sorted(key for key in actual.attr if not key.startswith("_"))
    for key in sorted(expected.attr):
        value = expected.attr[key]
        if key.startswith("_"):
            continue
        if key not in actual_attrs:
            return f"Node named '{name}' missing expected attr '{key}' with value: {summarize_attr_value(value)}"
        actual_attrs.remove(key)
        if not _attr_values_equal(value, actual.attr[key]):
            return (f"Node named '{name}' has attr '{key}' with value: {summarize_attr_value(actual.attr[key])} "
                    f"that does not match expected: {summarize_attr_value(value)}")
    if actual_attrs:
        key = actual_attrs[0]
        return f"Node named '{name}' has unexpected attr '{key}' with value: {summarize_attr_value(actual.attr[key])}"
    return None


def equal_graph_def(actual: GraphDef, expected: GraphDef) -> str | None:
    """EqualGraphDef: None when the graphs hold the same nodes, else the first difference in TF's words."""
    remaining = {node.name: node for node in actual.node}
    for expected_node in expected.node:
        actual_node = remaining.pop(expected_node.name, None)
        if actual_node is None:
            return f"Did not find expected node '{summarize_node_def(expected_node)}'"
        difference = _node_difference(actual_node, expected_node)
        if difference is not None:
            return difference
    if remaining:
        return f"Found unexpected node '{summarize_node_def(next(iter(remaining.values())))}'"
    return None


def _strip_checkpoint_v2_randomized(graph_def: GraphDef) -> None:
    """Drops the attr tensors holding a V2 save graph's random temporary name (TF's checkpoint_v2=True)."""
    for node in graph_def.node:
        for key in [key for key, value in node.attr.items() if value.which_oneof("value") == "tensor"
                    and len(value.tensor.string_val) == 1 and _SHARDED_SAVE_OP.match(value.tensor.string_val[0])]:
            del node.attr[key]


def _strip_hash_table_shared_name(graph_def: GraphDef) -> None:
    """Drops HashTableV2's generated ``shared_name`` (TF's hash_table_shared_name=True)."""
    for node in graph_def.node:
        if node.op == "HashTableV2" and "shared_name" in node.attr and _TABLE_SHARED_NAME.match(
                node.attr["shared_name"].s):
            del node.attr["shared_name"]


def assert_equal_graph_def(actual: GraphDef, expected: GraphDef, checkpoint_v2: bool = False,
                           hash_table_shared_name: bool = False) -> None:
    """Asserts two GraphDefs hold the same nodes (ignoring versions and the order of nodes, attrs and control
    inputs; nodes are matched by name).

    Args:
        actual: the GraphDef we have.
        expected: the GraphDef we expected.
        checkpoint_v2: ignore the random temporary-file names of V2 checkpoint save graphs.
        hash_table_shared_name: ignore HashTableV2's generated shared names.
    Raises:
        AssertionError: naming the first difference, as TF words it.
        TypeError: if either argument is not a GraphDef.
    """
    if not isinstance(actual, GraphDef):
        raise TypeError("Expected tf.GraphDef for actual, got %s" % type(actual).__name__)
    if not isinstance(expected, GraphDef):
        raise TypeError("Expected tf.GraphDef for expected, got %s" % type(expected).__name__)
    if checkpoint_v2:  # TF strips the caller's messages in place, so they compare alike afterwards too
        _strip_checkpoint_v2_randomized(actual)
        _strip_checkpoint_v2_randomized(expected)
    if hash_table_shared_name:
        _strip_hash_table_shared_name(actual)
        _strip_hash_table_shared_name(expected)
    difference = equal_graph_def(actual, expected)
    if difference is not None:
        raise AssertionError(difference)
