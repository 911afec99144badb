"""MetaGraphDef: its messages, and `.meta` files written (export_meta_graph) as TensorFlow writes them.

Layout (tensorflow/core/protobuf/meta_graph.proto; tf-checkpoint-format.md §7), binary protobuf or text format::

    MetaGraphDef   : 1 meta_info_def MetaInfoDef, 2 graph_def GraphDef, 3 saver_def SaverDef,
                     4 collection_def map<string, CollectionDef>, 5 signature_def, 6 asset_file_def,
                     7 object_graph_def (5-7: SavedModel only, kept as unknown bytes)
    MetaInfoDef    : 1 meta_graph_version, 2 stripped_op_list OpList, 3 any_info Any, 4 tags string*,
                     5 tensorflow_version, 6 tensorflow_git_version, 7 stripped_default_attrs bool,
                     8 function_aliases map<string, string>
    CollectionDef  : oneof kind {1 node_list, 2 bytes_list, 3 int64_list, 4 float_list, 5 any_list}, each {1 value*}
    SaverDef       : saver.saver.SaverDef (1 filename_tensor_name, 2 save_tensor_name, 3 restore_op_name,
                     4 max_to_keep, 5 sharded, 6 keep_checkpoint_every_n_hours float, 7 version)

Collections are written as TensorFlow writes them: variable collections (``variables``,
``trainable_variables``, ``global_step``, ...) as ``bytes_list`` of VariableDef, ``savers`` as SaverDef
bytes, ops and tensors as ``node_list`` names, strings as ``bytes_list``, ints / floats as lists.
We write no ``stripped_op_list`` and no ``tensorflow_version`` (we are not TensorFlow); TF's
importer needs neither.  Variables' initial values are whatever ops initialize them: random
initializers stay ops, uniform constants are one value, so the file stays small.  Reading a ``.meta``
file and rebuilding its graph and collections is saver/meta_graph_import.py; ``import_meta_graph``,
which also makes the Saver, sits beside the Saver in saver/saver.py (as in TensorFlow).
"""

from __future__ import annotations

import logging
import os
import re
import uuid

from graph.base import kernels
from graph.base.paused_gc import PausedGC
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys
from graph.core.name_scopes import strip_name_scope
from graph.io import control_flow_context
from graph.platform import file_io
from graph.proto import text_format
from graph.proto.framework import GraphDef, NodeDef, OpList, SaveSliceInfoDef, VariableDef
from graph.proto.protobuf import BOOL, BYTES, FLOAT, INT64, STRING, Field, MapField, Message
from graph.proto.values import attr_value_of
from graph.proto.wire import encode_varint
from saver.graph_ops.saver_builder import SaverDef

__all__ = [
    "MetaGraphDef", "MetaInfoDef", "CollectionDef", "SaverDef", "VariableDef", "SaveSliceInfoDef", "Any",
    "VARIABLE_COLLECTIONS", "CONTEXT_COLLECTIONS", "export_meta_graph",
]

logger = logging.getLogger(__name__)

# Collections TF registers VariableDef proto functions for (ref_variable.py register_proto_function).
VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES, GraphKeys.GLOBAL_STEP, GraphKeys.METRIC_VARIABLES)
# Collections of control-flow contexts (control_flow_ops register_proto_function): CondContextDef /
# WhileContextDef bytes (graph/io/control_flow_context.py).  ``queue_runners`` (QueueRunnerDef) is not rebuilt
# here: imported as raw bytes, so that exporting writes them back unchanged.
CONTEXT_COLLECTIONS = (GraphKeys.COND_CONTEXT, GraphKeys.WHILE_CONTEXT)
# meta_graph.py SAVE_AND_RESTORE_OPS: what marks a scope as a saver's, for clear_extraneous_savers.
_SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlice", "LegacySave", "LegacySaveSlice", "RestoreV2", "Restore",
                         "RestoreSlice", "LegacyRestore", "LegacyRestoreSlice")
_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"  # meta_graph.py: inputs from outside export_scope


class Any(Message):
    """google/protobuf/any.proto."""
    type_url = Field(1, STRING)
    value = Field(2, BYTES)


