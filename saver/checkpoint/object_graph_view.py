"""The object graph of live Python objects: node ids, checkpoint keys and the serialized TrackableObjectGraph.

``serialize(root)`` numbers the objects reachable from `root` breadth-first (graph.tracking), describes
them to saver.storage.object_graph_builder (which assigns keys, slot nodes and has_checkpoint_values as
TensorFlow's ``util.py`` does) and returns the graph with ``{checkpoint key: variable}`` for the save op.
Node ids here equal the builder's: reachable objects first, then slot variables in the builder's order.
"""

from __future__ import annotations

import dataclasses

from graph.tracking import breadth_first_objects, slot_variables_of, trackable_children
from graph.variables.variables import Variable
from saver.storage.object_graph import ObjectGraph
from saver.storage.object_graph_builder import Var, build_object_graph

__all__ = ["SerializedView", "serialize", "full_name_of"]


@dataclasses.dataclass
class SerializedView:
    """An object graph of live objects: `objects[node_id]` is the Python object of each node."""
    graph: ObjectGraph
    objects: list
    keys_to_variables: dict[str, Variable]


def full_name_of(variable: Variable) -> str:
    """The full_name TF records for a variable: its op name (``net/w`` for ``net/w:0``)."""
    return variable.op.name


def serialize(root) -> SerializedView:
    """The object graph TF would write for `root`, with each node's object and each key's variable.

    Raises:
      TypeError: if `root` is a variable (the root of an object graph holds its values in children).
      ValueError: if a trackable data structure cannot be saved (mutated list, non-string dict key).
    """
    if isinstance(root, Variable):
        raise TypeError(f"The root of an object graph must be a trackable container, got the variable {root!r}")
    objects, _ = breadth_first_objects(root)
    descriptions = []
    for obj in objects:
        descriptions.append(Var(full_name_of(obj)) if isinstance(obj, Variable) else {})
    index_of = {id(obj): index for index, obj in enumerate(objects)}
    for index, obj in enumerate(objects):
        if isinstance(obj, Variable):
            continue
        for name, child in trackable_children(obj).items():
            descriptions[index][name] = descriptions[index_of[id(child)]]
    slots = slot_variables_of(objects)
    graph = build_object_graph(descriptions[0], [(descriptions[o], descriptions[v], name, full_name_of(slot))
                                                 for o, v, name, slot in slots])
    ordered_slots = sorted(slots, key=lambda s: (s[0], s[2], s[1]))
    all_objects = objects + [slot for _, _, _, slot in ordered_slots]
    keys_to_variables: dict[str, Variable] = {}
    for node_id, obj in enumerate(all_objects):
        if isinstance(obj, Variable):
            for attribute in graph.nodes[node_id].attributes:
                keys_to_variables[attribute.checkpoint_key] = obj
    return SerializedView(graph, all_objects, keys_to_variables)
