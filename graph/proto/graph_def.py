"""GraphDef and its messages: a Graph as TensorFlow's protobufs (NodeDef bytes cached per op).

Messages (tensorflow/core/framework/*.proto; tf-checkpoint-format.md §7)::

    GraphDef      : 1 node NodeDef*, 2 library (kept as unknown bytes), 3 version int32, 4 versions VersionDef
    NodeDef       : 1 name, 2 op, 3 input string* ('^x' = control input), 4 device, 5 attr map<string, AttrValue>
    AttrValue     : oneof value {1 list ListValue, 2 s bytes, 3 i int64, 4 f float, 5 b bool, 6 type DataType,
                    7 shape, 8 tensor, 9 placeholder string, 10 func NameAttrList}
    ListValue     : 2 s*, 3 i* (packed), 4 f*, 5 b*, 6 type*, 7 shape*, 8 tensor*, 9 func*
    TensorProto   : 1 dtype, 2 tensor_shape, 4 tensor_content (raw little-endian), 5.. typed *_val fields
    VariableDef   : 1 variable_name, 2 initializer_name, 3 snapshot_name, 4 save_slice_info_def, 5 is_resource,
                    6 initial_value_name, 7 trainable, 8 synchronization, 9 aggregation
    OpDef         : read from a MetaGraphDef's stripped_op_list to type ops that have no kernel here

Our ops keep attrs as Python values (DType, TensorShape, ndarray, bool/int/float, str/bytes, lists,
``_class`` as a list of ``b"loc:@name"``); ``attr_value_of`` / ``python_value_of`` convert both ways.
``import_graph_def`` (graph/graph_import.py, re-exported here) rebuilds ops from NodeDefs.
"""

from __future__ import annotations

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.proto.protobuf import (BOOL, BYTES, DOUBLE, FLOAT, INT32, INT64, STRING, UINT32, UINT64, Field, MapField,
                            Message, encode_varint, enum)
from graph.base.shapes import TensorShape

_kernel_registry = kernels._REGISTRY  # op type -> OpKernel (its default attrs go into every NodeDef)

__all__ = [
    "DataType", "VersionDef", "TensorShapeProto", "ResourceHandleProto", "TensorProto", "VariantTensorDataProto",
    "AttrValue", "NameAttrList", "NodeDef", "GraphDef", "OpDef", "OpList", "VariableDef", "SaveSliceInfoDef",
    "GRAPH_DEF_VERSION", "attr_value_of", "python_value_of", "tensor_proto_of", "ndarray_of",
    "shape_proto_of", "tensor_shape_of", "node_def_of", "graph_def_of", "graph_def_bytes", "import_graph_def",
]

# TF_GRAPH_DEF_VERSION of TensorFlow 2.21 (core/public/version.h), the release our NodeDefs were checked against.
GRAPH_DEF_VERSION = 2474
_OUTPUT_SHAPES = "_output_shapes"  # attr TF adds on export (add_shapes=True): one shape per output

DataType = enum("DataType", {"DT_INVALID": 0, **{
    dtypes_lib.as_dtype(number).proto_name: number
    for number in list(range(1, 31)) + list(range(101, 131))}})


# ------------------------------------------------------------------------------------- messages


class VersionDef(Message):
    """tensorflow/core/framework/versions.proto."""
    producer = Field(1, INT32)
    min_consumer = Field(2, INT32)
    bad_consumers = Field(3, INT32, repeated=True)


class TensorShapeProto(Message):
    """tensorflow/core/framework/tensor_shape.proto."""

    class Dim(Message):
        """One dimension: size (-1 = unknown) and an optional name."""
        size = Field(1, INT64)
        name = Field(2, STRING)

    dim = Field(2, Dim, repeated=True)
    unknown_rank = Field(3, BOOL)

    @classmethod
    def from_shape(cls, shape) -> "TensorShapeProto":
        """The proto of a fully known shape (a sequence of ints)."""
        return cls(dim=[cls.Dim(size=int(d)) for d in shape])

    def to_shape(self) -> tuple[int, ...]:
        """The dimension sizes as a tuple."""
        return tuple(d.size for d in self.dim)


