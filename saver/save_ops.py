"""Checkpoint I/O ops: SaveV2, RestoreV2, MergeV2Checkpoints and the string ops of the sharded save graph.

Each op is built with TensorFlow's op type, input order, attrs and name structure (the list inputs
``tensor_names`` / ``shape_and_slices`` become ``<op>/tensor_names`` Consts, as TF's op wrappers do)
and its kernel is registered into ``graph.kernels``, so a Saver's ``save/...`` ops really read and
write files when a Session runs them:

    SaveV2(prefix, tensor_names[N], shape_and_slices[N], tensors...; dtypes)  -> bundle.BundleWriter
    RestoreV2(prefix, tensor_names[N], shape_and_slices[N]; dtypes)          -> N tensors (V2 or V1 files)
    MergeV2Checkpoints(checkpoint_prefixes[K], destination_prefix; delete_old_dirs, allow_missing_files)
    SaveSlices / Save (V1), ShardedFilename, ShardedFilespec, StringJoin, StaticRegexFullMatch

Kernels stream: SaveV2 hands the session's variable arrays straight to the bundle writer (no copy),
RestoreV2 reads each tensor straight into a new :class:`RestoredArray` that an ``Assign`` consuming it
alone may adopt instead of copying.
"""

from __future__ import annotations

import os
import re

import numpy as np

from graph import dtypes as dtypes_lib
from graph import errors, kernels
from graph import graph as graph_lib
from graph.graph import Tensor, convert_to_tensor
from graph.shapes import TensorShape

__all__ = [
    "save_v2", "restore_v2", "merge_v2_checkpoints", "save_slices", "sharded_filename",
    "sharded_filespec", "string_join", "static_regex_full_match", "select", "reshape", "pack",
    "RestoredArray", "PendingRead", "read_tensors",
]


class RestoredArray(np.ndarray):
    """A freshly read checkpoint tensor owned by nobody else: a consuming Assign may adopt it."""

    _adoptable = True


class PendingRead:
    """A RestoreV2 output whose bytes are read only when a consumer converts it (``np.asarray``).

    RestoreV2 checks every key, dtype and shape against the index up front; the data of an output
    consumed by a single Assign is read when that Assign converts it, straight into a new array that
    numpy (``np.array(x, copy=True)`` trusts a fresh ``__array__`` result) makes the variable's value:
    restoring a model never holds a second copy of it.
    """

    __slots__ = ("_reader", "_name", "_slice", "shape", "dtype")

    def __init__(self, reader, name: str, tensor_slice, shape, numpy_dtype):
        self._reader = reader
        self._name = name
        self._slice = tensor_slice
        self.shape = tuple(shape)
        self.dtype = numpy_dtype

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    def read(self) -> np.ndarray:
        """Reads the tensor (or its slice) into a new array."""
        out = np.empty(self.shape, self.dtype).view(RestoredArray)
        if self._slice is None:
            return self._reader.lookup(self._name, out=out)
        return self._reader.lookup_slice(self._name, self._slice, out=out)

    def __array__(self, dtype=None, copy=None):
        value = self.read()
        if dtype is not None and value.dtype != dtype:
            value = value.astype(dtype)
        return value

    def __repr__(self) -> str:
        return f"PendingRead({self._name!r}, shape={list(self.shape)}, dtype={self.dtype})"


