"""The TF2 object graph (`_CHECKPOINTABLE_OBJECT_GRAPH`): decode, paths, key <-> full_name maps.

Layout (tf-checkpoint-format.md §8): the checkpoint key ``_CHECKPOINTABLE_OBJECT_GRAPH`` holds a DT_STRING
scalar whose one element is a serialized TrackableObjectGraph::

    TrackableObjectGraph  : 1 nodes repeated TrackableObject          node 0 = the root
    TrackableObject       : 1 children repeated {1 node_id int32, 2 local_name string}
                            2 attributes repeated {1 name, 2 full_name, 3 checkpoint_key}
                            3 slot_variables repeated {1 original_variable_node_id, 2 slot_name,
                                                       3 slot_variable_node_id}
                            4 registered_saver {1 name, 2 object_name}
                            5 has_checkpoint_values google.protobuf.BoolValue {1 value}

Nodes are numbered breadth-first from the root; paths and keys are saver/storage/object_graph_keys.py's (a
slot variable is a node reached only through its optimizer's ``slot_variables``).
Encoding (the graph TensorFlow would write for a description) is saver/storage/object_graph_builder.py.
"""

from __future__ import annotations

import dataclasses
import os
from collections import deque
from typing import TYPE_CHECKING
from collections.abc import Callable, Iterator

import numpy as np

from graph.errors import DataLossError, NotFoundError
from saver.format.bundle_reader import BundleReader
from saver.format.proto import TrackableObjectGraph
from saver.storage import state
from saver.storage.object_graph_keys import (OBJECT_ATTRIBUTES_NAME, OBJECT_GRAPH_PROTO_KEY, OPTIMIZER_SLOTS_NAME,
                                             VARIABLE_VALUE_KEY, checkpoint_key, object_path_to_string,
                                             slot_variable_key)

if TYPE_CHECKING:
    import networkx

__all__ = [
    "Attribute", "SlotVariable", "RegisteredSaver", "Node",
    "ObjectGraph", "object_graph_from_checkpoint", "object_graph_key_mapping",
]

_Proto = TrackableObjectGraph.TrackableObject
_MAX_SHOWN_DEPTH = 256  # tree(): deeper reference targets print as "?" to keep the output linear


# ------------------------------------------------------------------------------------------ records


@dataclasses.dataclass(frozen=True)
class Attribute:
    """A saved tensor of a node (SerializedTensor)."""
    name: str
    full_name: str
    checkpoint_key: str


@dataclasses.dataclass(frozen=True)
class SlotVariable:
    """An optimizer slot: `optimizer_node_id` keeps `slot_name` of the original variable in another node."""
    optimizer_node_id: int
    original_variable_node_id: int
    slot_name: str
    slot_variable_node_id: int


@dataclasses.dataclass(frozen=True)
class RegisteredSaver:
    """A saver registered with tf.saved_model's registration (its keys live in an extra shard)."""
    name: str
    object_name: str


@dataclasses.dataclass(frozen=True)
class Node:
    """One TrackableObject (paths come from ObjectGraph.path / path_string)."""
    node_id: int
    children: tuple[tuple[int, str], ...]
    attributes: tuple[Attribute, ...]
    slot_variables: tuple[SlotVariable, ...]
    registered_saver: RegisteredSaver | None
    has_checkpoint_values: bool | None


# ------------------------------------------------------------------------------------- the graph