class ResourceHandleProto(Message):
    """tensorflow/core/framework/resource_handle.proto."""

    class DtypeAndShape(Message):
        """dtype and shape of one resource component."""
        dtype = Field(1, DataType)
        shape = Field(2, TensorShapeProto)

    device = Field(1, STRING)
    container = Field(2, STRING)
    name = Field(3, STRING)
    hash_code = Field(4, UINT64)
    maybe_type_name = Field(5, STRING)
    dtypes_and_shapes = Field(6, DtypeAndShape, repeated=True)


class TensorProto(Message):
    """tensorflow/core/framework/tensor.proto."""
    dtype = Field(1, DataType)
    tensor_shape = Field(2, TensorShapeProto)
    version_number = Field(3, INT32)
    tensor_content = Field(4, BYTES)
    float_val = Field(5, FLOAT, repeated=True)
    double_val = Field(6, DOUBLE, repeated=True)
    int_val = Field(7, INT32, repeated=True)
    string_val = Field(8, BYTES, repeated=True)
    scomplex_val = Field(9, FLOAT, repeated=True)
    int64_val = Field(10, INT64, repeated=True)
    bool_val = Field(11, BOOL, repeated=True)
    dcomplex_val = Field(12, DOUBLE, repeated=True)
    half_val = Field(13, INT32, repeated=True)
    resource_handle_val = Field(14, ResourceHandleProto, repeated=True)
    variant_val = Field(15, lambda: VariantTensorDataProto, repeated=True)
    uint32_val = Field(16, UINT32, repeated=True)
    uint64_val = Field(17, UINT64, repeated=True)
    float8_val = Field(18, BYTES)


class VariantTensorDataProto(Message):
    """tensorflow/core/framework/tensor.proto: the serialized body of one DT_VARIANT element."""
    type_name = Field(1, STRING)
    metadata = Field(2, BYTES)
    tensors = Field(3, TensorProto, repeated=True)


class NameAttrList(Message):
    """tensorflow/core/framework/attr_value.proto: a function name and its attrs."""
    name = Field(1, STRING)
    attr = MapField(2, STRING, lambda: AttrValue)


class AttrValue(Message):
    """tensorflow/core/framework/attr_value.proto: one attr value (a oneof)."""

    class ListValue(Message):
        """A list-valued attr: one of the repeated fields is used."""
        s = Field(2, BYTES, repeated=True)
        i = Field(3, INT64, repeated=True)
        f = Field(4, FLOAT, repeated=True)
        b = Field(5, BOOL, repeated=True)
        type = Field(6, DataType, repeated=True)
        shape = Field(7, TensorShapeProto, repeated=True)
        tensor = Field(8, TensorProto, repeated=True)
        func = Field(9, NameAttrList, repeated=True)

    list = Field(1, ListValue, oneof="value")
    s = Field(2, BYTES, oneof="value")
    i = Field(3, INT64, oneof="value")
    f = Field(4, FLOAT, oneof="value")
    b = Field(5, BOOL, oneof="value")
    type = Field(6, DataType, oneof="value")
    shape = Field(7, TensorShapeProto, oneof="value")
    tensor = Field(8, TensorProto, oneof="value")
    placeholder = Field(9, STRING, oneof="value")
    func = Field(10, NameAttrList, oneof="value")


class NodeDef(Message):
    """tensorflow/core/framework/node_def.proto."""

    class ExperimentalDebugInfo(Message):
        """Names of the nodes this node was made from."""
        original_node_names = Field(1, STRING, repeated=True)
        original_func_names = Field(2, STRING, repeated=True)

    name = Field(1, STRING)
    op = Field(2, STRING)
    input = Field(3, STRING, repeated=True)
    device = Field(4, STRING)
    attr = MapField(5, STRING, AttrValue)
    experimental_debug_info = Field(6, ExperimentalDebugInfo)


class GraphDef(Message):
    """tensorflow/core/framework/graph.proto (the function library is kept as unknown bytes)."""
    node = Field(1, NodeDef, repeated=True)
    version = Field(3, INT32)
    versions = Field(4, VersionDef)


