"""MetaGraphDef: `.meta` files written (export_meta_graph) and read (import_meta_graph) as TensorFlow does.

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
initializers stay ops, uniform constants are one value, so the file stays small.
"""

from __future__ import annotations

import logging
import os
import re

from graph.base.paused_gc import PausedGC
from graph.core import graph as graph_lib
from graph.base import kernels
from graph.core.graph import GraphKeys
from graph.variables.variables import _prepend_name_scope, _strip_name_scope  # TF's ops.py functions
from graph.io.graph_import import import_graph_def
from graph.proto import text_format
from graph.proto.framework import GraphDef, NodeDef, OpList, SaveSliceInfoDef, VariableDef
from graph.proto.values import attr_value_of
from graph.base.errors import DataLossError
from graph.proto.protobuf import BOOL, BYTES, FLOAT, INT64, STRING, Field, MapField, Message
from graph.proto.text_format import ParseError as TextFormatError
from graph.proto.wire import encode_varint
from saver import control_flow_context
from saver.storage import remote
from saver.storage import state
from saver.saver import Saver, SaverDef as _SaverDefBase

__all__ = [
    "MetaGraphDef", "MetaInfoDef", "CollectionDef", "SaverDef", "VariableDef", "SaveSliceInfoDef", "Any",
    "export_meta_graph", "import_meta_graph", "import_graph_def", "read_meta_graph_file", "describe_meta_graph",
]

logger = logging.getLogger(__name__)

# Collections TF registers VariableDef proto functions for (ref_variable.py register_proto_function).
_VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES, GraphKeys.GLOBAL_STEP, GraphKeys.METRIC_VARIABLES)
# Collections of control-flow contexts (control_flow_ops register_proto_function): CondContextDef /
# WhileContextDef bytes (saver/control_flow_context.py).  ``queue_runners`` (QueueRunnerDef) is not rebuilt
# here: imported as raw bytes, so that exporting writes them back unchanged.
_CONTEXT_COLLECTIONS = (GraphKeys.COND_CONTEXT, GraphKeys.WHILE_CONTEXT)
# meta_graph.py SAVE_AND_RESTORE_OPS: what marks a scope as a saver's, for clear_extraneous_savers.
_SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlice", "LegacySave", "LegacySaveSlice", "RestoreV2", "Restore",
                         "RestoreSlice", "LegacyRestore", "LegacyRestoreSlice")
_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"  # meta_graph.py: inputs from outside export_scope
_TRAINABLE_SINCE = (1, 9)  # VariableDef.trainable is written since TF 1.9


SaverDef = _SaverDefBase


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
            text = _strip_name_scope(text, export_scope)
        inputs.append(text)
    attr = dict(node.attr)
    if "_class" in attr and export_scope:
        groups = [g for g in attr["_class"].list.s if g.decode().split("@", 1)[1].startswith(export_scope)]
        attr["_class"] = attr_value_of([_strip_name_scope(g.decode(), export_scope).encode() for g in groups])
    return NodeDef(name=_strip_name_scope(node.name, export_scope), op=node.op, input=inputs,
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
    if key in _VARIABLE_COLLECTIONS and not all(isinstance(item, bytes) for item in items):
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
    if key in _CONTEXT_COLLECTIONS:
        values = [data for data in (control_flow_context.context_bytes(item, export_scope) for item in items)
                  if data is not None]
        return CollectionDef(bytes_list=CollectionDef.BytesList(value=values))
    if key == GraphKeys.SAVERS:
        values = []
        for item in items:
            saver_def = item if isinstance(item, _SaverDefBase) else item.saver_def
            stripped = SaverDef.from_bytes(saver_def.to_bytes())
            for name in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(stripped, name, _strip_name_scope(getattr(stripped, name), export_scope))
            values.append(stripped.to_bytes())
        return CollectionDef(bytes_list=CollectionDef.BytesList(value=values))
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
            names.append(_strip_name_scope(name, export_scope))
    return CollectionDef(node_list=CollectionDef.NodeList(value=names))


def _atomic_write(filename: str, data: bytes) -> None:
    directory = os.path.dirname(filename)
    if directory and not remote.is_url(filename):
        os.makedirs(directory, exist_ok=True)  # graph_io.write_graph creates the directory
    state._write_atomic(filename, data)  # file_io.atomic_write_string_to_file: '.tmp<uuid4 hex>', then rename


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
                              (saver_def, _SaverDefBase, "saver_def")):
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


