"""A picture of a TF2 checkpoint's object graph, coloured like the TF2 "Training checkpoints" guide.

The guide draws the dependency graph of ``tf.train.Checkpoint(step, optimizer, net, iterator)``
with the optimizer in red, regular variables in blue and optimizer slot variables in orange; so do
we, with other objects white. An arrow is an object's reference to another (named by the local
name when it is not the object's own); orange arrows go from an optimizer to its slot variables,
dotted orange ones from the variable a slot belongs to.

Slot variables are the object graph's ``slot_variables`` (TF1 and Keras 2 optimizers). Keras 3
optimizers keep slots as plain children instead (``optimizer/_momentums/0``...): those lists'
variables are slots too, element ``i`` belonging to ``_trainable_variables/i``.  With
``simplify=True`` (default) the optimizer's bookkeeping lists (``_variables``,
``_trainable_variables``) are left out when every object they list is drawn through another path.
"""

from __future__ import annotations

import os

from graph.errors import OpError
from graph.viz.figure import Edge, Figure, Node, render
from graph.viz.picture import write_figure
from saver.storage.object_graph import ObjectGraph, object_graph_from_checkpoint
from saver.storage.object_graph_keys import VARIABLE_VALUE_KEY
from saver.storage.reader import load_checkpoint

__all__ = ["figure", "to_dot", "to_svg", "write", "classify", "OPTIMIZER_COLOR", "VARIABLE_COLOR", "SLOT_COLOR"]

OPTIMIZER_COLOR = "#e45756"  # red, as the guide's figure
VARIABLE_COLOR = "#4c78a8"   # blue
SLOT_COLOR = "#f58518"       # orange
OBJECT_COLOR = "#ffffff"
_OPTIMIZER_MARKERS = frozenset(("_iterations", "iterations", "iter"))  # Keras 3, Keras 2, TF1 hyper children
_BOOKKEEPING_LISTS = frozenset(("_variables", "_trainable_variables", "_trainable_variables_indices"))


def _is_variable(graph: ObjectGraph, node_id: int) -> bool:
    return any(a.name == VARIABLE_VALUE_KEY for a in graph[node_id].attributes)


def classify(graph: ObjectGraph) -> tuple[set[int], dict[int, int | None], set[int]]:
    """(optimizer node ids, slot node id -> original variable node id or None, variable node ids)."""
    optimizers = {s.optimizer_node_id for s in graph.slot_variables()}
    for node in graph:
        names = {name for _, name in node.children}
        if names & _OPTIMIZER_MARKERS and not _is_variable(graph, node.node_id):
            optimizers.add(node.node_id)
    slots: dict[int, int | None] = {s.slot_variable_node_id: s.original_variable_node_id
                                       for s in graph.slot_variables()}
    for optimizer in sorted(optimizers):  # Keras 3: slot lists are plain children of the optimizer
        children = {name: child for child, name in graph[optimizer].children}
        trainable = graph[children["_trainable_variables"]].children if "_trainable_variables" in children else ()
        for child, name in graph[optimizer].children:
            if name in _BOOKKEEPING_LISTS or _is_variable(graph, child) or not graph[child].children:
                continue
            elements = graph[child].children
            if not all(element_name.isdigit() and _is_variable(graph, element) for element, element_name in elements):
                continue
            for element, element_name in elements:
                index = int(element_name)
                slots.setdefault(element, trainable[index][0] if index < len(trainable) else None)
    variables = {node.node_id for node in graph if _is_variable(graph, node.node_id)} - set(slots)
    return optimizers, slots, variables


def _hidden(graph: ObjectGraph, optimizers: set[int]) -> set[int]:
    """Bookkeeping list nodes of optimizers whose elements are all reachable without them."""
    hidden: set[int] = set()
    for optimizer in optimizers:
        for child, name in graph[optimizer].children:
            if name in _BOOKKEEPING_LISTS and not graph[child].attributes:
                hidden.add(child)
    if not hidden:
        return hidden
    # Imported on first use: networkx takes ~125 ms to import, and only pictures that hide nodes need it.
    import networkx as nx
    visible = nx.DiGraph()
    visible.add_nodes_from(range(len(graph)))
    for node in graph:
        if node.node_id in hidden:
            continue
        visible.add_edges_from((node.node_id, child) for child, _ in node.children if child not in hidden)
        visible.add_edges_from((node.node_id, s.slot_variable_node_id) for s in node.slot_variables)
    reachable = nx.descendants(visible, 0) | {0}
    return {h for h in hidden if all(child in reachable for child, _ in graph[h].children)}


def _describe(reader, key: str) -> str:
    if reader is None:
        return ""
    try:
        dtype = reader.get_variable_to_dtype_map().get(key)
        shape = reader.get_variable_to_shape_map().get(key)
    except OpError:  # a damaged entry must not stop the picture; the label says so
        return "(unreadable)"
    if dtype is None:  # an attribute's key may be a prefix of its tensor's (ITERATOR -> ITERATOR_STATE)
        longer = sorted(k for k in reader.get_variable_to_dtype_map() if k.startswith(key))
        if not longer:
            return "(missing)"
        key = longer[0]
        dtype, shape = reader.get_variable_to_dtype_map()[key], reader.get_variable_to_shape_map()[key]
    return f"{dtype.name} [{', '.join(map(str, shape))}]"