class OpDef(Message):
    """tensorflow/core/framework/op_def.proto: an op's signature (read from stripped_op_list)."""

    class ArgDef(Message):
        """One input or output: a fixed type, a type attr, a number attr or a type-list attr."""
        name = Field(1, STRING)
        description = Field(2, STRING)
        type = Field(3, DataType)
        type_attr = Field(4, STRING)
        number_attr = Field(5, STRING)
        type_list_attr = Field(6, STRING)
        is_ref = Field(16, BOOL)

    class AttrDef(Message):
        """One attr: name, type name, default and constraints."""
        name = Field(1, STRING)
        type = Field(2, STRING)
        default_value = Field(3, AttrValue)
        description = Field(4, STRING)
        has_minimum = Field(5, BOOL)
        minimum = Field(6, INT64)
        allowed_values = Field(7, AttrValue)

    class OpDeprecation(Message):
        """Since which GraphDef version an op is deprecated."""
        version = Field(1, INT32)
        explanation = Field(2, STRING)

    name = Field(1, STRING)
    input_arg = Field(2, ArgDef, repeated=True)
    output_arg = Field(3, ArgDef, repeated=True)
    attr = Field(4, AttrDef, repeated=True)
    summary = Field(5, STRING)
    description = Field(6, STRING)
    deprecation = Field(8, OpDeprecation)
    is_aggregate = Field(16, BOOL)
    is_stateful = Field(17, BOOL)
    is_commutative = Field(18, BOOL)
    allows_uninitialized_input = Field(19, BOOL)
    control_output = Field(20, STRING, repeated=True)
    is_distributed_communication = Field(21, BOOL)


class OpList(Message):
    """tensorflow/core/framework/op_def.proto: a list of OpDefs."""
    op = Field(1, OpDef, repeated=True)


class SaveSliceInfoDef(Message):
    """tensorflow/core/framework/variable.proto: where a partition sits in its full variable."""
    full_name = Field(1, STRING)
    full_shape = Field(2, INT64, repeated=True)
    var_offset = Field(3, INT64, repeated=True)
    var_shape = Field(4, INT64, repeated=True)


class VariableDef(Message):
    """tensorflow/core/framework/variable.proto: a Variable's op and tensor names."""
    variable_name = Field(1, STRING)
    initializer_name = Field(2, STRING)
    snapshot_name = Field(3, STRING)
    save_slice_info_def = Field(4, SaveSliceInfoDef)
    is_resource = Field(5, BOOL)
    initial_value_name = Field(6, STRING)
    trainable = Field(7, BOOL)
    synchronization = Field(8, enum("VariableSynchronization", {
        "VARIABLE_SYNCHRONIZATION_AUTO": 0, "VARIABLE_SYNCHRONIZATION_NONE": 1,
        "VARIABLE_SYNCHRONIZATION_ON_WRITE": 2, "VARIABLE_SYNCHRONIZATION_ON_READ": 3}))
    aggregation = Field(9, enum("VariableAggregation", {
        "VARIABLE_AGGREGATION_NONE": 0, "VARIABLE_AGGREGATION_SUM": 1, "VARIABLE_AGGREGATION_MEAN": 2,
        "VARIABLE_AGGREGATION_ONLY_FIRST_REPLICA": 3}))

    @classmethod
    def _of_fields(cls, values: dict) -> "VariableDef":
        """A VariableDef holding ``values`` (set fields only, each already of its field's type), made as
        ``Message.from_bytes`` makes messages: every .meta export converts each of a graph's variables, and
        keyword construction costs a descriptor call per field."""
        message = cls.__new__(cls)
        object.__setattr__(message, "_values", values)
        object.__setattr__(message, "_unknown", [])
        return message


# ------------------------------------------------------------------------------------- tensors and shapes

# dtype name -> the TensorProto field holding its values when not in tensor_content (tensor_util.py).
_VAL_FIELD = {
    "float32": "float_val", "float64": "double_val", "int32": "int_val", "uint8": "int_val", "int16": "int_val",
    "int8": "int_val", "uint16": "int_val", "int4": "int_val", "uint4": "int_val", "qint8": "int_val",
    "quint8": "int_val", "qint16": "int_val", "quint16": "int_val", "qint32": "int_val", "int64": "int64_val",
    "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val", "float16": "half_val",
    "bfloat16": "half_val", "complex64": "scomplex_val", "complex128": "dcomplex_val", "string": "string_val",
}


def shape_proto_of(shape) -> TensorShapeProto:
    """A TensorShape (or list of ints / None) as a TensorShapeProto; unknown dims are -1."""
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.ndims is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else d) for d in shape.as_list()])


def tensor_shape_of(proto: TensorShapeProto) -> TensorShape:
    """A TensorShapeProto as a TensorShape (-1 -> unknown dimension)."""
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


