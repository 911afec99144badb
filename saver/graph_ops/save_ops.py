"""Checkpoint I/O ops: SaveV2, RestoreV2, MergeV2Checkpoints and the string ops of the sharded save graph.

Each op is built with TensorFlow's op type, input order, attrs and name structure (the list inputs
``tensor_names`` / ``shape_and_slices`` become ``<op>/tensor_names`` Consts, as TF's op wrappers do)
and its kernel is registered into ``graph.base.kernels``, so a Saver's ``save/...`` ops really read and
write files when a Session runs them:

    SaveV2(prefix, tensor_names[N], shape_and_slices[N], tensors...; dtypes)  -> bundle.BundleWriter
    RestoreV2(prefix, tensor_names[N], shape_and_slices[N]; dtypes)          -> N tensors (V2 or V1 files)
    MergeV2Checkpoints(checkpoint_prefixes[K], destination_prefix; delete_old_dirs, allow_missing_files)
    SaveSlices / Save (V1), ShardedFilename, ShardedFilespec, StringJoin, StaticRegexFullMatch

Kernels stream: SaveV2 hands the session's variable arrays straight to the bundle writer (no copy);
RestoreV2 reads through saver.graph_ops.restored_arrays (arrays an ``Assign`` may adopt, reads deferred until
the Assign converts them).  The sharded save graph's Select and Pack are ops of graph.ops'
array family.
"""

from __future__ import annotations

import os

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph import errors
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.ops import array_concat_ops
from graph.ops import constant_ops as ops
from graph.platform import file_io
from saver.format.bundle import BundleWriter, Slice, merge_bundles
from saver.format.coding import parse_shape_and_slice
from saver.format.v1 import write_v1_checkpoint
from saver.graph_ops.restored_arrays import read_tensors

__all__ = [
    "save_v2", "restore_v2", "merge_v2_checkpoints", "save_slices", "save_tensors", "sharded_filename",
    "sharded_filespec", "string_join", "static_regex_full_match",
]


# ----------------------------------------------------------------- value helpers
def _as_text(value) -> str:
    """A scalar string tensor value (0-d object array of bytes, bytes or str) as str."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise errors.InvalidArgumentError(None, None, f"Expected a scalar string, got shape {list(value.shape)}")
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
    save_tensors(prefix, names, specs, tensors, op.get_attr("dtypes"))
    return []


def save_tensors(prefix: str, names, specs, tensors, dtypes=None) -> None:
    """Writes one V2 bundle ``prefix`` from parallel lists (what the SaveV2 kernel does)."""
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
    return _save_op("SaveV2", prefix, tensor_names, "shape_and_slices", shape_and_slices, tensors, "dtypes",
                    name or "SaveV2")


def _save_op(op_type: str, prefix, tensor_names, slices_name: str, slices, tensors, dtypes_attr: str, name: str):
    """SaveV2 and SaveSlices differ only in their slices input's name and their dtypes attr's name."""
    graph = _graph_of(prefix, tensors)
    with graph.as_default(), graph.name_scope(name) as scope:
        prefix = convert_to_tensor(prefix, dtype=dtypes_lib.string)
        names = _string_input(tensor_names, "tensor_names")
        slices = _string_input(slices, slices_name)
        values = [convert_to_tensor(t) for t in tensors]
        attrs = {dtypes_attr: [v.dtype.base_dtype for v in values]}
        return graph.create_op(op_type, [prefix, names, slices] + values, [], name=scope, attrs=attrs)


# ----------------------------------------------------------------- SaveSlices / Save (V1)
def _compute_save_slices(ctx, op, inputs):
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
    local = file_io.local_path(filename)  # None for a URL: the table writer makes its directory in the store
    directory = os.path.dirname(local) if local is not None else ""
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
    return _save_op("SaveSlices", filename, tensor_names, "shapes_and_slices", shapes_and_slices, tensors, "T",
                    name or "save")


# ----------------------------------------------------------------- RestoreV2
def _compute_restore_v2(ctx, op, inputs):
    prefix = _as_text(inputs[0])
    names = _as_texts(inputs[1])
    specs = _as_texts(inputs[2])
    dtypes = op.get_attr("dtypes")
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
        specs = _as_texts(names_op.get_attr("value"))
    for index, dtype in enumerate(op.get_attr("dtypes")):
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
    prefixes = _as_texts(inputs[0])
    destination = _as_text(inputs[1])
    merge_bundles(prefixes, destination, delete_old_dirs=bool(op.attrs.get("delete_old_dirs", True)),
                  allow_missing_files=bool(op.attrs.get("allow_missing_files", False)))
    return []


kernels.register("MergeV2Checkpoints", infer=_infer_none, compute=_compute_merge, stateful=True,
                 default_attrs={"delete_old_dirs": True, "allow_missing_files": False})


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs: bool = True,
                         allow_missing_files: bool = False, name: str | None = None):
    """A ``MergeV2Checkpoints`` op merging shard bundles into ``destination_prefix``."""
    graph = _graph_of(checkpoint_prefixes, destination_prefix)
    with graph.as_default(), graph.name_scope(name or "MergeV2Checkpoints") as scope:
        if isinstance(checkpoint_prefixes, (list, tuple)):
            checkpoint_prefixes = array_concat_ops.stack(list(checkpoint_prefixes), name="checkpoint_prefixes")
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
# Built as TF's Saver builds them; their kernels are graph.ops.string_ops' and string_regex_ops' (loaded with graph.ops).
def string_join(inputs, separator: str = "", name: str | None = None) -> Tensor:
    """``StringJoin``: element-wise concatenation of string tensors."""
    graph = _graph_of(inputs)
    with graph.as_default():
        values = [convert_to_tensor(v, dtype=dtypes_lib.string) for v in inputs]
        return graph.create_op("StringJoin", values, name=name or "StringJoin",
                               attrs={"N": len(values), "separator": separator}).outputs[0]


def static_regex_full_match(input, pattern: str, name: str | None = None) -> Tensor:
    """``StaticRegexFullMatch``: True where the whole string matches ``pattern``."""
    value = convert_to_tensor(input, dtype=dtypes_lib.string)
    return value.graph.create_op("StaticRegexFullMatch", [value], name=name or "StaticRegexFullMatch",
                                 attrs={"pattern": pattern}).outputs[0]
