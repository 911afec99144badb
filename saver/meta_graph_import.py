"""Reading `.meta` files and rebuilding their graph and collections in the default graph, as TensorFlow does.

``read_meta_graph_file`` reads a binary or text-format MetaGraphDef (saver/meta_graph.py declares the
messages); ``import_scoped_meta_graph`` imports its GraphDef under a scope and rebuilds each collection
from its CollectionDef: VariableDefs as Variables, SaverDefs through the caller's ``saver_from_def``,
CondContextDefs as CondContexts (graph/io/control_flow_context.py), node names as graph elements.
``import_meta_graph`` (saver/saver.py) adds the Saver; ``describe_meta_graph`` lists what a file holds.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable

from graph.base import kernels
from graph.errors import DataLossError
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys
from graph.core.name_scopes import prepend_name_scope, strip_name_scope
from graph.io import control_flow_context
from graph.io.graph_import import import_graph_def
from graph.platform import file_io
from graph.proto import text_format
from graph.proto.framework import GraphDef, VariableDef
from graph.train.queue_runner import QueueRunner, QueueRunnerDef
from graph.proto.text_format import ParseError as TextFormatError
from graph.variables import variables
from graph.proto.meta_graph import MetaGraphDef, SaverDef
from graph.summary.meta_graph import CONTEXT_COLLECTIONS, VARIABLE_COLLECTIONS

__all__ = ["read_meta_graph_file", "import_scoped_meta_graph", "describe_meta_graph"]

logger = logging.getLogger(__name__)

MAX_META_GRAPH_BYTES = (1 << 31) - 1  # protobuf refuses to parse a message of 2 GiB or more
_TRAINABLE_SINCE = (1, 9)  # VariableDef.trainable is written since TF 1.9


def read_meta_graph_file(filename) -> MetaGraphDef:
    """Reads a binary or text-format ``.meta`` file (meta_graph.read_meta_graph_file).

    Raises:
        OSError: if the file does not exist or parses neither way. OpError: FailedPreconditionError for a
            directory, FIFO, socket or device, ResourceExhaustedError past protobuf's 2 GiB limit.
    """
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with file_io.open_regular(filename) as handle:  # protobuf's 2 GiB limit bounds a serialized MetaGraphDef
        data = file_io.read_open(handle, filename, MAX_META_GRAPH_BYTES, "MetaGraphDef")
    try:
        meta = MetaGraphDef.from_bytes(data)
        if not meta._unknown or not _looks_like_text(data):
            return meta
    except DataLossError:
        pass
    try:
        return text_format.parse(data.decode("utf-8"), MetaGraphDef, allow_unknown_field=_skippable_field)
    except (TextFormatError, UnicodeDecodeError) as error:
        raise OSError(f"Cannot parse file {filename}: {error}.") from error


# MetaGraphDef fields TensorFlow declares and we do not read; any other top-level name is not a MetaGraphDef.
_TENSORFLOW_ONLY_FIELDS = frozenset(("signature_def", "asset_file_def", "object_graph_def"))


def _skippable_field(message_class, name: str) -> bool:
    # Nested messages may hold fields TensorFlow has and we do not model; the top level must be TF's.
    return message_class is not MetaGraphDef or name in _TENSORFLOW_ONLY_FIELDS


def _looks_like_text(data: bytes) -> bool:
    return re.match(rb"\s*[A-Za-z_]\w*\s*[:{<]", data[:200]) is not None


def _version_tuple(text: str) -> tuple:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:2])


def _variable_from_proto(proto: VariableDef, import_scope: str):
    if proto.is_resource:
        raise NotImplementedError(f"Resource variable '{proto.variable_name}' cannot be rebuilt here "
                                  "(no ResourceVariable); its ops are imported.")
    return variables.Variable.from_proto(proto, import_scope=import_scope)


def _import_collections(meta: MetaGraphDef, graph, scope: str, restore_collections_predicate,
                        unbound_inputs_col_name: str | None, saver_from_def: Callable[[SaverDef, str], object]) -> None:
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
        if kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
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
                graph.add_to_collection(key, saver_from_def(SaverDef.from_bytes(value), scope))
        elif kind == "bytes_list" and key in CONTEXT_COLLECTIONS:
            for value in values:  # one object per distinct proto, as TF's importer keeps them
                context = proto_objects.get(value)
                if context is None:
                    context = proto_objects[value] = control_flow_context.context_from_bytes(key, value, scope)
                graph.add_to_collection(key, context)
        elif kind == "bytes_list" and key == GraphKeys.QUEUE_RUNNERS:
            for value in values:  # QueueRunner.from_proto, as TF's registered from_proto
                graph.add_to_collection(key, QueueRunner.from_proto(QueueRunnerDef.from_bytes(value), scope))
        elif kind == "node_list":
            for value in values:
                graph.add_to_collection(key, graph.as_graph_element(prepend_name_scope(value, scope)))
        elif kind == "int64_list":
            for value in values:
                graph.add_to_collection(key, int(value))
        elif kind == "bytes_list":
            for value in values:  # TF prepends a scope to plain strings too (as str); without one they stay bytes
                graph.add_to_collection(key, prepend_name_scope(value.decode("utf-8", "surrogateescape"), scope)
                                        if scope else value)
        else:
            for value in values:
                graph.add_to_collection(key, value)


def import_scoped_meta_graph(meta_graph_or_file, saver_from_def: Callable[[SaverDef, str], object],
                             clear_devices: bool = False, import_scope: str | None = None,
                             **kwargs) -> tuple[MetaGraphDef, dict]:
    """Recreates the graph and collections of a MetaGraphDef (or ``.meta`` file, binary or text) in the
    default graph (meta_graph.import_scoped_meta_graph); returns (the MetaGraphDef, {name without the
    import scope: variable} of the imported global variables).

    ``saver_from_def(saver_def, scope)`` makes the objects of the ``savers`` collection.  Keyword args:
    ``graph`` (the graph to import into, default the default graph), ``input_map``, ``unbound_inputs_col_name``
    ("unbound_inputs"), ``restore_collections_predicate`` (key -> bool).

    Raises:
        OSError: if the file cannot be read; ValueError: for unbound inputs or an inconsistent graph.
    """
    input_map = kwargs.pop("input_map", None)
    unbound_inputs_col_name = kwargs.pop("unbound_inputs_col_name", "unbound_inputs")
    predicate = kwargs.pop("restore_collections_predicate", lambda key: True)
    kwargs.pop("return_elements", None)
    graph = kwargs.pop("graph", None) or graph_lib.get_default_graph()
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
    graph_def = meta.graph_def or GraphDef()
    if clear_devices:
        graph_def = GraphDef.from_bytes(graph_def.to_bytes())
        for node in graph_def.node:
            node.device = ""
    with graph.as_default():
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        op_list = meta.meta_info_def.stripped_op_list if meta.meta_info_def else None
        import_graph_def(graph_def, name=import_scope or scope, input_map=input_map, producer_op_list=op_list)
        _import_collections(meta, graph, scope, predicate, unbound_inputs_col_name, saver_from_def)
        imported = {strip_name_scope(v.name, scope): v
                    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope or None)
                    if hasattr(v, "name")}
    return meta, imported


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
        if key in VARIABLE_COLLECTIONS and kind == "bytes_list":
            for value in values:
                proto = VariableDef.from_bytes(value)
                info = proto.save_slice_info_def
                part = f" part of {info.full_name}{list(info.full_shape)} at {list(info.var_offset)}" if info else ""
                lines.append(f"    {proto.variable_name}{part}")
    if meta.saver_def is not None:
        lines.append("saver_def: " + text_format.to_text(meta.saver_def).strip().replace("\n", ", "))
    return "\n".join(lines) + "\n"