def _plain_values(dtype: dtypes_lib.DType, flat: np.ndarray) -> list:
    name = dtype.name
    if name == "string":
        return [item.encode("utf-8") if isinstance(item, str) else bytes(item) for item in flat]
    if name in ("float16", "bfloat16"):
        return flat.view(np.uint16).astype(np.int64).tolist()
    if name in ("complex64", "complex128"):
        return np.stack([flat.real, flat.imag], axis=-1).reshape(-1).tolist()
    if dtype.is_quantized:
        return flat[flat.dtype.names[0]].astype(np.int64).tolist()
    if name in ("int4", "uint4"):
        return flat.astype(np.int64).tolist()
    return flat.tolist()


def tensor_proto_of(value, dtype=None) -> TensorProto:
    """An ndarray as a TensorProto, as tensor_util.make_tensor_proto writes it.

    Several elements go in ``tensor_content``, except that a tensor whose elements are all the
    same is written as one value that TensorFlow repeats (as ``tf.zeros`` / ``tf.fill`` constants
    are), so big uniform constants stay small.  Strings go in ``string_val``.

    Raises:
        TypeError: for resource/variant tensors or an array that fits no TensorFlow dtype.
    """
    array = np.asarray(value)
    dtype = dtypes_lib.as_dtype(dtype if dtype is not None else array.dtype).base_dtype
    proto = TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=shape_proto_of(list(array.shape)))
    if dtype.name not in _VAL_FIELD and not dtype.name.startswith("float8"):
        raise TypeError(f"Cannot write a {dtype.name} tensor into a TensorProto.")
    flat = array.reshape(-1)
    if flat.size == 0:
        return proto
    if dtype.name == "string":
        proto.string_val = _plain_values(dtype, flat)
        return proto
    if flat.dtype != dtype.numpy_dtype:
        flat = flat.astype(dtype.numpy_dtype)
    if flat.size > 1:
        raw = np.ascontiguousarray(flat).view(np.uint8).reshape(flat.size, -1)
        if not (raw == raw[0]).all():
            little = flat.astype(flat.dtype.newbyteorder("<")) if flat.dtype.byteorder == ">" else flat
            proto.tensor_content = np.ascontiguousarray(little).tobytes()
            return proto
        flat = flat[:1]
    if dtype.name.startswith("float8"):
        proto.float8_val = flat.tobytes()
    else:
        setattr(proto, _VAL_FIELD[dtype.name], _plain_values(dtype, flat))
    return proto


def ndarray_of(proto: TensorProto) -> np.ndarray:
    """A TensorProto's value as an ndarray (tensor_util.MakeNdarray; short value lists repeat their last value).

    Raises:
        TypeError: for resource/variant tensors.
        ValueError: when ``tensor_content`` has the wrong size.
    """
    dtype = dtypes_lib.as_dtype(proto.dtype).base_dtype
    shape = tuple(proto.tensor_shape.to_shape()) if proto.tensor_shape is not None else ()
    count = int(np.prod(shape, dtype=np.int64))
    if dtype.name in ("resource", "variant") or dtype.numpy_dtype is None:
        raise TypeError(f"Cannot convert a {dtype.name} TensorProto to a numpy array.")
    np_dtype = dtype.numpy_dtype
    if proto.tensor_content:
        if len(proto.tensor_content) != count * np_dtype.itemsize:
            raise ValueError(f"TensorProto of {dtype.name}{list(shape)} has {len(proto.tensor_content)} bytes "
                             f"of tensor_content, expected {count * np_dtype.itemsize}")
        return np.frombuffer(proto.tensor_content, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)
    if dtype.name == "string":
        values = list(proto.string_val)
        if len(values) < count:
            values += [values[-1] if values else b""] * (count - len(values))
        out = np.empty(count, dtype=object)
        out[:] = values[:count] if count else []
        return out.reshape(shape)
    if dtype.name.startswith("float8"):
        values = np.frombuffer(proto.float8_val or b"", dtype=np_dtype)
    else:
        raw = getattr(proto, _VAL_FIELD[dtype.name])
        if dtype.name in ("float16", "bfloat16"):
            values = np.array(raw, dtype=np.uint16).view(np_dtype)
        elif dtype.name in ("complex64", "complex128"):
            pairs = np.array(raw, dtype=np.float64).reshape(-1, 2)
            values = (pairs[:, 0] + 1j * pairs[:, 1]).astype(np_dtype)
        elif dtype.is_quantized:
            values = np.array([(v,) for v in raw], dtype=np_dtype)
        else:
            values = np.array(raw).astype(np_dtype)
    if values.size == 0:
        return np.zeros(shape, dtype=np_dtype)
    if values.size < count:
        values = np.concatenate([values, np.repeat(values[-1:], count - values.size)])
    return values[:count].reshape(shape)