class ObjectGraph:
    """A decoded TrackableObjectGraph: nodes, BFS paths, slot variables, on a networkx.MultiDiGraph.

    Graph edges: ``parent -> child`` (kind ``"child"``, key = local name) and ``optimizer -> slot``
    (kind ``"slot"``, key = slot name, ``original`` = the slotted variable's node id).

    Raises:
      DataLossError: if the graph has no nodes or refers to a node id that does not exist.
    """

    def __init__(self, proto: TrackableObjectGraph, source: str = "object graph"):
        self.proto = proto
        self.source = source
        count = len(proto.nodes)
        if count == 0:
            raise DataLossError(None, None, "%s: the object graph has no nodes (node 0 must be the root)" % source)

        def check(node_id: int, node: int, what: str) -> int:
            if not 0 <= node_id < count:
                raise DataLossError(None, None, "%s: node %d refers to node %d as %s, but the graph has %d nodes (0..%d)"
                                    % (source, node, node_id, what, count, count - 1))
            return node_id

        # Read every proto field once into plain tuples: later passes (BFS, paths, tree) use these.
        raw = [(tuple((c.node_id, c.local_name) for c in node.children),
                tuple(Attribute(a.name, a.full_name, a.checkpoint_key) for a in node.attributes),
                tuple((s.original_variable_node_id, s.slot_name, s.slot_variable_node_id)
                      for s in node.slot_variables),
                node.registered_saver, node.has_checkpoint_values) for node in proto.nodes]
        self._children = [children for children, _, _, _, _ in raw]
        slots: list[SlotVariable] = []
        edges = []
        for node_id, (children, _, node_slots, _, _) in enumerate(raw):
            for child_id, name in children:
                check(child_id, node_id, "child %r" % name)
                edges.append((node_id, child_id, name, {"kind": "child"}))
            for original, slot_name, slot_id in node_slots:
                check(original, node_id, "the original of slot %r" % slot_name)
                check(slot_id, node_id, "slot variable %r" % slot_name)
                slots.append(SlotVariable(node_id, original, slot_name, slot_id))
                edges.append((node_id, slot_id, slot_name, {"kind": "slot", "original": original}))
        self._edges = edges
        self._graph = None  # networkx.MultiDiGraph, built on first use
        self._slots = slots
        self._depth: dict[int, int] = {0: 0}
        self._tree_edges = self._bfs_tree()
        self._slot_names: dict[int, SlotVariable] = {}
        for slot in slots:  # slot nodes are named after their variable and optimizer (util.py)
            if slot.slot_variable_node_id not in self._tree_edges and slot.slot_variable_node_id != 0 and \
                    self._reachable(slot.original_variable_node_id) and self._reachable(slot.optimizer_node_id):
                self._slot_names.setdefault(slot.slot_variable_node_id, slot)
        by_optimizer: dict[int, list[SlotVariable]] = {}
        for slot in slots:
            by_optimizer.setdefault(slot.optimizer_node_id, []).append(slot)
        self.nodes: list[Node] = [
            Node(node_id=node_id, children=children, attributes=attributes,
                 slot_variables=tuple(by_optimizer.get(node_id, ())),
                 registered_saver=None if saver is None else RegisteredSaver(saver.name, saver.object_name),
                 has_checkpoint_values=None if checked is None else bool(checked.value))
            for node_id, (children, attributes, _, saver, checked) in enumerate(raw)]

    @property
    def graph(self) -> networkx.MultiDiGraph:
        """The nodes and edges as a networkx.MultiDiGraph (built on first use)."""
        # Imported on first use: networkx takes ~125 ms to import and only this view needs it.
        import networkx as nx
        if self._graph is None:
            self._graph = nx.MultiDiGraph()
            self._graph.add_nodes_from(range(len(self._children)))
            self._graph.add_edges_from(self._edges)
        return self._graph

    def _bfs_tree(self) -> dict[int, tuple[int, int]]:
        """node -> (parent, index in the parent's children) of its first breadth-first edge from the root."""
        edges: dict[int, tuple[int, int]] = {}
        queue = deque([0])
        while queue:  # each node enters the queue once, so cycles end
            current = queue.popleft()
            for index, (child_id, _) in enumerate(self._children[current]):
                if child_id != 0 and child_id not in edges:
                    edges[child_id] = (current, index)
                    self._depth[child_id] = self._depth[current] + 1
                    queue.append(child_id)
        return edges

    def _reachable(self, node_id: int) -> bool:
        return node_id == 0 or node_id in self._tree_edges

    def path(self, node_id: int) -> tuple[str, ...] | None:
        """The unescaped local names on the BFS-first path to a node; None for slots and unreachable nodes."""
        if not self._reachable(node_id):
            return None
        names = []
        while node_id != 0:  # O(depth): nothing is cached, so hostile deep chains stay linear in memory
            parent, index = self._tree_edges[node_id]
            names.append(self._children[parent][index][1])
            node_id = parent
        return tuple(reversed(names))

    def path_string(self, node_id: int) -> str | None:
        """The escaped object path (``net/l1/_kernel``; a slot: ``v/.OPTIMIZER_SLOT/opt/m``), or None."""
        path = self.path(node_id)
        if path is not None:
            return object_path_to_string(path)
        slot = self._slot_names.get(node_id)
        if slot is None:
            return None
        return slot_variable_key(self.path_string(slot.original_variable_node_id),
                                 self.path_string(slot.optimizer_node_id), slot.slot_name)

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "object graph") -> ObjectGraph:
        """Decodes a serialized TrackableObjectGraph.

        Raises:
          DataLossError: if the bytes are not a valid graph.
        """
        try:
            proto = TrackableObjectGraph.from_bytes(data)
        except DataLossError as error:
            raise DataLossError(None, None, "%s: cannot parse the TrackableObjectGraph (%d bytes): %s"
                                % (source, len(data), error.message)) from error
        return cls(proto, source)

    def to_bytes(self) -> bytes:
        """The serialized TrackableObjectGraph."""
        return self.proto.to_bytes()

    # -- access ----------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.nodes)

    def __getitem__(self, node_id: int) -> Node:
        return self.nodes[node_id]

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    @property
    def root(self) -> Node:
        """Node 0."""
        return self.nodes[0]

    def attributes(self) -> Iterator[tuple[Node, Attribute]]:
        """Every (node, attribute) in node order."""
        for node in self.nodes:
            for attribute in node.attributes:
                yield node, attribute

    def key_to_full_name(self) -> dict[str, str]:
        """checkpoint_key -> full_name over every attribute."""
        return {a.checkpoint_key: a.full_name for _, a in self.attributes()}

    def full_name_to_key(self) -> dict[str, str]:
        """full_name -> checkpoint_key; if two attributes share a full_name the later one wins, as TF."""
        return {a.full_name: a.checkpoint_key for _, a in self.attributes()}

    def slot_variables(self) -> list[SlotVariable]:
        """Every slot variable, in the order the optimizers list them."""
        return list(self._slots)

    def attribute_for_key(self, key: str) -> tuple[Node, Attribute]:
        """The (node, attribute) that saved tensor `key`.

        An attribute's checkpoint_key may be a prefix of its tensors' keys: a tf.data iterator's attribute
        ``iterator/.ATTRIBUTES/ITERATOR`` saves ``iterator/.ATTRIBUTES/ITERATOR_STATE``, and ``.TENSORS``
        attributes save ``<path>/.ATTRIBUTES/<name>``.  The exact key wins, then the longest prefix.

        Raises:
          NotFoundError: if no attribute has that key or a prefix of it.
        """
        best = None
        for node, attribute in self.attributes():
            if attribute.checkpoint_key == key:
                return node, attribute
            if key.startswith(attribute.checkpoint_key) and attribute.checkpoint_key and \
                    (best is None or len(attribute.checkpoint_key) > len(best[1].checkpoint_key)):
                best = (node, attribute)
        if best is None:
            raise NotFoundError(None, None, "{}: no object has the checkpoint key {!r}".format(self.source, key))
        return best

    def expected_checkpoint_key(self, node_id: int, attribute_name: str) -> str | None:
        """The key TF would give attribute `attribute_name` of node `node_id` (None if it has no path)."""
        path = self.path_string(node_id)
        return None if path is None else checkpoint_key(path, attribute_name)

    # -- rendering -------------------------------------------------------------------------------

    def tree(self, annotate: Callable[[str], str] | None = None, max_depth: int | None = 64) -> str:
        """An indented, filesystem-like rendering: each node under its BFS-first parent, once.

        Other references to a node print as ``name [id] -> path``; slot variables appear under their
        optimizer.  `annotate(checkpoint_key)` may add text (e.g. dtype and shape) after each attribute.
        Output is bounded by the number of edges, whatever cycles the graph has.
        """
        lines = ["/ [0]" + self._attribute_text(self.root, annotate)]
        stack = [(text, expand, 1) for text, expand in reversed(self._items(0, annotate))]
        while stack:
            text, expand, level = stack.pop()
            lines.append("  " * level + text)
            if expand is None:
                continue
            if max_depth is not None and level >= max_depth:
                if self.nodes[expand].children or self.nodes[expand].slot_variables:
                    lines.append("  " * (level + 1) + "... (deeper than max_depth=%d)" % max_depth)
                continue
            stack.extend((t, e, level + 1) for t, e in reversed(self._items(expand, annotate)))
        return "\n".join(lines) + "\n"

    def _items(self, node_id: int, annotate) -> list[tuple[str, int | None]]:
        """(line text, node to expand below it or None) for each child and slot of a node."""
        items = []
        for index, (child_id, name) in enumerate(self.nodes[node_id].children):
            child = self.nodes[child_id]
            if self._tree_edges.get(child_id) == (node_id, index):
                items.append(("%s [%d]%s" % (_display(name), child_id, self._attribute_text(child, annotate)),
                              child_id))
            else:
                target = self.path_string(child_id) if self._depth.get(child_id, 0) <= _MAX_SHOWN_DEPTH else None
                items.append(("%s [%d] -> %s" % (_display(name), child_id, "?" if target is None else "/" + target),
                              None))
        for slot in self.nodes[node_id].slot_variables:
            child = self.nodes[slot.slot_variable_node_id]
            original = self.path_string(slot.original_variable_node_id)
            items.append(("%s %s of %s [%d]%s" % (OPTIMIZER_SLOTS_NAME, _display(slot.slot_name),
                                                  "?" if original is None else "/" + original, child.node_id,
                                                  self._attribute_text(child, annotate)), None))
        return items

    @staticmethod
    def _attribute_text(node: Node, annotate) -> str:
        parts = []
        for attribute in node.attributes:
            extra = annotate(attribute.checkpoint_key) if annotate else ""
            parts.append("{}={}{}".format(attribute.name, attribute.full_name or "''", " " + extra if extra else ""))
        return ("  {" + ", ".join(parts) + "}") if parts else ""


