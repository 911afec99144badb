"""Fuzz targets: bytes in, the library's own errors (graph.errors.OpError) out, nothing else.

Each target takes ``bytes`` and exercises one reader the way a user would (open, list, read every
tensor).  ``ALLOWED`` are the exceptions a damaged or hostile file may raise; anything else escaping
is a finding.  Targets are shared by test_fuzz.py (hypothesis, atheris for a few seconds) and
long_runs/fuzz_forever.py (for hours).

* ``index``: the bytes are a whole ``.index`` file (next to a valid data file);
* ``data``: the bytes are the ``.data`` file of the small checkpoint (valid index);
* ``entry``: the bytes are the BundleEntryProto of key ``x`` inside a valid table (valid block
  CRCs), next to a data file of 64 bytes: hostile shapes, sizes, offsets, dtypes, slices;
* ``header``: the bytes are the BundleHeaderProto of a valid table;
* ``v1``: the bytes are a whole V1 table file;
* ``v1_meta``: the bytes are the SavedTensorSlices header value of a valid V1 table;
* ``object_graph``: the bytes are a serialized TrackableObjectGraph, decoded and walked;
* ``state``: the bytes are a ``checkpoint`` state file, read by latest_checkpoint and load_checkpoint.
* ``export_npz`` / ``export_safetensors``: the bytes are a whole exported file (saver/export.py), every
  tensor read;
* ``export_npz_description`` / ``export_safetensors_description``: the bytes are the JSON description
  (``__tf1_saver__``) inside an otherwise valid exported file.
"""

from __future__ import annotations

import io
import json
import os
import tempfile

import numpy as np

from graph.base import dtypes
from graph.errors import NotFoundError, OpError
from saver.storage import state as state_lib
from saver.format.bundle import BundleReader
from saver.storage.object_graph import ObjectGraph
from saver.format.proto import BundleEntryProto, BundleHeaderProto, TensorShapeProto, VersionDef
from saver.storage.reader import CheckpointReader, load_checkpoint
from saver.format.table import Table, TableWriter
from saver.format.v1 import V1Reader

__all__ = ["TARGETS", "ALLOWED", "Workspace", "table_bytes"]

ALLOWED = (OpError,)
DATA_SIZE = 64


def table_bytes(items) -> bytes:
    """An SSTable holding ``items`` (key -> value, sorted here) with valid CRCs."""
    buffer = io.BytesIO()
    writer = TableWriter(buffer)
    for key in sorted(items):
        writer.add(key, items[key])
    writer.finish()
    return buffer.getvalue()


_HEADER = BundleHeaderProto(num_shards=1, version=VersionDef(producer=1)).to_bytes()


class Workspace:
    """A scratch directory (on tmpfs when there is one) holding the files the targets rewrite."""

    def __init__(self, directory: str | None = None):
        base = "/dev/shm" if directory is None and os.access("/dev/shm", os.W_OK) else directory
        self.directory = tempfile.mkdtemp(prefix="safety-fuzz-", dir=base)
        self.prefix = os.path.join(self.directory, "f")
        from _mutate import small_checkpoint
        self.small = small_checkpoint(os.path.join(self.directory, "small"))
        with open(self.small + ".index", "rb") as file:
            self.small_index = file.read()
        with open(self.small + ".data-00000-of-00001", "rb") as file:
            self.small_data = file.read()
        self.data64 = bytes(range(DATA_SIZE))

    def write(self, name: str, data: bytes) -> str:
        path = os.path.join(self.directory, name)
        with open(path, "wb") as file:
            file.write(data)
        return path

    def cleanup(self) -> None:
        import shutil
        shutil.rmtree(self.directory, ignore_errors=True)


def _read_everything(reader) -> None:
    """What a user does with a reader: list names, shapes, dtypes; read every tensor."""
    names = reader.get_variable_to_shape_map()
    reader.get_variable_to_dtype_map()
    reader.debug_string()
    for name in names:
        reader.get_tensor(name)