# ------------------------------------------------------------------------------------- attrs


def attr_value_of(value) -> AttrValue:
    """One of our Python attr values as an AttrValue.

    DType -> type, TensorShape -> shape, ndarray -> tensor, bool -> b, int -> i, float -> f,
    bytes/str -> s, list/tuple -> list (element kind from the first element), AttrValue as is.

    Raises:
        TypeError: for a value no AttrValue field can hold.
    """
    if isinstance(value, AttrValue):
        return value
    if isinstance(value, dtypes_lib.DType):
        return AttrValue(type=value.as_datatype_enum)
    if isinstance(value, TensorShape):
        return AttrValue(shape=shape_proto_of(value))
    if isinstance(value, (bool, np.bool_)):
        return AttrValue(b=bool(value))
    if isinstance(value, (int, np.integer)):
        return AttrValue(i=int(value))
    if isinstance(value, (float, np.floating)):
        return AttrValue(f=float(value))
    if isinstance(value, str):
        return AttrValue(s=value.encode("utf-8"))
    if isinstance(value, (bytes, bytearray)):
        return AttrValue(s=bytes(value))
    if isinstance(value, np.ndarray):
        return AttrValue(tensor=tensor_proto_of(value))
    if isinstance(value, TensorProto):
        return AttrValue(tensor=value)
    if isinstance(value, TensorShapeProto):
        return AttrValue(shape=value)
    if isinstance(value, NameAttrList):
        return AttrValue(func=value)
    if isinstance(value, (list, tuple)):
        items = [attr_value_of(item) for item in value]
        listed = AttrValue.ListValue()
        kinds = {item.which_oneof("value") for item in items}
        if len(kinds) > 1 or "list" in kinds:
            raise TypeError(f"A list attr must hold one kind of value, got {sorted(map(str, kinds))}: {value!r}")
        if items:
            kind = kinds.pop()
            setattr(listed, kind, [getattr(item, kind) for item in items])
        return AttrValue(list=listed)
    raise TypeError(f"Cannot write attr value {value!r} of type {type(value).__name__} into an AttrValue.")


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def python_value_of(attr: AttrValue):
    """An AttrValue as our Python attr value (the inverse of attr_value_of).

    A scalar ``s`` becomes str when it is valid UTF-8 (bytes otherwise); list ``s`` items stay
    bytes (``_class`` holds ``b"loc:@name"``).  func and placeholder values are kept as AttrValue.
    """
    kind = attr.which_oneof("value")
    if kind is None or kind in ("func", "placeholder"):
        return attr
    value = getattr(attr, kind)
    if kind == "s":
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value
    if kind == "type":
        return dtypes_lib.as_dtype(value)
    if kind == "shape":
        return tensor_shape_of(value)
    if kind == "tensor":
        return _frozen(ndarray_of(value))
    if kind != "list":
        return value
    for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
        items = getattr(value, field)
        if not items:
            continue
        if field == "type":
            return [dtypes_lib.as_dtype(item) for item in items]
        if field == "shape":
            return [tensor_shape_of(item) for item in items]
        if field == "tensor":
            return [_frozen(ndarray_of(item)) for item in items]
        if field == "func":
            return attr
        return list(items)
    return []


# ------------------------------------------------------------------------------------- export


# Encoded attr map entries, keyed by (attr name, value key): most attrs repeat across a graph
# (T: DT_FLOAT, validate_shape: true, the same shapes), so a big graph encodes each only once.
_ENTRY_CACHE: dict[tuple, bytes] = {}
_ENTRY_CACHE_LIMIT = 200_000
_ENTRY_CACHE_BYTES = 64 << 20  # and at most about this many bytes of entries (keys of tensors hold their data)
_cache_size = [0]
_NODE_ATTR_TAG = b"\x2a"  # NodeDef field 5 (attr), wire type 2
_SMALL_TENSOR = 64  # constants with at most this many elements are cached by value
_CACHED_TENSOR_BYTES = 1024  # numeric constants up to this size are cached by value (tf.zeros([100]) repeats)
_VARINT_1 = [bytes((i,)) for i in range(128)]  # one-byte varints, the length of most fields