# ----------------------------------------------------------------- value helpers
def _as_text(value) -> str:
    """A scalar string tensor value (0-d object array of bytes, bytes or str) as str."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise errors.InvalidArgumentError(f"Expected a scalar string, got shape {list(value.shape)}")
        value = value.reshape(-1)[0]
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


def _as_texts(value) -> list[str]:
    array = np.asarray(value, dtype=object).reshape(-1)
    return [_as_text(item) for item in array]


def _string_scalar(text: str) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = text.encode("utf-8", "surrogateescape")
    return out


def _const(values, dtype, name: str) -> Tensor:
    from graph import ops
    return ops.constant(values, dtype=dtype, name=name)


def _string_vector(items, name: str) -> Tensor:
    array = np.empty(len(items), dtype=object)
    array[:] = [item.encode("utf-8", "surrogateescape") if isinstance(item, str) else bytes(item) for item in items]
    return _const(array, dtypes_lib.string, name)


def _graph_of(*values):
    for value in values:
        if isinstance(value, Tensor):
            return value.graph
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, Tensor):
                    return item.graph
    return graph_lib.get_default_graph()


def _string_input(value, name: str) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (list, tuple)):
        return _string_vector(value, name)
    return _const(value, dtypes_lib.string, name)


def _slice_shape(spec: str):
    """The static shape of a restored slice ``"7 2 0,3:0,2"`` -> [3, 2]; None for '' (unknown)."""
    if not spec:
        return None
    from saver.coding import parse_shape_and_slice
    shape, tensor_slice = parse_shape_and_slice(spec)
    return list(tensor_slice.slice_shape(shape))


# ----------------------------------------------------------------- SaveV2
def _compute_save_v2(ctx, op, inputs):
    prefix = _as_text(inputs[0])
    names = _as_texts(inputs[1])
    specs = _as_texts(inputs[2])
    tensors = inputs[3:]
    if not (len(names) == len(specs) == len(tensors)):
        raise errors.InvalidArgumentError(
            None, op, f"Expected {len(tensors)} tensor names and shape-and-slices, got {len(names)} and "
            f"{len(specs)}")
    save_tensors(prefix, names, specs, tensors, op._attrs["dtypes"], op)
    return []


def save_tensors(prefix: str, names, specs, tensors, dtypes=None, op=None) -> None:
    """Writes one V2 bundle ``prefix`` from parallel lists (what the SaveV2 kernel does)."""
    from saver.bundle import BundleWriter
    from saver.coding import parse_shape_and_slice
    with BundleWriter(prefix) as writer:
        for index, (name, spec, value) in enumerate(zip(names, specs, tensors)):
            dtype = dtypes[index] if dtypes is not None else None
            if spec:
                shape, tensor_slice = parse_shape_and_slice(spec)
                writer.add_slice(name, shape, tensor_slice, value, dtype)
            else:
                writer.add(name, value, dtype)


def _infer_none(op):
    return []


kernels.register("SaveV2", infer=_infer_none, compute=_compute_save_v2, stateful=True)


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name: str | None = None):
    """A ``SaveV2`` op saving ``tensors`` under ``tensor_names`` into the V2 bundle ``prefix``."""
    graph = _graph_of(prefix, tensors)
    with graph.as_default(), graph.name_scope(name or "SaveV2") as scope:
        prefix = convert_to_tensor(prefix, dtype=dtypes_lib.string)
        names = _string_input(tensor_names, "tensor_names")
        slices = _string_input(shape_and_slices, "shape_and_slices")
        values = [convert_to_tensor(t) for t in tensors]
        attrs = {"dtypes": [v.dtype.base_dtype for v in values]}
        return graph.create_op("SaveV2", [prefix, names, slices] + values, [], name=scope, attrs=attrs)


# ----------------------------------------------------------------- SaveSlices / Save (V1)
def _compute_save_slices(ctx, op, inputs):
    from saver.bundle import Slice
    from saver.v1 import write_v1_checkpoint
    from saver.coding import parse_shape_and_slice
    filename = _as_text(inputs[0])
    names = _as_texts(inputs[1])
    if op.type == "SaveSlices":
        specs = _as_texts(inputs[2])
        tensors = inputs[3:]
    else:
        specs = [""] * len(names)
        tensors = inputs[2:]
    contents: dict = {}
    for name, spec, value in zip(names, specs, tensors):
        value = np.asarray(value)
        if spec:
            shape, tensor_slice = parse_shape_and_slice(spec)
            contents.setdefault(name, []).append(Slice(tuple(shape), tensor_slice, value))
        else:
            if name in contents:
                raise errors.InvalidArgumentError(None, op, f"Duplicate tensor name {name} in a V1 save")
            contents[name] = value
    directory = os.path.dirname(filename)
    if directory and not os.path.isdir(directory):
        try:
            os.mkdir(directory)
        except FileNotFoundError as error:
            raise errors.NotFoundError(None, op, f"Failed to create a directory: {directory}; No such file or "
                                       "directory") from error
    write_v1_checkpoint(filename, contents)
    return []


kernels.register("SaveSlices", infer=_infer_none, compute=_compute_save_slices, stateful=True)
kernels.register("Save", infer=_infer_none, compute=_compute_save_slices, stateful=True)


def save_slices(filename, tensor_names, shapes_and_slices, tensors, name: str | None = None):
    """A V1 ``SaveSlices`` op (io_ops._save with slices) writing one V1 table file."""
    graph = _graph_of(filename, tensors)
    with graph.as_default(), graph.name_scope(name or "save") as scope:
        filename = convert_to_tensor(filename, dtype=dtypes_lib.string)
        names = _string_input(tensor_names, "tensor_names")
        slices = _string_input(shapes_and_slices, "shapes_and_slices")
        values = [convert_to_tensor(t) for t in tensors]
        attrs = {"T": [v.dtype.base_dtype for v in values]}
        return graph.create_op("SaveSlices", [filename, names, slices] + values, [], name=scope, attrs=attrs)


# ----------------------------------------------------------------- RestoreV2
_PRIME_THRESHOLD = 64  # names per RestoreV2 above which the whole index is decoded in one pass


def _open_reader(prefix: str, op=None):
    """A V2 BundleReader if ``<prefix>.index`` exists, else a V1 reader (as RestoreV2 falls back)."""
    from saver.bundle import BundleReader, index_filename
    if os.path.exists(index_filename(prefix)):
        return BundleReader(prefix)
    from saver.v1 import V1Reader
    return V1Reader(prefix)


def _dtype_error(name: str, expected, found, op=None):
    return errors.InvalidArgumentError(
        None, op, f"tensor_name = {name}; expected dtype {expected.message_name} does not equal original dtype "
        f"{found.message_name}")


def read_tensors(prefix: str, names, specs, dtypes, op=None, deferred=None) -> list[np.ndarray]:
    """Reads ``names`` (each the whole tensor or its ``specs`` slice) from a V2 or V1 checkpoint.

    ``deferred[i]`` true returns a :class:`PendingRead` for a numeric V2 tensor instead of its data.

    Raises:
        NotFoundError: for a missing checkpoint or key (naming the closest keys present).
        InvalidArgumentError: for a dtype that differs from the stored one.
    """
    from saver.bundle import BundleReader
    from saver.coding import parse_shape_and_slice
    reader = _open_reader(prefix, op)
    results = []
    pending = False
    try:
        is_v2 = isinstance(reader, BundleReader)
        if is_v2 and len(names) >= _PRIME_THRESHOLD and hasattr(reader, "records"):
            for _ in reader.records():  # one sequential pass over the index beats one search per key
                pass
        for name, spec, dtype in zip(names, specs, dtypes):
            dtype = dtypes_lib.as_dtype(dtype).base_dtype
            if is_v2:
                stored_dtype, stored_shape = reader.lookup_dtype_and_shape(name)
            else:
                if name not in reader:
                    raise _v1_not_found(reader, name)
                stored_dtype, stored_shape = reader.dtype_and_shape(name)
            if stored_dtype != dtype:
                raise _dtype_error(name, dtype, stored_dtype, op)
            tensor_slice = None
            if spec:
                shape, tensor_slice = parse_shape_and_slice(spec)
                if tuple(shape) != tuple(stored_shape):
                    raise errors.InvalidArgumentError(
                        None, op, f"tensor_name = {name}; shape in shape_and_slice spec {shape} does not match "
                        f"the shape stored in checkpoint: {list(stored_shape)}")
            if deferred is not None and deferred[len(results)] and is_v2 and dtype.numpy_dtype.kind != "O":
                shape = stored_shape if tensor_slice is None else tensor_slice.slice_shape(stored_shape)
                results.append(PendingRead(reader, name, tensor_slice, shape, dtype.numpy_dtype))
                pending = True
            else:
                results.append(_read_one(reader, is_v2, name, tensor_slice, stored_shape, dtype))
    finally:
        close = getattr(reader, "close", None)
        if close is not None and not pending:
            close()  # else the PendingReads hold the reader; it closes its files when collected
    return results


def _read_one(reader, is_v2: bool, name: str, tensor_slice, stored_shape, dtype) -> np.ndarray:
    numeric = dtype.numpy_dtype.kind != "O"
    if is_v2:
        if tensor_slice is None:
            if numeric:
                out = np.empty(stored_shape, dtype.numpy_dtype).view(RestoredArray)
                return reader.lookup(name, out=out)
            return reader.lookup(name)
        if numeric:
            out = np.empty(tensor_slice.slice_shape(stored_shape), dtype.numpy_dtype).view(RestoredArray)
            return reader.lookup_slice(name, tensor_slice, out=out)
        return reader.lookup_slice(name, tensor_slice)
    value = reader.get_tensor(name, tensor_slice)
    return value.view(RestoredArray) if numeric and type(value) is np.ndarray else value


def _v1_not_found(reader, name: str):
    import difflib
    close = difflib.get_close_matches(name, reader.keys(), n=5, cutoff=0.5)
    hint = f" Closest keys present: {', '.join(close)}." if close else ""
    return errors.NotFoundError(f"Key {name} not found in checkpoint {reader.pattern}.{hint}")


def _compute_restore_v2(ctx, op, inputs):
    prefix = _as_text(inputs[0])
    names = _as_texts(inputs[1])
    specs = _as_texts(inputs[2])
    dtypes = op._attrs["dtypes"]
    if not (len(names) == len(specs) == len(dtypes)):
        raise errors.InvalidArgumentError(
            None, op, f"RestoreV2 got {len(names)} tensor names, {len(specs)} shape-and-slices and "
            f"{len(dtypes)} dtypes")
    deferred = [len(t._consumers) == 1 and t._consumers[0]._type == "Assign" for t in op._outputs]
    return read_tensors(prefix, names, specs, dtypes, op, deferred)


def _infer_restore_v2(op):
    out = []
    names_op = op._inputs[2].op
    specs = None
    if names_op.type == "Const":
        specs = _as_texts(names_op._attrs["value"])
    for index, dtype in enumerate(op._attrs["dtypes"]):
        shape = _slice_shape(specs[index]) if specs is not None and index < len(specs) else None
        out.append((dtypes_lib.as_dtype(dtype), TensorShape(shape)))
    return out


kernels.register("RestoreV2", infer=_infer_restore_v2, compute=_compute_restore_v2, stateful=True)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name: str | None = None) -> list[Tensor]:
    """A ``RestoreV2`` op reading ``tensor_names`` from checkpoint ``prefix``; returns its outputs."""
    graph = _graph_of(prefix)
    with graph.as_default(), graph.name_scope(name or "RestoreV2") as scope:
        prefix = convert_to_tensor(prefix, dtype=dtypes_lib.string)
        names = _string_input(list(tensor_names), "tensor_names")
        slices = _string_input(list(shape_and_slices), "shape_and_slices")
        attrs = {"dtypes": [dtypes_lib.as_dtype(d).base_dtype for d in dtypes]}
        op = graph.create_op("RestoreV2", [prefix, names, slices], name=scope, attrs=attrs)
    return op.outputs


# ----------------------------------------------------------------- MergeV2Checkpoints
def _compute_merge(ctx, op, inputs):
    from saver.bundle import merge_bundles
    prefixes = _as_texts(inputs[0])
    destination = _as_text(inputs[1])
    merge_bundles(prefixes, destination, delete_old_dirs=bool(op._attrs.get("delete_old_dirs", True)),
                  allow_missing_files=bool(op._attrs.get("allow_missing_files", False)))
    return []


kernels.register("MergeV2Checkpoints", infer=_infer_none, compute=_compute_merge, stateful=True,
                 default_attrs={"delete_old_dirs": True, "allow_missing_files": False})


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs: bool = True,
                         allow_missing_files: bool = False, name: str | None = None):
    """A ``MergeV2Checkpoints`` op merging shard bundles into ``destination_prefix``."""
    graph = _graph_of(checkpoint_prefixes, destination_prefix)
    with graph.as_default(), graph.name_scope(name or "MergeV2Checkpoints") as scope:
        if isinstance(checkpoint_prefixes, (list, tuple)):
            checkpoint_prefixes = pack(list(checkpoint_prefixes), name="checkpoint_prefixes")
        destination = convert_to_tensor(destination_prefix, dtype=dtypes_lib.string)
        attrs = {"delete_old_dirs": bool(delete_old_dirs), "allow_missing_files": bool(allow_missing_files)}
        return graph.create_op("MergeV2Checkpoints", [checkpoint_prefixes, destination], [], name=scope,
                               attrs=attrs)


# ----------------------------------------------------------------- ShardedFilename / ShardedFilespec
def _compute_sharded_filename(ctx, op, inputs):
    basename, shard, num_shards = inputs
    return _string_scalar("%s-%05d-of-%05d" % (_as_text(basename), int(shard), int(num_shards)))


def _compute_sharded_filespec(ctx, op, inputs):
    basename, num_shards = inputs
    return _string_scalar("%s-?????-of-%05d" % (_as_text(basename), int(num_shards)))


def _infer_string_scalar(op):
    return [(dtypes_lib.string, TensorShape([]))]


kernels.register("ShardedFilename", infer=_infer_string_scalar, compute=_compute_sharded_filename)
kernels.register("ShardedFilespec", infer=_infer_string_scalar, compute=_compute_sharded_filespec)


def sharded_filename(basename, shard, num_shards, name: str | None = None) -> Tensor:
    """``ShardedFilename``: ``<basename>-%05d-of-%05d``."""
    graph = _graph_of(basename, num_shards)
    with graph.as_default(), graph.name_scope(name or "ShardedFilename") as scope:
        basename = convert_to_tensor(basename, dtype=dtypes_lib.string)
        shard = shard if isinstance(shard, Tensor) else _const(np.int32(shard), dtypes_lib.int32, "shard")
        num_shards = num_shards if isinstance(num_shards, Tensor) else \
            _const(np.int32(num_shards), dtypes_lib.int32, "num_shards")
        return graph.create_op("ShardedFilename", [basename, shard, num_shards], name=scope).outputs[0]


def sharded_filespec(basename, num_shards, name: str | None = None) -> Tensor:
    """``ShardedFilespec``: ``<basename>-?????-of-%05d``."""
    graph = _graph_of(basename, num_shards)
    with graph.as_default(), graph.name_scope(name or "ShardedFilespec") as scope:
        basename = convert_to_tensor(basename, dtype=dtypes_lib.string)
        num_shards = num_shards if isinstance(num_shards, Tensor) else \
            _const(np.int32(num_shards), dtypes_lib.int32, "num_shards")
        return graph.create_op("ShardedFilespec", [basename, num_shards], name=scope).outputs[0]


# ----------------------------------------------------------------- StringJoin, StaticRegexFullMatch
def _compute_string_join(ctx, op, inputs):
    separator = op._attrs.get("separator", "")
    separator = separator.decode() if isinstance(separator, bytes) else separator
    arrays = [np.asarray(value, dtype=object) for value in inputs]
    shape = ()
    for array in arrays:
        if array.ndim:
            shape = array.shape
    out = np.empty(shape, dtype=object)
    flat = out.reshape(-1)
    for index in range(flat.size):
        parts = [_as_text(a.reshape(-1)[index] if a.ndim else a.reshape(-1)[0]) for a in arrays]
        flat[index] = separator.join(parts).encode("utf-8", "surrogateescape")
    return out


def _infer_string_join(op):
    shape = TensorShape([])
    for tensor in op._inputs:
        if tensor.shape.ndims:
            shape = tensor.shape
    return [(dtypes_lib.string, shape)]


kernels.register("StringJoin", infer=_infer_string_join, compute=_compute_string_join,
                 default_attrs={"separator": ""})


def string_join(inputs, separator: str = "", name: str | None = None) -> Tensor:
    """``StringJoin``: element-wise concatenation of string tensors."""
    graph = _graph_of(inputs)
    with graph.as_default():
        values = [convert_to_tensor(v, dtype=dtypes_lib.string) for v in inputs]
        return graph.create_op("StringJoin", values, name=name or "StringJoin",
                               attrs={"N": len(values), "separator": separator}).outputs[0]


def _compute_regex_full_match(ctx, op, inputs):
    pattern = op._attrs["pattern"]
    pattern = pattern.decode() if isinstance(pattern, bytes) else pattern
    regex = re.compile(pattern, re.S)
    array = np.asarray(inputs[0], dtype=object)
    out = np.empty(array.shape, dtype=bool)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for index in range(flat_in.size):
        flat_out[index] = regex.fullmatch(_as_text(flat_in[index])) is not None
    return out


kernels.register("StaticRegexFullMatch", infer=lambda op: [(dtypes_lib.bool, op._inputs[0].shape)],
                 compute=_compute_regex_full_match)


def static_regex_full_match(input, pattern: str, name: str | None = None) -> Tensor:
    """``StaticRegexFullMatch``: True where the whole string matches ``pattern``."""
    value = convert_to_tensor(input, dtype=dtypes_lib.string)
    return value.graph.create_op("StaticRegexFullMatch", [value], name=name or "StaticRegexFullMatch",
                                 attrs={"pattern": pattern}).outputs[0]


# ----------------------------------------------------------------- Select, Pack, Reshape (fallbacks)
def _ensure_kernel(op_type: str, infer, compute, **kwargs) -> None:
    """Registers a fallback kernel only when ``graph`` has none (its own ops modules win)."""
    if kernels.lookup(op_type) is None:
        kernels.register(op_type, infer=infer, compute=compute, **kwargs)


def _compute_select(ctx, op, inputs):
    condition, x, y = inputs
    return np.where(np.asarray(condition), np.asarray(x), np.asarray(y))


def _infer_select(op):
    return [(op._inputs[1].dtype.base_dtype, op._inputs[1].shape)]


def select(condition, x, y, name: str | None = None) -> Tensor:
    """``Select`` (TF1 ``tf.where(condition, x, y)``)."""
    _ensure_kernel("Select", _infer_select, _compute_select)
    condition = convert_to_tensor(condition, dtype=dtypes_lib.bool)
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype.base_dtype)
    return condition.graph.create_op("Select", [condition, x, y], name=name or "Select",
                                     attrs={"T": x.dtype.base_dtype}).outputs[0]


def _compute_pack(ctx, op, inputs):
    axis = op._attrs.get("axis", 0)
    arrays = [np.asarray(v) for v in inputs]
    if arrays and arrays[0].dtype == object:
        out = np.empty((len(arrays),) + arrays[0].shape, dtype=object)
        for index, array in enumerate(arrays):
            out[index] = array
        return np.moveaxis(out, 0, axis) if axis else out
    return np.stack(arrays, axis=axis)


def _infer_pack(op):
    first = op._inputs[0]
    shape = first.shape
    if shape.ndims is None:
        return [(first.dtype.base_dtype, TensorShape(None))]
    dims = list(shape.as_list()) if shape.ndims else []
    axis = op._attrs.get("axis", 0)
    dims.insert(axis if axis >= 0 else len(dims) + 1 + axis, len(op._inputs))
    return [(first.dtype.base_dtype, TensorShape(dims))]


def pack(values, axis: int = 0, name: str | None = None) -> Tensor:
    """``Pack`` (tf.stack) of same-shaped tensors."""
    _ensure_kernel("Pack", _infer_pack, _compute_pack, default_attrs={"axis": 0})
    values = [convert_to_tensor(v) for v in values]
    graph = values[0].graph
    return graph.create_op("Pack", values, name=name or "Pack",
                           attrs={"N": len(values), "T": values[0].dtype.base_dtype, "axis": axis}).outputs[0]


def _compute_reshape(ctx, op, inputs):
    tensor, shape = inputs
    return np.reshape(tensor, [int(d) for d in np.asarray(shape).reshape(-1)])


def _infer_reshape(op):
    tensor, shape = op._inputs
    if shape.op.type == "Const":
        dims = [int(d) for d in np.asarray(shape.op._attrs["value"]).reshape(-1)]
        return [(tensor.dtype.base_dtype, TensorShape([None if d < 0 else d for d in dims]))]
    return [(tensor.dtype.base_dtype, TensorShape(None))]


def reshape(tensor, shape, name: str | None = None) -> Tensor:
    """``Reshape`` of ``tensor`` to ``shape`` (a TensorShape, list or shape tensor)."""
    try:
        from graph import array_ops
        return array_ops.reshape(tensor, shape, name=name)
    except (ImportError, AttributeError):
        pass
    _ensure_kernel("Reshape", _infer_reshape, _compute_reshape)
    tensor = convert_to_tensor(tensor)
    graph = tensor.graph
    with graph.as_default(), graph.name_scope(name or "Reshape") as scope:
        if not isinstance(shape, Tensor):
            dims = shape.as_list() if isinstance(shape, TensorShape) else list(shape)
            shape = _const(np.array(dims, dtype=np.int32), dtypes_lib.int32, "shape")
        return graph.create_op("Reshape", [tensor, shape], name=scope,
                               attrs={"T": tensor.dtype.base_dtype, "Tshape": shape.dtype.base_dtype}).outputs[0]