class MetaInfoDef(Message):
    """meta_graph.proto MetaGraphDef.MetaInfoDef."""
    meta_graph_version = Field(1, STRING)
    stripped_op_list = Field(2, OpList)
    any_info = Field(3, Any)
    tags = Field(4, STRING, repeated=True)
    tensorflow_version = Field(5, STRING)
    tensorflow_git_version = Field(6, STRING)
    stripped_default_attrs = Field(7, BOOL)
    function_aliases = MapField(8, STRING, STRING)


class CollectionDef(Message):
    """meta_graph.proto CollectionDef: one collection's values (a oneof of lists)."""

    class NodeList(Message):
        """Names of ops or tensors."""
        value = Field(1, STRING, repeated=True)

    class BytesList(Message):
        """Serialized protos or plain strings."""
        value = Field(1, BYTES, repeated=True)

    class Int64List(Message):
        """Integers (packed)."""
        value = Field(1, INT64, repeated=True)

    class FloatList(Message):
        """Floats (packed)."""
        value = Field(1, FLOAT, repeated=True)

    class AnyList(Message):
        """google.protobuf.Any values."""
        value = Field(1, Any, repeated=True)

    node_list = Field(1, NodeList, oneof="kind")
    bytes_list = Field(2, BytesList, oneof="kind")
    int64_list = Field(3, Int64List, oneof="kind")
    float_list = Field(4, FloatList, oneof="kind")
    any_list = Field(5, AnyList, oneof="kind")


class MetaGraphDef(Message):
    """meta_graph.proto MetaGraphDef: a graph, its saver and its collections."""
    MetaInfoDef = MetaInfoDef
    meta_info_def = Field(1, MetaInfoDef)
    graph_def = Field(2, GraphDef)
    saver_def = Field(3, SaverDef)
    collection_def = MapField(4, STRING, CollectionDef)


# ------------------------------------------------------------------------------------- names


def _op_name(tensor_name: str) -> str:
    return tensor_name.lstrip("^").split(":")[0]


def _scope_of(name: str) -> str:
    return name.rsplit("/", 1)[0] if "/" in name else ""


def _should_include(item, export_scope: str | None, exclude: set) -> bool:
    name = item if isinstance(item, str) else getattr(item, "name", None)
    if not isinstance(name, str):
        return True  # keep what we cannot name (TF does too)
    if exclude and name in exclude:
        return False
    return name.startswith(_UNBOUND_INPUT_PREFIX) or not export_scope or name.startswith(export_scope)


# ------------------------------------------------------------------------------------- export


def _scoped_node_def(node: NodeDef, export_scope: str | None, unbound: list, clear_devices: bool) -> NodeDef:
    """meta_graph._node_def: a copy with ``export_scope`` stripped, outside inputs marked unbound."""
    inputs = []
    for text in node.input:
        if export_scope and not text.lstrip("^").startswith(export_scope):
            text = re.sub(r"([\^]|^)(.*)", lambda m: m.group(1) + _UNBOUND_INPUT_PREFIX + m.group(2), text)
            unbound.append(text)
        else:
            text = strip_name_scope(text, export_scope)
        inputs.append(text)
    attr = dict(node.attr)
    if "_class" in attr and export_scope:
        groups = [g for g in attr["_class"].list.s if g.decode().split("@", 1)[1].startswith(export_scope)]
        attr["_class"] = attr_value_of([strip_name_scope(g.decode(), export_scope).encode() for g in groups])
    return NodeDef(name=strip_name_scope(node.name, export_scope), op=node.op, input=inputs,
                   device="" if clear_devices else node.device, attr=attr)


def _extraneous_saver_nodes(nodes: list, saver_def) -> set:
    """meta_graph._find_extraneous_saver_nodes: nodes of save scopes other than ``saver_def``'s."""
    keep = set()
    if saver_def is not None:
        keep = {_scope_of(_op_name(saver_def.save_tensor_name)) + "/", _scope_of(_op_name(saver_def.restore_op_name)) + "/"}
    saver_nodes = {node.name for node in nodes if node.op in _SAVE_AND_RESTORE_OPS}
    scopes = {_scope_of(name) for name in saver_nodes} - saver_nodes
    extraneous = {scope + "/" for scope in scopes} - keep
    return {node.name for node in nodes if any(node.name.startswith(scope) for scope in extraneous)}