def _value_key(value):
    """A hashable key that identifies ``value``'s encoding, or None when it should not be cached."""
    kind = type(value)
    if kind is dtypes_lib.DType:
        return ("t", value.as_datatype_enum)
    if kind is TensorShape:
        return ("shape", None if value.ndims is None else tuple(value.as_list()))
    if kind is bool or kind is int or kind is str or kind is bytes:
        return (kind.__name__, value)
    if kind is float:
        return ("f", np.float32(value).tobytes())
    if kind is list or kind is tuple:
        keys = tuple(_value_key(item) for item in value)
        return None if None in keys else ("list", keys)
    if kind is np.ndarray:
        if value.dtype == object:  # small string constants repeat (names, shape specs)
            return ("nd", "O", value.shape, tuple(value.reshape(-1).tolist())) if value.size <= _SMALL_TENSOR \
                else None
        if value.nbytes <= _CACHED_TENSOR_BYTES:  # small numeric constants repeat (zeros, shapes, scalars)
            return ("nd", value.dtype.str, value.shape, value.tobytes())
    return None


def _length_delimited(tag: bytes, body: bytes) -> bytes:
    size = len(body)
    return tag + (_VARINT_1[size] if size < 128 else encode_varint(size)) + body


def _attr_entry(name: str, value) -> bytes:
    """The wire bytes of one NodeDef attr map entry (field 5: {1: name, 2: AttrValue})."""
    key = _value_key(value)
    if key is not None:
        cache_key = (name, key)
        entry = _ENTRY_CACHE.get(cache_key)
        if entry is not None:
            return entry
    body = _length_delimited(b"\x0a", name.encode("utf-8")) + _length_delimited(b"\x12", attr_value_of(value).to_bytes())
    entry = _length_delimited(_NODE_ATTR_TAG, body)
    if key is not None:
        _remember(cache_key, entry)
    return entry


def _remember(cache_key, entry: bytes) -> None:
    _cache_size[0] += 2 * len(entry)
    if len(_ENTRY_CACHE) >= _ENTRY_CACHE_LIMIT or _cache_size[0] > _ENTRY_CACHE_BYTES:
        _ENTRY_CACHE.clear()
        _cache_size[0] = 2 * len(entry)
    _ENTRY_CACHE[cache_key] = entry


def _dims_key(shape: TensorShape):
    """The dimension sizes of ``shape`` as a tuple (None for unknown rank): its encoding's identity."""
    dims = shape._dims
    return None if dims is None else tuple([d._value for d in dims])


def _shape_proto_body(dims) -> bytes:
    """TensorShapeProto bytes of a dims key (as shape_proto_of(...).to_bytes(): -1 for unknown sizes)."""
    if dims is None:
        return b"\x18\x01"  # unknown_rank: true
    out = []
    for size in dims:
        if size is None:
            out.append(b"\x12\x0b\x08" + encode_varint(-1))
        elif size == 0:
            out.append(b"\x12\x00")  # a Dim with every field default is empty
        else:
            out.append(_length_delimited(b"\x12", b"\x08" + encode_varint(size)))
    return b"".join(out)


def _entry_bytes(name: str, attr_value: bytes) -> bytes:
    body = _length_delimited(b"\x0a", name.encode("utf-8")) + _length_delimited(b"\x12", attr_value)
    return _length_delimited(_NODE_ATTR_TAG, body)


def _dtype_entry(name: str, value) -> bytes:
    cache_key = (name, "t", value._enum)
    entry = _ENTRY_CACHE.get(cache_key)
    if entry is None:
        entry = _entry_bytes(name, b"\x30" + encode_varint(value.as_datatype_enum))
        _remember(cache_key, entry)
    return entry


def _shape_entry(name: str, value) -> bytes:
    dims = _dims_key(value)
    cache_key = (name, "s", dims)
    entry = _ENTRY_CACHE.get(cache_key)
    if entry is None:
        entry = _entry_bytes(name, _length_delimited(b"\x3a", _shape_proto_body(dims)))
        _remember(cache_key, entry)
    return entry