def _display(name: str) -> str:
    return name if name and name.isprintable() else repr(name)


# ------------------------------------------------------------------------------------ from a checkpoint


def _object_graph_bytes(reader_or_prefix) -> tuple[bytes, str]:
    if isinstance(reader_or_prefix, (str, os.PathLike)):
        prefix = os.fspath(reader_or_prefix)
        if os.path.isdir(prefix):
            latest = state.latest_checkpoint(prefix)
            if latest is None:
                raise NotFoundError(None, None, "Couldn't find 'checkpoint' file or checkpoints in given directory %s" % prefix)
            prefix = latest
        with BundleReader(prefix) as reader:
            return _read_graph_tensor(reader, prefix), prefix
    source = getattr(reader_or_prefix, "prefix", None) or type(reader_or_prefix).__name__
    return _read_graph_tensor(reader_or_prefix, source), source


def _read_graph_tensor(reader, source: str) -> bytes:
    has = getattr(reader, "has_tensor", None) or getattr(reader, "contains")
    if not has(OBJECT_GRAPH_PROTO_KEY):
        raise NotFoundError(None, None, "%s has no %s: it is not an object-based (TF2) checkpoint"
                            % (source, OBJECT_GRAPH_PROTO_KEY))
    value = reader.get_tensor(OBJECT_GRAPH_PROTO_KEY)
    if isinstance(value, np.ndarray):
        if value.shape != ():
            raise DataLossError(None, None, "{}: {} has shape {}, expected a scalar".format(source, OBJECT_GRAPH_PROTO_KEY,
                                                                            list(value.shape)))
        value = value.item()
    if not isinstance(value, bytes):
        raise DataLossError(None, None, "{}: {} holds {}, expected a string".format(source, OBJECT_GRAPH_PROTO_KEY,
                                                                    type(value).__name__))
    return value