def _bundle(ws: Workspace, index: bytes, data: bytes) -> None:
    ws.write("f.index", index)
    ws.write("f.data-00000-of-00001", data)
    with CheckpointReader(ws.prefix) as reader:
        _read_everything(reader)
    with BundleReader(ws.prefix) as bundle:  # the slice API too, on every key (slice keys included)
        for key, entry in bundle.raw_items():
            try:
                bundle.lookup(key)
            except NotFoundError:
                pass


def target_index(ws: Workspace, data: bytes) -> None:
    table = None
    try:
        table = Table("fuzz.index", data)
    except OpError:
        pass
    if table is not None:
        for key, _ in table.items():
            table.get(key)
    _bundle(ws, data, ws.data64)


def target_data(ws: Workspace, data: bytes) -> None:
    _bundle(ws, ws.small_index, data)


def target_entry(ws: Workspace, data: bytes) -> None:
    _bundle(ws, table_bytes({b"": _HEADER, b"x": data}), ws.data64)


def target_header(ws: Workspace, data: bytes) -> None:
    entry = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape((2,)), size=8,
                             crc32c=0).to_bytes()
    _bundle(ws, table_bytes({b"": data, b"x": entry}), ws.data64)


def _v1(ws: Workspace, table: bytes) -> None:
    path = ws.write("v1file", table)
    reader = V1Reader(path)
    for name in reader.keys():
        reader.dtype_and_shape(name)
        reader.get_tensor(name)
    with CheckpointReader(path) as checkpoint:
        _read_everything(checkpoint)


def target_v1(ws: Workspace, data: bytes) -> None:
    _v1(ws, data)


def target_v1_meta(ws: Workspace, data: bytes) -> None:
    from saver.format.coding import TensorSlice, encode_tensor_name_slice
    from saver.format.proto import SavedSlice, SavedTensorSlices, TensorProto
    from saver.format.bundle import slice_to_proto
    body = SavedTensorSlices(data=SavedSlice(name="x", slice=slice_to_proto(TensorSlice.full(1)),
                                             data=TensorProto(float_val=[1.0, 2.0]))).to_bytes()
    _v1(ws, table_bytes({b"": data, encode_tensor_name_slice("x", TensorSlice.full(1)): body}))


def target_object_graph(ws: Workspace, data: bytes) -> None:
    try:
        graph = ObjectGraph.from_bytes(data, "fuzz")
    except OpError:
        return
    for node_id in range(min(len(graph), 2000)):  # paths are O(depth) each: bound the walk, not the input
        graph.path_string(node_id)
    graph.key_to_full_name()
    graph.full_name_to_key()
    graph.slot_variables()
    graph.tree()
    try:
        graph.attribute_for_key("a/.ATTRIBUTES/VARIABLE_VALUE")
    except NotFoundError:
        pass


def target_state(ws: Workspace, data: bytes) -> None:
    directory = os.path.join(ws.directory, "state")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "checkpoint"), "wb") as file:
        file.write(data)
    try:
        state_lib.get_checkpoint_state(directory)
        latest = state_lib.latest_checkpoint(directory)
    except ValueError:  # documented: not UTF-8 / no model_checkpoint_path
        latest = None
    try:
        with load_checkpoint(directory) as reader:
            _read_everything(reader)
    except ValueError:  # documented: no usable state file in the directory
        pass
    del latest


def _read_export(path: str) -> None:
    from saver.storage import export
    for tensor in export.read_tensors(path):
        np.asarray(tensor.value).tobytes()


def target_export_npz(ws: Workspace, data: bytes) -> None:
    _read_export(ws.write("fuzz.npz", data))


def target_export_safetensors(ws: Workspace, data: bytes) -> None:
    _read_export(ws.write("fuzz.safetensors", data))


def _export_members() -> dict:
    return {"w": np.arange(4, dtype=np.float32), "s": np.frombuffer(b"abc", np.uint8),
            "n": np.array([1, 2], np.int64)}