def _strip_defaults(node: NodeDef) -> None:
    kernel = kernels.lookup(node.op)
    for name, default in (kernel.default_attrs if kernel else ()):
        if name in node.attr and node.attr[name].to_bytes() == attr_value_of(default).to_bytes():
            del node.attr[name]


def _text_field(tag: bytes, text: str) -> bytes:
    if not text:
        return b""
    data = text.encode("utf-8")
    return tag + encode_varint(len(data)) + data


def _variable_def_bytes(proto: VariableDef | None) -> bytes:
    """``proto.to_bytes()`` (b"" for None), written directly for a plain variable's VariableDef: a graph
    of 10,000 variables encodes 10,000 of them, and the generic encoder is several times slower."""
    if proto is None:
        return b""
    if proto.save_slice_info_def is not None or proto._unknown:
        return proto.to_bytes()
    synchronization, aggregation = proto.synchronization, proto.aggregation
    return b"".join((
        _text_field(b"\x0a", proto.variable_name), _text_field(b"\x12", proto.initializer_name),
        _text_field(b"\x1a", proto.snapshot_name), b"\x28\x01" if proto.is_resource else b"",
        _text_field(b"\x32", proto.initial_value_name), b"\x38\x01" if proto.trainable else b"",
        b"\x40" + encode_varint(synchronization) if synchronization else b"",
        b"\x48" + encode_varint(aggregation) if aggregation else b""))


def _collection_def(key: str, items: list, export_scope: str | None, encoded_variables: dict) -> CollectionDef:
    """One collection as TF's add_collection_def writes it.

    Raises:
        TypeError, AttributeError, ValueError: when an item does not fit the collection's kind.
    """
    if key in VARIABLE_COLLECTIONS and not all(isinstance(item, bytes) for item in items):
        values = []
        for item in items:
            if isinstance(item, bytes):  # a VariableDef imported as is (resource variables)
                values.append(item)
                continue
            encoded = encoded_variables.get(id(item))
            if encoded is None:
                encoded = encoded_variables[id(item)] = _variable_def_bytes(item.to_proto(export_scope=export_scope))
            if encoded:
                values.append(encoded)
        return CollectionDef(bytes_list=CollectionDef.BytesList(value=values))
    if key in CONTEXT_COLLECTIONS:
        values = [data for data in (control_flow_context.context_bytes(item, export_scope) for item in items)
                  if data is not None]
        return CollectionDef(bytes_list=CollectionDef.BytesList(value=values))
    if key == GraphKeys.SAVERS:
        values = []
        for item in items:
            saver_def = item if isinstance(item, SaverDef) else item.saver_def
            stripped = SaverDef.from_bytes(saver_def.to_bytes())
            for name in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(stripped, name, strip_name_scope(getattr(stripped, name), export_scope))
            values.append(stripped.to_bytes())
        return CollectionDef(bytes_list=CollectionDef.BytesList(value=values))
    if key == GraphKeys.QUEUE_RUNNERS:  # QueueRunnerDefs, as TF's registered to_proto writes them
        protos = [item if isinstance(item, bytes) else item.to_proto(export_scope=export_scope) for item in items]
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[p if isinstance(p, bytes) else p.to_bytes() for p in protos if p is not None]))
    first = items[0]
    if isinstance(first, (str, bytes)):
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[item.encode("utf-8") if isinstance(item, str) else bytes(item) for item in items]))
    if isinstance(first, int):
        return CollectionDef(int64_list=CollectionDef.Int64List(value=[int(item) for item in items]))
    if isinstance(first, float):
        return CollectionDef(float_list=CollectionDef.FloatList(value=[float(item) for item in items]))
    names = []
    for item in items:
        name = item.name  # AttributeError for items that are not graph elements: TF skips the collection
        if not export_scope or name.startswith(export_scope):
            names.append(strip_name_scope(name, export_scope))
    return CollectionDef(node_list=CollectionDef.NodeList(value=names))


