"""A picture of a TF1 graph: variables, their initializers, initialized_value dependencies, devices.

Two levels of detail:

* ``detail="variables"`` (default): one box per variable (dtype and shape inside), the op that
  initializes it (its ``Assign``, with the op that computes the initial value), the ``init`` ops
  grouping initializers, control dependencies among these, and an orange dashed arrow from each
  variable whose value another's initializer reads (``initialized_value()``).
* ``detail="ops"``: every op, data edges (bold for reference edges), control edges dashed.

Fill colour is the op's device (legend on the side); a variable has a double border. Write DOT
text (``to_dot``), SVG from our own layout (``to_svg``; no Graphviz needed), or any format Graphviz's
``dot`` knows when it is installed (``write("graph.png")``).
"""

from __future__ import annotations

import os

from graph.core import graph as graph_lib
from graph.variables.initialization_order import initialization_dependencies
from graph.platform import file_io
from graph.viz.figure import Edge, Figure, Node, render

__all__ = ["figure", "to_dot", "to_svg", "write", "DEVICE_COLORS"]

# Fills for devices in sorted order (ColorBrewer Set3/Pastel, light enough for black text).
DEVICE_COLORS = ("#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99", "#8dd3c7", "#bebada",
                 "#fccde5", "#ccebc5", "#ffed6f", "#d9d9d9")
NO_DEVICE_COLOR = "#ffffff"
VARIABLE_BORDER = "#1f4e9c"
INITIALIZER_BORDER = "#d95f02"
INITIALIZED_VALUE_COLOR = "#e6550d"
CONTROL_COLOR = "#888888"
_VARIABLE_OP_TYPES = frozenset(("Variable", "VariableV2", "VarHandleOp", "AutoReloadVariable"))
_DETAILS = ("variables", "ops")


def _shape_text(tensor) -> str:
    shape = tensor.shape
    if shape.dims is None:
        return "<unknown>"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _variables_by_op(graph) -> dict[str, object]:
    """variable op name -> the Variable object of a collection (for its initializer and initial value)."""
    found = {}
    for key in (graph_lib.GraphKeys.GLOBAL_VARIABLES, graph_lib.GraphKeys.LOCAL_VARIABLES):
        for variable in graph.get_collection(key):
            op = getattr(variable, "op", None)
            if op is not None and getattr(variable, "initializer", None) is not None:
                found.setdefault(op.name, variable)
    return found


def _initializers(graph, variable_ops, variables) -> dict[str, object]:
    """variable op name -> its initializer op (the collection's, else the ``<name>/Assign`` writing it)."""
    result = {}
    for op in variable_ops:
        variable = variables.get(op.name)
        if variable is not None:
            result[op.name] = variable.initializer
            continue
        candidate = graph._get_operation_or_none(op.name + "/Assign")
        if candidate is not None and candidate.inputs and candidate.inputs[0].op is op:
            result[op.name] = candidate
    return result


def _device_fills(ops) -> dict[str, str]:
    devices = sorted({op.device for op in ops if op.device})
    fills = {device: DEVICE_COLORS[i % len(DEVICE_COLORS)] for i, device in enumerate(devices)}
    fills[""] = NO_DEVICE_COLOR
    return fills


def _initialization_edges(variables) -> list[tuple]:
    """(read variable op name, initialized variable op name) for each ``initialized_value`` dependency."""
    if not variables:
        return []
    return sorted(initialization_dependencies(list(variables.values())).edges())


def figure(graph=None, detail: str = "variables", title: str | None = None) -> Figure:
    """The Figure of a graph (the default graph if None) at the given detail ("variables" or "ops").

    Raises:
        ValueError: for an unknown detail.
    """
    if detail not in _DETAILS:
        raise ValueError(f"detail must be one of {', '.join(_DETAILS)}, got {detail!r}")
    graph = graph_lib.get_default_graph() if graph is None else graph
    ops = graph.get_operations()
    variable_ops = [op for op in ops if op.type in _VARIABLE_OP_TYPES]
    variables = _variables_by_op(graph)
    initializers = _initializers(graph, variable_ops, variables)
    initializer_of = {init.name: name for name, init in initializers.items()}
    if detail == "variables":
        kept = _kept_for_variables(ops, variable_ops, initializer_of)
    else:
        kept = ops
    fills = _device_fills(kept)
    picture = Figure(title=title if title is not None else
                     f"{len(variable_ops)} variables, {len(ops)} ops" + (" (variables and initializers)"
                                                                         if detail == "variables" else ""))
    for op in kept:
        picture.add_node(_node(op, fills[op.device], initializer_of, variables, detail))
    names = {op.name for op in kept}
    for op in kept:
        for index, tensor in enumerate(op.inputs):
            source = tensor.op.name
            if source not in names or (detail == "variables" and op.name not in initializer_of):
                continue
            is_ref = tensor.dtype._is_ref_dtype
            picture.add_edge(Edge(source, op.name, style="bold" if is_ref else "solid",
                                  color=VARIABLE_BORDER if is_ref else "#333333"))
        for control in op.control_inputs:
            if control.name in names:
                picture.add_edge(Edge(control.name, op.name, color=CONTROL_COLOR, style="dashed"))
    for read, initialized in _initialization_edges(variables):
        target = initializers.get(initialized)
        if read in names and target is not None and target.name in names:
            picture.add_edge(Edge(read, target.name, label="initialized_value", color=INITIALIZED_VALUE_COLOR,
                                  style="dashed", constraint=detail == "variables"))
    picture.legend = [(device or "(no device)", fills[device], "#333333")
                      for device in sorted(fills, key=lambda d: (d == "", d)) if any(op.device == device
                                                                                    for op in kept)]
    picture.legend += [("variable (double border); blue arrow: its reference", "#ffffff", VARIABLE_BORDER),
                       ("initializer", "#ffffff", INITIALIZER_BORDER),
                       ("initialized_value() read (orange dashed)", INITIALIZED_VALUE_COLOR, INITIALIZED_VALUE_COLOR),
                       ("control dependency (grey dashed)", CONTROL_COLOR, CONTROL_COLOR)]
    return picture