# ------------------------------------------------------------------------------------- import


def read_meta_graph_file(filename) -> MetaGraphDef:
    """Reads a binary or text-format ``.meta`` file (meta_graph.read_meta_graph_file).

    Raises:
        OSError: if the file does not exist or parses neither way.
    """
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as handle:
        data = handle.read()
    try:
        meta = MetaGraphDef.from_bytes(data)
        if not meta._unknown or not _looks_like_text(data):
            return meta
    except DataLossError:
        pass
    try:
        return text_format.parse(data.decode("utf-8"), MetaGraphDef, allow_unknown_field=True)
    except (TextFormatError, UnicodeDecodeError) as error:
        raise OSError(f"Cannot parse file {filename}: {error}.") from error


def _looks_like_text(data: bytes) -> bool:
    return re.match(rb"\s*[A-Za-z_]\w*\s*[:{<]", data[:200]) is not None


def _version_tuple(text: str) -> tuple:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:2])


def _variable_from_proto(proto: VariableDef, import_scope: str):
    from graph.variables import variables
    if proto.is_resource:
        raise NotImplementedError(f"Resource variable '{proto.variable_name}' cannot be rebuilt here "
                                  "(no ResourceVariable); its ops are imported.")
    return variables.Variable.from_proto(proto, import_scope=import_scope)


def _import_collections(meta: MetaGraphDef, graph, scope: str, restore_collections_predicate,
                        unbound_inputs_col_name: str | None) -> None:
    tf_version = meta.meta_info_def.tensorflow_version if meta.meta_info_def else ""
    have_trainable = not tf_version or _version_tuple(tf_version) >= _TRAINABLE_SINCE
    collections = meta.collection_def
    ordered = ([GraphKeys.TRAINABLE_VARIABLES] if GraphKeys.TRAINABLE_VARIABLES in collections else []) + \
        sorted(key for key in collections if key != GraphKeys.TRAINABLE_VARIABLES)
    proto_objects: dict[bytes, object] = {}
    for key in ordered:
        col_def = collections[key]
        if key == unbound_inputs_col_name or not restore_collections_predicate(key):
            continue
        kind = col_def.which_oneof("kind")
        if kind is None:
            logger.error("Cannot identify data type for collection %s. Skipping.", key)
            continue
        values = getattr(col_def, kind).value
        if kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
            for value in values:
                variable = proto_objects.get(value)
                if variable is None:
                    proto = VariableDef.from_bytes(value)
                    if not have_trainable:
                        proto.trainable = key == GraphKeys.TRAINABLE_VARIABLES
                    try:
                        variable = _variable_from_proto(proto, scope)
                    except NotImplementedError as error:
                        logger.warning("%s", error)
                        variable = value
                    proto_objects[value] = variable
                graph.add_to_collection(key, variable)
        elif kind == "bytes_list" and key == GraphKeys.SAVERS:
            for value in values:
                graph.add_to_collection(key, Saver(saver_def=SaverDef.from_bytes(value), name=scope or None))
        elif kind == "bytes_list" and key in _CONTEXT_COLLECTIONS:
            for value in values:  # one object per distinct proto, as TF's importer keeps them
                context = proto_objects.get(value)
                if context is None:
                    context = proto_objects[value] = control_flow_context.context_from_bytes(key, value, scope)
                graph.add_to_collection(key, context)
        elif kind == "bytes_list" and key == GraphKeys.QUEUE_RUNNERS:
            for value in values:
                graph.add_to_collection(key, bytes(value))
        elif kind == "node_list":
            for value in values:
                graph.add_to_collection(key, graph.as_graph_element(_prepend_name_scope(value, scope)))
        elif kind == "int64_list":
            for value in values:
                graph.add_to_collection(key, int(value))
        elif kind == "bytes_list":
            for value in values:  # TF prepends the scope to plain strings as well (and keeps them str)
                text = value.decode("utf-8", "surrogateescape")
                graph.add_to_collection(key, _prepend_name_scope(text, scope) if scope else text)
        else:
            for value in values:
                graph.add_to_collection(key, value)