def _atomic_write(filename: str, data: bytes) -> None:
    """file_io.atomic_write_string_to_file, as TF writes a .meta file: '.tmp<uuid4 hex>', then rename."""
    directory = os.path.dirname(filename)
    if directory and not file_io.is_url(filename):
        os.makedirs(directory, exist_ok=True)  # graph_io.write_graph creates the directory
    file_io.write_bytes(filename, data, temp_name=lambda path: path + ".tmp" + uuid.uuid4().hex)


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text: bool = False, graph=None, export_scope: str | None = None,
                      clear_devices: bool = False, clear_extraneous_savers: bool = False,
                      strip_default_attrs: bool = False, save_debug_info: bool = False,
                      **kwargs) -> MetaGraphDef:
    """Returns the graph, saver and collections as a MetaGraphDef, written to ``filename`` if given
    (``tf.compat.v1.train.export_meta_graph``; the write is atomic, binary unless ``as_text``).

    Raises:
        TypeError: for arguments of the wrong message types, or an attr that cannot be written.
        ValueError: when the GraphDef would pass protobuf's 2 GB limit.
    """
    with PausedGC():  # encoding a big graph allocates much and frees it all at the end
        return _export_meta_graph(filename, meta_info_def, graph_def, saver_def, collection_list, as_text, graph,
                                  export_scope, clear_devices, clear_extraneous_savers, strip_default_attrs,
                                  save_debug_info, **kwargs)


def _export_meta_graph(filename, meta_info_def, graph_def, saver_def, collection_list, as_text, graph,
                       export_scope, clear_devices, clear_extraneous_savers, strip_default_attrs,
                       save_debug_info, **kwargs) -> MetaGraphDef:
    unbound_inputs_col_name = kwargs.pop("unbound_inputs_col_name", "unbound_inputs")
    del save_debug_info, kwargs  # no debug info is recorded here
    graph = graph or graph_lib.get_default_graph()
    for value, cls, label in ((meta_info_def, MetaInfoDef, "meta_info_def"), (graph_def, GraphDef, "graph_def"),
                              (saver_def, SaverDef, "saver_def")):
        if value is not None and not isinstance(value, cls):
            raise TypeError(f"{label} must be of type {cls.__name__}. Received type: {type(value).__name__}.")
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    exclude: set = set()
    if export_scope or clear_extraneous_savers or clear_devices:
        if clear_extraneous_savers:
            exclude = _extraneous_saver_nodes(graph_def.node, saver_def)
        unbound: list = []
        nodes = [_scoped_node_def(node, export_scope, unbound, clear_devices) for node in graph_def.node
                 if _should_include(node.name, export_scope, exclude)]
        graph_def = GraphDef(node=nodes, versions=graph_def.versions)
        if unbound_inputs_col_name:  # TF records them in the graph itself, then exports the collection
            graph.clear_collection(unbound_inputs_col_name)
            for name in unbound:
                graph.add_to_collection(unbound_inputs_col_name, name)
    meta = MetaGraphDef(meta_info_def=MetaInfoDef.from_bytes(meta_info_def.to_bytes()) if meta_info_def
                        else MetaInfoDef(), graph_def=graph_def)
    if strip_default_attrs:
        for node in graph_def.node:
            _strip_defaults(node)
        meta.meta_info_def.stripped_default_attrs = True
    if saver_def is not None:
        meta.saver_def = SaverDef.from_bytes(saver_def.to_bytes())
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    encoded_variables: dict[int, bytes] = {}  # a variable is in several collections: encode it once
    for key in keys:
        if not isinstance(key, (str, bytes)):
            logger.debug("Only collections with string type keys will be serialized. This key has %s", type(key))
            continue
        key = key.decode() if isinstance(key, bytes) else key
        if clear_extraneous_savers and key == GraphKeys.SAVERS:
            items = [saver_def] if saver_def is not None else []
        else:
            items = [item for item in graph.get_collection(key) if _should_include(item, export_scope, exclude)]
        if not items:
            continue
        try:
            meta.collection_def[key] = _collection_def(key, items, export_scope, encoded_variables)
        except (TypeError, AttributeError, ValueError) as error:
            logger.warning("Issue encountered when serializing %s.\nType is unsupported, or the types of the items "
                           "don't match field type in CollectionDef. Note this is a warning and probably safe to "
                           "ignore.\n%s", key, error)
    if filename:
        data = text_format.to_text(meta).encode("utf-8") if as_text else meta.to_bytes(deterministic=True)
        if not as_text and len(data) >= (1 << 31):
            raise ValueError(f"GraphDef cannot be larger than 2GB. Received size: {len(data)}.")
        _atomic_write(os.fspath(filename), data)
    return meta