def target_export_npz_description(ws: Workspace, data: bytes) -> None:
    from saver.storage import export
    buffer = io.BytesIO()
    np.savez(buffer, **_export_members(), **{export.METADATA_KEY: np.frombuffer(data, np.uint8)})
    _read_export(ws.write("fuzz_description.npz", buffer.getvalue()))


def target_export_safetensors_description(ws: Workspace, data: bytes) -> None:
    from saver.storage import export
    header, blobs, offset = {"__metadata__": {export.METADATA_KEY: data.decode("utf-8", "surrogateescape")}}, [], 0
    for name, array in _export_members().items():
        code = {"float32": "F32", "uint8": "U8", "int64": "I64"}[array.dtype.name]
        header[name] = {"dtype": code, "shape": list(array.shape), "data_offsets": [offset, offset + array.nbytes]}
        blobs.append(array.tobytes())
        offset += array.nbytes
    text = json.dumps(header).encode("utf-8")
    _read_export(ws.write("fuzz_description.safetensors", len(text).to_bytes(8, "little") + text + b"".join(blobs)))


TARGETS = {
    "index": target_index,
    "data": target_data,
    "entry": target_entry,
    "header": target_header,
    "v1": target_v1,
    "v1_meta": target_v1_meta,
    "object_graph": target_object_graph,
    "state": target_state,
    "export_npz": target_export_npz,
    "export_safetensors": target_export_safetensors,
    "export_npz_description": target_export_npz_description,
    "export_safetensors_description": target_export_safetensors_description,
}


def seeds(ws: Workspace) -> dict[str, list[bytes]]:
    """A few valid inputs per target, for mutation-based fuzzers to start from."""
    from saver.storage.object_graph_builder import build_object_graph
    from saver.format.v1 import write_v1_checkpoint
    path = os.path.join(ws.directory, "seed_v1")
    write_v1_checkpoint(path, {"a": np.arange(3, dtype=np.float32), "s": np.array([b"x"], dtype=object)})
    with open(path, "rb") as file:
        v1 = file.read()
    table = Table("seed", ws.small_index)
    entries = [value for key, value in table.items() if key]
    from saver.storage import export
    tensors = [export.ExportedTensor("w", dtypes.float32, np.arange(4, dtype=np.float32), ["0,2", "2,2"]),
               export.ExportedTensor("b", dtypes.bfloat16, np.ones(2, dtypes.bfloat16.numpy_dtype)),
               export.ExportedTensor("s", dtypes.string, np.array([b"x", b""], dtype=object))]
    exported = {}
    for fmt in export.FORMATS:
        path = os.path.join(ws.directory, "seed." + fmt)
        export.write_tensors(tensors, path)
        with open(path, "rb") as file:
            exported[fmt] = file.read()
    description = json.dumps({"format": 1, "tensors": {
        "w": {"dtype": "float32", "shape": [4], "stored": "w", "slices": ["0,2", "2,2"]},
        "s": {"dtype": "string", "shape": [2], "stored": "s", "encoding": "strings", "lengths": "n"},
        "v": {"dtype": "bfloat16", "shape": [2, 4], "stored": "n", "encoding": "view"}}}).encode("utf-8")
    graph = build_object_graph({"net": {"l1": {"kernel": "net/kernel", "bias": "net/bias"}}, "step": "step"})
    return {
        "index": [ws.small_index],
        "data": [ws.small_data],
        "entry": entries,
        "header": [_HEADER],
        "v1": [v1],
        "v1_meta": [Table("v1", v1).get(b"")],
        "object_graph": [graph.to_bytes()],
        "state": [b'model_checkpoint_path: "small"\nall_model_checkpoint_paths: "small"\n'],
        "export_npz": [exported["npz"]],
        "export_safetensors": [exported["safetensors"]],
        "export_npz_description": [description],
        "export_safetensors_description": [description],
    }