def _output_shapes_entry(outputs) -> bytes:
    """The ``_output_shapes`` entry of an op's outputs: AttrValue{list{shape*}}."""
    dims = tuple([_dims_key(tensor._shape) for tensor in outputs])
    cache_key = (_OUTPUT_SHAPES, "ls", dims)
    entry = _ENTRY_CACHE.get(cache_key)
    if entry is None:
        listed = b"".join([_length_delimited(b"\x3a", _shape_proto_body(d)) for d in dims])
        entry = _entry_bytes(_OUTPUT_SHAPES, _length_delimited(b"\x0a", listed))
        _remember(cache_key, entry)
    return entry


def _scalar_entry(name: str, value) -> bytes:
    cache_key = (name, type(value), value)
    entry = _ENTRY_CACHE.get(cache_key)
    if entry is None:
        entry = _attr_entry(name, value)
        _remember(cache_key, entry)
    return entry


def _list_entry(name: str, value) -> bytes:
    if not value:
        return _attr_entry(name, value)
    kind = type(value[0])
    if kind is bytes and all(type(item) is bytes for item in value):  # _class colocation groups: one per op
        listed = b"".join([_length_delimited(b"\x12", item) for item in value])
        return _entry_bytes(name, _length_delimited(b"\x0a", listed))
    if kind is dtypes_lib.DType and all(type(item) is dtypes_lib.DType for item in value):  # SaveV2 dtypes
        packed = b"".join([encode_varint(item.as_datatype_enum) for item in value])
        return _entry_bytes(name, _length_delimited(b"\x0a", _length_delimited(b"\x32", packed)))
    return _attr_entry(name, value)


# type -> encoder of one attr entry; other types take the general path (_attr_entry).
_ENTRY_ENCODERS = {dtypes_lib.DType: _dtype_entry, TensorShape: _shape_entry, bool: _scalar_entry,
                   int: _scalar_entry, str: _scalar_entry, bytes: _scalar_entry, list: _list_entry}


def _string_field(tag: bytes, text: str) -> bytes:
    return _length_delimited(tag, text.encode("utf-8")) if text else b""


_TYPE_FIELDS: dict[str, bytes] = {}  # op type -> its encoded NodeDef field 2
_UNSET = object()  # an attr the op does not set and its kernel gives no default for
# (op type, id(kernel), the op's attr names, add_shapes) -> (kernel, [(attr name, kernel default or _UNSET)]
# in NodeDef order: sorted by name, _output_shapes included when add_shapes): ops of a type share their names.
_LAYOUTS: dict[tuple, tuple] = {}


def _attr_layout(key: tuple, kernel, names: tuple, add_shapes: bool) -> list:
    defaults = dict(kernel.default_attrs) if kernel is not None else {}
    every = set(names) | set(defaults)
    if add_shapes:
        every.add(_OUTPUT_SHAPES)
    layout = [(name, defaults.get(name, _UNSET)) for name in sorted(every)]
    if len(_LAYOUTS) > 10_000:  # graphs with ever-new attr names: keep the table bounded
        _LAYOUTS.clear()
    _LAYOUTS[key] = (kernel, layout)
    return layout


def _node_def_bytes(op, add_shapes: bool, defaults_of=None) -> bytes:
    """The NodeDef wire bytes of ``op`` (see node_def_of), from the op's cache when nothing changed since.

    ``op._encoded`` holds (kernel, bytes) per ``add_shapes``: the Operation methods that change an op
    reset it, and a kernel registered or replaced since (its default attrs) is noticed here."""
    del defaults_of  # kept for callers; the layouts table replaced it
    kernel = _kernel_registry.get(op._type)
    encoded = op._encoded
    if encoded is not None:
        cached = encoded[add_shapes]
        if cached is not None and cached[0] is kernel:
            return cached[1]
    data = _encode_node_def(op, kernel, add_shapes)
    if encoded is None:
        encoded = op._encoded = [None, None]
    encoded[add_shapes] = (kernel, data)
    return data