def object_graph_from_checkpoint(reader_or_prefix) -> ObjectGraph:
    """Decodes the object graph of a TF2 checkpoint (a prefix, a directory, or an open reader).

    Raises:
      NotFoundError: if the checkpoint has no object graph (a TF1 name-based checkpoint).
      DataLossError: if the graph is damaged.
    """
    data, source = _object_graph_bytes(reader_or_prefix)
    return ObjectGraph.from_bytes(data, source)


def object_graph_key_mapping(checkpoint_path) -> dict[str, str]:
    """{full_name: checkpoint key} over every attribute of a TF2 checkpoint's object graph (later wins), as
    TF's saver.object_graph_key_mapping; object paths (``net/l1/_kernel``, also without leading underscores,
    ``net/l1/kernel``) and the keys themselves map to their keys too, where that is unambiguous, so a
    name-based Saver built with ``{object path or key: variable}`` restores.

    Raises:
        NotFoundError: if the checkpoint has no ``_CHECKPOINTABLE_OBJECT_GRAPH``.
    """
    graph = object_graph_from_checkpoint(checkpoint_path)
    names_to_keys: dict[str, str] = {}
    aliases: dict[str, set] = {}
    suffix = "/" + OBJECT_ATTRIBUTES_NAME + "/" + VARIABLE_VALUE_KEY
    for _, attribute in graph.attributes():
        key = attribute.checkpoint_key
        names_to_keys[attribute.full_name] = key
        aliases.setdefault(key, set()).add(key)
        if key.endswith(suffix):
            path = key[:-len(suffix)]
            aliases.setdefault(path, set()).add(key)
            aliases.setdefault("/".join(part.lstrip("_") or part for part in path.split("/")), set()).add(key)
    for alias, keys in aliases.items():
        if alias not in names_to_keys and len(keys) == 1:
            names_to_keys[alias] = next(iter(keys))
    return names_to_keys