def import_meta_graph(meta_graph_or_file, clear_devices: bool = False, import_scope: str | None = None,
                      **kwargs):
    """Recreates the graph of a MetaGraphDef (or ``.meta`` file, binary or text) in the default graph and
    returns a Saver built from its saver_def (``tf.compat.v1.train.import_meta_graph``).

    Keyword args: ``input_map``, ``unbound_inputs_col_name`` ("unbound_inputs"),
    ``restore_collections_predicate`` (key -> bool).

    Returns:
        A Saver, or None when the MetaGraphDef has no saver_def and the graph has no variables.

    Raises:
        OSError: if the file cannot be read; ValueError: for unbound inputs or an inconsistent graph.
    """
    input_map = kwargs.pop("input_map", None)
    unbound_inputs_col_name = kwargs.pop("unbound_inputs_col_name", "unbound_inputs")
    predicate = kwargs.pop("restore_collections_predicate", lambda key: True)
    kwargs.pop("return_elements", None)
    if kwargs:
        raise TypeError(f"import_meta_graph() got unexpected keyword arguments: {', '.join(sorted(kwargs))}")
    if isinstance(meta_graph_or_file, MetaGraphDef):
        meta = meta_graph_or_file
    elif isinstance(meta_graph_or_file, (bytes, bytearray)):
        meta = MetaGraphDef.from_bytes(meta_graph_or_file)
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
    if unbound_inputs_col_name and unbound_inputs_col_name in meta.collection_def:
        col_def = meta.collection_def[unbound_inputs_col_name]
        kind = col_def.which_oneof("kind")
        values = [v.decode() if isinstance(v, bytes) else v for v in getattr(col_def, kind).value] if kind else []
        if values and (not input_map or sorted(values) != sorted(input_map)):
            raise ValueError("Graph contains unbound inputs: %s. Must provide these inputs through input_map."
                             % ",".join(v for v in values if not input_map or v not in input_map))
    graph = graph_lib.get_default_graph()
    graph_def = meta.graph_def or GraphDef()
    if clear_devices:
        graph_def = GraphDef.from_bytes(graph_def.to_bytes())
        for node in graph_def.node:
            node.device = ""
    with graph.as_default():
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        op_list = meta.meta_info_def.stripped_op_list if meta.meta_info_def else None
        import_graph_def(graph_def, name=import_scope or scope, input_map=input_map, producer_op_list=op_list)
        _import_collections(meta, graph, scope, predicate, unbound_inputs_col_name)
        imported = {_strip_name_scope(v.name, scope): v
                    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope or None)
                    if hasattr(v, "name")}
        if meta.saver_def is not None:
            saver_scope = import_scope
            if imported:  # the scope the import really used, as TF infers it
                key, variable = next(iter(imported.items()))
                saver_scope = variable.name[:-len(key)]
            return Saver(saver_def=SaverDef.from_bytes(meta.saver_def.to_bytes()), name=saver_scope or None)
        if imported:
            return Saver()
        logger.info("Saver not created because there are no variables in the graph to restore")
        return None


# ------------------------------------------------------------------------------------- inspection


def describe_meta_graph(meta: MetaGraphDef) -> str:
    """A short listing of a MetaGraphDef: ops by type, variables, collections and saver_def."""
    lines = []
    counts: dict[str, int] = {}
    for node in meta.graph_def.node if meta.graph_def else ():
        counts[node.op] = counts.get(node.op, 0) + 1
    missing = sorted(op for op in counts if kernels.lookup(op) is None)
    lines.append(f"{sum(counts.values())} nodes, {len(counts)} op types")
    for op, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {count:6d}  {op}{'   (no kernel here)' if op in missing else ''}")
    for key in sorted(meta.collection_def):
        col_def = meta.collection_def[key]
        kind = col_def.which_oneof("kind")
        values = getattr(col_def, kind).value if kind else []
        lines.append(f"collection {key!r}: {len(values)} {kind}")
        if key in _VARIABLE_COLLECTIONS and kind == "bytes_list":
            for value in values:
                proto = VariableDef.from_bytes(value)
                info = proto.save_slice_info_def
                part = f" part of {info.full_name}{list(info.full_shape)} at {list(info.var_offset)}" if info else ""
                lines.append(f"    {proto.variable_name}{part}")
    if meta.saver_def is not None:
        lines.append("saver_def: " + text_format.to_text(meta.saver_def).strip().replace("\n", ", "))
    return "\n".join(lines) + "\n"