def _kept_for_variables(ops, variable_ops, initializer_of) -> list:
    """Variables, initializers, and ops whose control inputs lead (through such ops) to an initializer."""
    keep = {op.name for op in variable_ops} | set(initializer_of)
    reaches: dict[str, bool] = {}

    def leads_to_initializer(op) -> bool:
        stack = [(op, False)]
        while stack:  # iterative post-order over control inputs
            current, expanded = stack.pop()
            if current.name in reaches:
                continue
            if not expanded:
                stack.append((current, True))
                stack.extend((c, False) for c in current.control_inputs if c.name not in reaches)
                continue
            reaches[current.name] = current.name in initializer_of or any(
                reaches.get(c.name, False) for c in current.control_inputs)
        return reaches[op.name]

    for op in ops:
        if op.control_inputs and leads_to_initializer(op):
            keep.add(op.name)
    return [op for op in ops if op.name in keep]


def _node(op, fill: str, initializer_of, variables, detail: str) -> Node:
    tooltip = f"{op.name} ({op.type})" + (f" on {op.device}" if op.device else "")
    if op.type in _VARIABLE_OP_TYPES:
        output = op.outputs[0]
        label = f"{op.name}\n{output.dtype.base_dtype.name} {_shape_text(output)}"
        return Node(op.name, label, shape="box", fill=fill, color=VARIABLE_BORDER, penwidth=1.6, peripheries=2,
                    tooltip=tooltip)
    if op.name in initializer_of:
        variable = variables.get(initializer_of[op.name])
        source = variable.initial_value.op.name if variable is not None else (
            op.inputs[1].op.name if len(op.inputs) > 1 else "?")
        label = f"{op.name}\n{op.type} ← {source}" if detail == "variables" else f"{op.name}\n{op.type}"
        return Node(op.name, label, shape="ellipse", fill=fill, color=INITIALIZER_BORDER, penwidth=1.8,
                    tooltip=tooltip)
    shape = "octagon" if op.type == "NoOp" else "ellipse"
    return Node(op.name, f"{op.name}\n{op.type}", shape=shape, fill=fill, tooltip=tooltip)


def to_dot(graph=None, detail: str = "variables", title: str | None = None) -> str:
    """Graphviz DOT text of the graph's picture (the default graph if None)."""
    return figure(graph, detail, title).to_dot()


def to_svg(graph=None, detail: str = "variables", title: str | None = None, engine: str = "builtin") -> str:
    """SVG of the graph's picture: laid out here (``engine="builtin"``) or by Graphviz (``engine="dot"``).

    Raises:
        GraphvizNotFoundError: for engine "dot" without Graphviz installed.
    """
    picture = figure(graph, detail, title)
    if engine == "builtin":
        return picture.to_svg()
    if engine == "dot":
        return render(picture.to_dot(), "svg").decode("utf-8")
    raise ValueError(f"engine must be 'builtin' or 'dot', got {engine!r}")


def write_figure(picture: Figure, path: str, engine: str | None = None) -> str:
    """Writes a Figure atomically, in the format of the path's extension; returns the path.

    ``.dot``/``.gv``: DOT text; ``.svg``: our layout (or Graphviz with ``engine="dot"``); other
    extensions (``.png``, ``.pdf``): Graphviz.

    Raises:
        GraphvizNotFoundError: when the format needs Graphviz and it is not installed.
    """
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    if extension in ("dot", "gv"):
        data = picture.to_dot().encode("utf-8")
    elif extension == "svg" and engine in (None, "builtin"):
        data = picture.to_svg().encode("utf-8")
    elif extension:
        data = render(picture.to_dot(), extension)
    else:
        raise ValueError(f"{path}: give a file extension (.svg, .dot, .png, .pdf) to choose the format")
    with file_io.atomic_file(path) as file:
        file.write(data)
    return path


def write(path: str, graph=None, detail: str = "variables", title: str | None = None,
          engine: str | None = None) -> str:
    """Writes the graph's picture to ``path`` (format from the extension, see write_figure); returns it."""
    return write_figure(figure(graph, detail, title), path, engine)
