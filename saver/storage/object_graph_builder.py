"""Encoding a TF2 object graph: the TrackableObjectGraph TensorFlow would write for a nested description.

``build_object_graph({"net": {"l1": {"kernel": "net/l1/kernel"}}})`` numbers the objects breadth-first
from the root, builds each attribute's checkpoint key and each slot variable's path as TensorFlow's
``graph_view`` / ``util.py`` do, and marks ``has_checkpoint_values`` on every node holding a value and on its
ancestors.  The result is an :class:`ObjectGraph` (its ``to_bytes()`` is the tensor a checkpoint stores).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

from saver.format.proto import BoolValue, TrackableObjectGraph
from saver.storage.object_graph import ObjectGraph
from saver.storage.object_graph_keys import (OBJECT_ATTRIBUTES_NAME, VARIABLE_VALUE_KEY, checkpoint_key,
                                             escape_local_name, slot_variable_key)

__all__ = ["Var", "build_object_graph"]

_Proto = TrackableObjectGraph.TrackableObject


class Var:
    """A variable leaf for build_object_graph; the same Var object used twice is one node (shared)."""

    def __init__(self, full_name: str, attribute: str = VARIABLE_VALUE_KEY):
        self.full_name = full_name
        self.attribute = attribute

    def __repr__(self) -> str:
        return "Var(%r)" % self.full_name


def build_object_graph(root: Mapping, slots: Sequence[tuple[object, object, str, str]] = ()) -> ObjectGraph:
    """Builds the TrackableObjectGraph TF would write for a nested description.

    Args:
      root: a dict of local name -> child, where a child is a dict (an object; the same dict object twice is
        one node), a `Var` (shared by identity) or a str (a new variable node with that full_name).  The
        key ``".ATTRIBUTES"`` holds ``{attribute name: full_name}`` for the object itself.
      slots: ``(optimizer, variable, slot_name, slot_full_name)`` where optimizer/variable are objects from
        `root`; ordered as TF does (optimizers in node order, slot names sorted, variables in node order).

    Returns:
      The ObjectGraph, with node ids, checkpoint keys and has_checkpoint_values as TF assigns them.
    """
    objects: list[object] = [root]
    ids = {id(root): 0}
    children: list[list[tuple[int, str]]] = [[]]
    paths: list[str] = [""]
    queue = deque([root])
    while queue:  # breadth-first numbering, as graph_view.breadth_first_traversal
        current = queue.popleft()
        if not isinstance(current, Mapping):
            continue
        for name, child in current.items():
            if name == OBJECT_ATTRIBUTES_NAME:
                continue
            if isinstance(child, str):
                child = Var(child)
            elif not isinstance(child, (Mapping, Var)):
                raise TypeError("object %r: child %r must be a dict, Var or str, got %s"
                                % (paths[ids[id(current)]], name, type(child).__name__))
            if id(child) not in ids:
                ids[id(child)] = len(objects)
                objects.append(child)
                children.append([])
                paths.append((paths[ids[id(current)]] + "/" if ids[id(current)] else "") + escape_local_name(name))
                queue.append(child)
            children[ids[id(current)]].append((ids[id(child)], name))
    reachable = len(objects)

    def node_of(obj, what) -> int:
        if id(obj) not in ids or ids[id(obj)] >= reachable:
            raise ValueError("slot {} {!r} is not an object of the description".format(what, obj))
        return ids[id(obj)]

    slot_refs: dict[int, list[_Proto.SlotVariableReference]] = {}
    slot_nodes: list[tuple[str, str]] = []
    ordered = sorted(slots, key=lambda s: (node_of(s[0], "optimizer"), s[2], node_of(s[1], "variable")))
    for optimizer, variable, slot_name, full_name in ordered:
        optimizer_id, variable_id = node_of(optimizer, "optimizer"), node_of(variable, "variable")
        slot_id = reachable + len(slot_nodes)
        slot_nodes.append((slot_variable_key(paths[variable_id], paths[optimizer_id], slot_name), full_name))
        slot_refs.setdefault(optimizer_id, []).append(_Proto.SlotVariableReference(
            original_variable_node_id=variable_id, slot_name=slot_name, slot_variable_node_id=slot_id))

    protos = []
    for node_id, obj in enumerate(objects):
        if isinstance(obj, Var):
            attributes = {obj.attribute: obj.full_name}
        else:
            attributes = dict(obj.get(OBJECT_ATTRIBUTES_NAME, {}))
        protos.append(_Proto(
            children=[_Proto.ObjectReference(node_id=c, local_name=n) for c, n in children[node_id]],
            attributes=[_Proto.SerializedTensor(name=a, full_name=f, checkpoint_key=checkpoint_key(paths[node_id], a))
                        for a, f in attributes.items()],
            slot_variables=slot_refs.get(node_id, [])))
    for path, full_name in slot_nodes:
        protos.append(_Proto(attributes=[_Proto.SerializedTensor(
            name=VARIABLE_VALUE_KEY, full_name=full_name, checkpoint_key=checkpoint_key(path, VARIABLE_VALUE_KEY))]))
    _add_checkpoint_values_check(protos)
    return ObjectGraph(TrackableObjectGraph(nodes=protos), "built object graph")


def _add_checkpoint_values_check(protos: list[_Proto]) -> None:
    """Marks nodes holding values (attributes, slots, a registered saver) and all their ancestors (util.py)."""
    parents: dict[int, set] = {}
    marked = set()
    for node_id, proto in enumerate(protos):
        if proto.attributes or proto.slot_variables or proto.registered_saver is not None:
            marked.add(node_id)
        for child in proto.children:
            parents.setdefault(child.node_id, set()).add(node_id)
    to_visit = set(marked)
    while to_visit:
        current = to_visit.pop()
        for parent in parents.pop(current, ()):
            if parent not in marked:
                marked.add(parent)
            to_visit.add(parent)
    for node_id, proto in enumerate(protos):
        proto.has_checkpoint_values = BoolValue(value=node_id in marked)