def figure(object_graph, reader=None, simplify: bool = True, title: str | None = None) -> Figure:
    """The Figure of an object graph (an ObjectGraph, or a checkpoint path/reader to read it from).

    ``reader`` (a CheckpointReader) adds each variable's dtype and shape to its box.
    """
    if isinstance(object_graph, (str, os.PathLike)):
        with load_checkpoint(object_graph) as opened:
            return figure(object_graph_from_checkpoint(opened), reader or opened, simplify, title)
    if not isinstance(object_graph, ObjectGraph):
        reader = object_graph if reader is None else reader
        object_graph = object_graph_from_checkpoint(object_graph)
    graph = object_graph
    optimizers, slots, variables = classify(graph)
    hidden = _hidden(graph, optimizers) if simplify else set()
    slot_names = {s.slot_variable_node_id: s.slot_name for s in graph.slot_variables()}
    shown_name: dict[int, str] = {0: "root"}
    for node in graph:  # Keras 3 slots are list elements: name them with their list ("_momentums/0")
        if node.node_id in optimizers:
            for child, list_name in node.children:
                if list_name in _BOOKKEEPING_LISTS:
                    continue
                for element, index in graph[child].children:
                    if element in slots and element not in slot_names:
                        shown_name.setdefault(element, f"{list_name}/{index}")
    edges: list[Edge] = []
    for node in graph:  # names: the first visible reference wins
        if node.node_id in hidden:
            continue
        for child, name in node.children:
            if child not in hidden:
                shown_name.setdefault(child, name)
        for slot in node.slot_variables:
            shown_name.setdefault(slot.slot_variable_node_id, slot.slot_name)
    picture = Figure(title=title if title is not None else f"object graph of {getattr(graph, 'source', '')}"
                     .rstrip())
    for node in graph:
        if node.node_id in hidden:
            continue
        name = shown_name.get(node.node_id, f"[{node.node_id}]")
        lines = [name if name.isprintable() else repr(name)]
        for attribute in node.attributes:
            if attribute.name == VARIABLE_VALUE_KEY:
                lines.append(attribute.full_name or "''")
            else:
                lines.append(f".{attribute.name}")
            described = _describe(reader, attribute.checkpoint_key)
            if described:
                lines.append(described)
        if node.node_id in optimizers:
            fill, color, font = OPTIMIZER_COLOR, "#8b1a1a", "#ffffff"
        elif node.node_id in slots:
            fill, color, font = SLOT_COLOR, "#8a4b08", "#000000"
        elif node.node_id in variables:
            fill, color, font = VARIABLE_COLOR, "#1f3b63", "#ffffff"
        else:
            fill, color, font = OBJECT_COLOR, "#333333", "#000000"
        shape = "box" if node.node_id in variables or node.node_id in slots else "ellipse"
        picture.add_node(Node(str(node.node_id), "\n".join(lines), shape=shape, fill=fill, color=color,
                              fontcolor=font, tooltip=graph.path_string(node.node_id) or name))
    for node in graph:
        if node.node_id in hidden:
            continue
        for child, name in node.children:
            if child in hidden:
                continue
            own = shown_name.get(child) in (name, f"{shown_name.get(node.node_id)}/{name}")
            optimizer_slot = node.node_id not in optimizers and child in slots
            edges.append(Edge(str(node.node_id), str(child), label="" if own else name,
                              color=SLOT_COLOR if (node.node_id in optimizers or optimizer_slot) and child in slots
                              else "#333333"))
        for slot in node.slot_variables:
            edges.append(Edge(str(node.node_id), str(slot.slot_variable_node_id), color=SLOT_COLOR,
                              label="" if shown_name.get(slot.slot_variable_node_id) == slot.slot_name
                              else slot.slot_name))
    for slot, original in sorted(slots.items()):
        if original is not None and original not in hidden and slot not in hidden:
            edges.append(Edge(str(original), str(slot), color=SLOT_COLOR, style="dotted", constraint=False,
                              label=slot_names.get(slot, "")))
    for edge in edges:
        picture.add_edge(edge)
    picture.legend = [("optimizer", OPTIMIZER_COLOR, "#8b1a1a"), ("variable", VARIABLE_COLOR, "#1f3b63"),
                      ("optimizer slot variable", SLOT_COLOR, "#8a4b08"), ("other object", OBJECT_COLOR, "#333333")]
    return picture


def to_dot(checkpoint, reader=None, simplify: bool = True, title: str | None = None) -> str:
    """DOT text of the object graph picture of a checkpoint (path, reader or ObjectGraph)."""
    return figure(checkpoint, reader, simplify, title).to_dot()


def to_svg(checkpoint, reader=None, simplify: bool = True, title: str | None = None,
           engine: str = "builtin") -> str:
    """SVG of the object graph picture: our own layout, or Graphviz's with ``engine="dot"``."""
    picture = figure(checkpoint, reader, simplify, title)
    if engine == "dot":
        return render(picture.to_dot(), "svg").decode("utf-8")
    return picture.to_svg()


def write(path: str, checkpoint, reader=None, simplify: bool = True, title: str | None = None,
          engine: str | None = None) -> str:
    """Writes the picture atomically; the format follows the extension (.svg, .dot, .png, .pdf)."""
    return write_figure(figure(checkpoint, reader, simplify, title), path, engine)