def _encode_node_def(op, kernel, add_shapes: bool) -> bytes:
    attrs = op._attrs
    op_type = op._type
    name_bytes = op._name.encode("utf-8")
    type_field = _TYPE_FIELDS.get(op_type)
    if type_field is None:
        type_field = _TYPE_FIELDS[op_type] = _string_field(b"\x12", op_type)
    out = [b"\x0a", _VARINT_1[len(name_bytes)] if len(name_bytes) < 128 else encode_varint(len(name_bytes)),
           name_bytes, type_field]
    for tensor in op._inputs:
        index = tensor._value_index
        source = (tensor._op._name if index == 0 else f"{tensor._op._name}:{index}").encode("utf-8")
        size = len(source)
        out += (b"\x1a", _VARINT_1[size] if size < 128 else encode_varint(size), source)
    for control in op._control_inputs:
        out.append(_length_delimited(b"\x1a", ("^" + control._name).encode("utf-8")))
    if op._device:
        out.append(_string_field(b"\x22", op._device))
    add_shapes = add_shapes and bool(op._outputs)  # an op without outputs gets no _output_shapes
    if not attrs and not add_shapes and (kernel is None or not kernel.default_attrs):
        return b"".join(out)
    names = tuple(attrs)
    key = (op_type, id(kernel), names, add_shapes)
    entry = _LAYOUTS.get(key)
    layout = entry[1] if entry is not None and entry[0] is kernel else _attr_layout(key, kernel, names, add_shapes)
    encoders = _ENTRY_ENCODERS
    for name, default in layout:
        if add_shapes and name == _OUTPUT_SHAPES:
            out.append(_output_shapes_entry(op._outputs))
            continue
        value = attrs.get(name, default)
        if value is None or value is _UNSET:  # an unset optional attr: TF has no null AttrValue
            continue
        encoder = encoders.get(type(value))
        try:
            out.append(encoder(name, value) if encoder is not None else _attr_entry(name, value))
        except TypeError as error:
            if name.startswith("_"):  # this emulator's private bookkeeping (TF ignores unknown '_' attrs too)
                continue
            raise TypeError(f"Op '{op._name}' ({op._type}): attr '{name}': {error}") from error
    return b"".join(out)


def node_def_of(op, add_shapes: bool = False) -> NodeDef:
    """``op`` as a NodeDef: TF's op type, inputs ('^name' for control inputs), device and every attr
    (sorted by name), with the defaults its kernel registers for attrs the op does not set;
    ``add_shapes`` adds ``_output_shapes``.  None-valued attrs and private ('_') attrs holding
    Python objects no AttrValue can hold are left out.

    Raises:
        TypeError: naming the op and attr when an attr value cannot be written.
    """
    return NodeDef.from_bytes(_node_def_bytes(op, add_shapes))


def graph_def_bytes(graph, add_shapes: bool = False) -> bytes:
    """``graph`` as serialized GraphDef bytes, nodes in creation order (the fast path of graph_def_of)."""
    defaults_of: dict = {}
    out = [_length_delimited(b"\x0a", _node_def_bytes(op, add_shapes, defaults_of)) for op in graph.get_operations()]
    out.append(_length_delimited(b"\x22", VersionDef(producer=GRAPH_DEF_VERSION).to_bytes()))
    return b"".join(out)


class _EncodedGraphDef(GraphDef):
    """A GraphDef kept as its wire bytes until a field is read, so exporting a big graph never builds
    one Message per node and attr (TF's 10,000-variable .meta holds ~1.5 million of them)."""

    def __init__(self, data: bytes):  # noqa: D107 - deliberately skips Message.__init__
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_decoded", None)

    def _decode(self) -> GraphDef:
        if self._decoded is None:
            object.__setattr__(self, "_decoded", GraphDef.from_bytes(self._data))
        return self._decoded

    @property
    def _values(self):  # every field read or write goes through here: decode once, on first use
        return self._decode()._values

    @property
    def _unknown(self):
        return self._decode()._unknown

    def to_bytes(self, deterministic: bool = False) -> bytes:
        """The wire bytes (as encoded, while no field was touched)."""
        return self._data if self._decoded is None else self._decoded.to_bytes(deterministic)


def graph_def_of(graph, add_shapes: bool = False) -> GraphDef:
    """``graph`` as a GraphDef, nodes in creation order (Graph.as_graph_def); decoded lazily."""
    return _EncodedGraphDef(graph_def_bytes(graph, add_shapes))


def __getattr__(name: str):
    """``import_graph_def`` lives in graph/graph_import.py (which imports this module); re-exported lazily."""
    if name == "import_graph_def":
        from graph.io.graph_import import import_graph_def
        return import_graph_def
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
