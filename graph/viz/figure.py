"""Figure: boxes and arrows, written as Graphviz DOT or drawn as SVG by a small layered layout.

The pictures of graph/picture.py (a TF1 graph) and saver/picture.py (a TF2 object graph) are built
as a Figure, then written one of three ways::

    Figure.to_dot()            DOT text, for Graphviz or any DOT viewer
    Figure.to_svg()            SVG from our own layout: no Graphviz needed
    render(dot_text, "png")    PNG / SVG / PDF through Graphviz's ``dot`` when it is installed

The own layout and SVG drawing are graph.viz.svg_drawing's.
"""

from __future__ import annotations

import dataclasses
import html
import shutil
import subprocess

from graph.viz.svg_drawing import FONT, FONT_SIZE, svg_of

__all__ = ["Node", "Edge", "Figure", "GraphvizNotFoundError", "graphviz_available", "render"]

_SHAPES = ("box", "ellipse", "diamond", "octagon")


@dataclasses.dataclass
class Node:
    """A box: label lines joined by ``\\n``; colours as ``#rrggbb``."""
    name: str
    label: str
    shape: str = "box"
    fill: str = "#ffffff"
    color: str = "#333333"
    penwidth: float = 1.0
    peripheries: int = 1
    fontcolor: str = "#000000"
    tooltip: str = ""

    def __post_init__(self):
        if self.shape not in _SHAPES:
            raise ValueError(f"node {self.name!r}: shape {self.shape!r} is not one of {', '.join(_SHAPES)}")


@dataclasses.dataclass
class Edge:
    """An arrow; ``constraint=False`` draws it without letting it shape the layers."""
    source: str
    target: str
    label: str = ""
    color: str = "#333333"
    style: str = "solid"  # solid, dashed, dotted, bold
    constraint: bool = True


@dataclasses.dataclass
class Figure:
    """Nodes, edges, an optional title and a legend of (text, fill, border) swatches."""
    title: str = ""
    nodes: dict[str, Node] = dataclasses.field(default_factory=dict)
    edges: list[Edge] = dataclasses.field(default_factory=list)
    legend: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)

    def add_node(self, node: Node) -> Node:
        """Adds a node (a name already present is an error: it is a bug in the caller)."""
        assert node.name not in self.nodes, node.name
        self.nodes[node.name] = node
        return node

    def add_edge(self, edge: Edge) -> Edge:
        """Adds an edge between two nodes already added."""
        assert edge.source in self.nodes and edge.target in self.nodes, (edge.source, edge.target)
        self.edges.append(edge)
        return edge

    # -- DOT -------------------------------------------------------------------------------------

    def to_dot(self) -> str:
        """The figure as Graphviz DOT text (top to bottom)."""
        lines = ["digraph G {",
                 f'  graph [rankdir=TB, fontname="{FONT}", fontsize={FONT_SIZE + 3}, labelloc=t, '
                 f'label={_dot_quote(self.title)}, nodesep=0.25, ranksep=0.45];',
                 f'  node [fontname="{FONT}", fontsize={FONT_SIZE}, style=filled, margin="0.12,0.05"];',
                 f'  edge [fontname="{FONT}", fontsize={FONT_SIZE - 2}, arrowsize=0.7];']
        for node in self.nodes.values():
            attributes = [f"label={_dot_quote(node.label)}", f"shape={node.shape}",
                          f'fillcolor="{node.fill}"', f'color="{node.color}"', f'fontcolor="{node.fontcolor}"']
            if node.penwidth != 1:
                attributes.append(f"penwidth={node.penwidth:g}")
            if node.peripheries != 1:
                attributes.append(f"peripheries={node.peripheries}")
            if node.tooltip:
                attributes.append(f"tooltip={_dot_quote(node.tooltip)}")
            lines.append(f"  {_dot_quote(node.name)} [{', '.join(attributes)}];")
        for edge in self.edges:
            attributes = [f'color="{edge.color}"']
            if edge.label:
                attributes += [f"label={_dot_quote(edge.label)}", f'fontcolor="{edge.color}"']
            if edge.style != "solid":
                attributes.append("style=bold" if edge.style == "bold" else f"style={edge.style}")
            if not edge.constraint:
                attributes.append("constraint=false")
            lines.append(f"  {_dot_quote(edge.source)} -> {_dot_quote(edge.target)} [{', '.join(attributes)}];")
        if self.legend:
            rows = "".join(f'<TR><TD BGCOLOR="{fill}" COLOR="{color}" BORDER="1" WIDTH="14"></TD>'
                           f'<TD ALIGN="LEFT">{html.escape(text)}</TD></TR>' for text, fill, color in self.legend)
            lines.append("  subgraph cluster_legend { label=\"\"; color=\"#bbbbbb\"; "
                         f'legend [shape=plaintext, style="", label=<<TABLE BORDER="0" CELLSPACING="2">{rows}'
                         "</TABLE>>]; }")
        lines.append("}")
        return "\n".join(lines) + "\n"

    # -- SVG by our own layout -------------------------------------------------------------------

    def to_svg(self) -> str:
        """The figure as an SVG document, laid out here (no Graphviz needed)."""
        return svg_of(self)


def _dot_quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


# ------------------------------------------------------------------------------------------ Graphviz


class GraphvizNotFoundError(RuntimeError):
    """Graphviz's ``dot`` program is not installed (needed for PNG/PDF, optional for SVG)."""


def graphviz_available() -> bool:
    """True when Graphviz's ``dot`` is on PATH."""
    return shutil.which("dot") is not None


def render(dot_text: str, fmt: str = "png", timeout: float | None = 60) -> bytes:
    """Renders DOT text with Graphviz's ``dot -T<fmt>``.

    Raises:
        GraphvizNotFoundError: if ``dot`` is not installed.
        RuntimeError: if ``dot`` fails (its message included).
    """
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(f"Graphviz's 'dot' program is needed for {fmt.upper()} output and is not "
                                    "installed (apt-get install graphviz; or write .svg/.dot instead)")
    result = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True,
                            timeout=timeout, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"dot -T{fmt} failed: {result.stderr.decode('utf-8', 'replace').strip()}")
    return result.stdout
