"""A Figure drawn as SVG by a small layered (Sugiyama) layout: no Graphviz needed.

The own layout is the classic layered (Sugiyama) drawing, kept small: cycles are broken by
reversing back edges found depth first; layers are networkx's ``topological_generations``, with
sources pulled down next to their first consumer; edges longer than one layer pass through
invisible points; a few barycenter sweeps order each layer; x positions follow the mean of the
neighbours, then are pushed apart.  Output is deterministic: it depends only on the order in
which nodes and edges were added.

Figures are read duck-typed (``nodes``, ``edges``, ``title``, ``legend``; nodes with ``name``, ``label``,
``shape``, ``peripheries``, colours): graph.viz.figure declares them and imports this module.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

__all__ = ["svg_of", "FONT", "FONT_SIZE"]

FONT = "Helvetica"
FONT_SIZE = 11          # points in DOT, pixels in our SVG
_CHAR_WIDTH = 6.4       # mean advance of an 11px Helvetica character, enough for a margin
_LINE_HEIGHT = 14
_PAD_X, _PAD_Y = 10, 7  # text padding inside a node
_GAP_X, _GAP_Y = 22, 46  # space between nodes in a layer / between layers
_MARGIN = 16
_SWEEPS = 6             # barycenter ordering passes (down and up)


# ------------------------------------------------------------------------------------------ layout


def _node_size(node) -> tuple[float, float]:
    lines = node.label.split("\n")
    width = max(len(line) for line in lines) * _CHAR_WIDTH + 2 * _PAD_X
    height = len(lines) * _LINE_HEIGHT + 2 * _PAD_Y
    if node.shape == "ellipse":
        width, height = width * 1.25, height * 1.2
    elif node.shape == "diamond":
        width, height = width * 1.6, height * 1.6
    elif node.shape == "octagon":
        width += 12
    if node.peripheries > 1:
        width, height = width + 8, height + 8
    return max(width, 36.0), height


class _Layout:
    """Positions (centre x, centre y) of nodes, and the points each edge passes through."""

    def __init__(self, figure):
        import networkx as nx  # lazily: `import graph` stays fast

        names = list(figure.nodes)
        self.size = {name: _node_size(figure.nodes[name]) for name in names}
        dag = nx.DiGraph()
        dag.add_nodes_from(names)
        for source, target in self._acyclic_edges(figure, names):
            dag.add_edge(source, target)
        layer: dict[str, int] = {}
        for depth, generation in enumerate(nx.topological_generations(dag)):
            for name in generation:
                layer[name] = depth
        for name in reversed(list(nx.topological_sort(dag))):  # sources move down next to their consumers
            if dag.in_degree(name) == 0 and dag.out_degree(name) > 0:
                layer[name] = min(layer[s] for s in dag.successors(name)) - 1
        # chains of points: an edge spanning k layers gets k-1 invisible points
        self.chains: dict[tuple[str, str], list[str]] = {}
        layers: dict[int, list[str]] = {}
        for name in names:
            layers.setdefault(layer[name], []).append(name)
        up: dict[str, list[str]] = {name: [] for name in names}
        down: dict[str, list[str]] = {name: [] for name in names}
        for source, target in dag.edges():
            chain = [source]
            for step in range(layer[source] + 1, layer[target]):
                point = f"\x00{source}\x00{target}\x00{step}"
                layers[step].append(point)
                self.size[point] = (4.0, 4.0)
                up[point], down[point] = [], []
                chain.append(point)
            chain.append(target)
            for a, b in zip(chain, chain[1:]):
                down[a].append(b)
                up[b].append(a)
            self.chains[(source, target)] = chain
        depths = sorted(layers)
        self.rows = [layers[d] for d in depths]
        self._order(up, down)
        self.x = self._place(up, down)
        self.y: dict[str, float] = {}
        top = _MARGIN + (28 if figure.title else 0)
        for row in self.rows:
            height = max(self.size[n][1] for n in row)
            for name in row:
                self.y[name] = top + height / 2
            top += height + _GAP_Y
        self.width = max((self.x[n] + self.size[n][0] / 2 for n in self.x), default=0) + _MARGIN
        self.height = top - _GAP_Y + _MARGIN

    @staticmethod
    def _acyclic_edges(figure, names: Sequence[str]) -> list[tuple[str, str]]:
        """Layout edges with back edges (found depth first, in insertion order) reversed."""
        edges = [(e.source, e.target) for e in figure.edges if e.constraint and e.source != e.target]
        successors: dict[str, list[str]] = {name: [] for name in names}
        for source, target in edges:
            successors[source].append(target)
        state: dict[str, int] = {}  # 1 on the stack, 2 done
        back = set()
        for root in names:
            if root in state:
                continue
            stack = [(root, iter(successors[root]))]
            state[root] = 1
            while stack:
                node, children = stack[-1]
                child = next(children, None)
                if child is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(child) == 1:
                    back.add((node, child))
                elif child not in state:
                    state[child] = 1
                    stack.append((child, iter(successors[child])))
        result, seen = [], set()
        for source, target in edges:
            pair = (target, source) if (source, target) in back else (source, target)
            if pair not in seen:
                seen.add(pair)
                result.append(pair)
        return result

    def _order(self, up, down) -> None:
        discovered: dict[str, int] = {}  # depth-first discovery order: a good first ordering
        for root in (name for row in self.rows for name in row):
            stack = [root]
            while stack:
                name = stack.pop()
                if name not in discovered:
                    discovered[name] = len(discovered)
                    stack.extend(reversed(down[name]))
        for row in self.rows:
            row.sort(key=discovered.__getitem__)
        position = {name: i for row in self.rows for i, name in enumerate(row)}
        for sweep in range(_SWEEPS):
            rows = self.rows if sweep % 2 == 0 else list(reversed(self.rows))
            neighbours = up if sweep % 2 == 0 else down
            for row in rows[1:]:
                def key(name, row=row):
                    linked = [position[n] for n in neighbours[name]]
                    return (sum(linked) / len(linked)) if linked else position[name]
                row.sort(key=key)  # stable: ties keep their order
                for i, name in enumerate(row):
                    position[name] = i

    def _place(self, up, down) -> dict[str, float]:
        x: dict[str, float] = {}
        for row in self.rows:  # first: packed rows, centred later
            left = _MARGIN
            for name in row:
                width = self.size[name][0]
                x[name] = left + width / 2
                left += width + _GAP_X
        for sweep in range(4):
            rows = self.rows[1:] if sweep % 2 == 0 else list(reversed(self.rows[:-1]))
            neighbours = up if sweep % 2 == 0 else down
            for row in rows:
                wanted = []
                for name in row:
                    linked = [x[n] for n in neighbours[name]]
                    wanted.append(sum(linked) / len(linked) if linked else x[name])
                self._fit(row, wanted, x)
        shift = _MARGIN - min(x[n] - self.size[n][0] / 2 for n in x) if x else 0
        return {name: value + shift for name, value in x.items()}

    def _fit(self, row: list[str], wanted: list[float], x: dict[str, float]) -> None:
        """Moves a row's nodes toward `wanted` keeping their order and gaps."""
        placed = list(wanted)
        for i in range(1, len(row)):
            least = placed[i - 1] + (self.size[row[i - 1]][0] + self.size[row[i]][0]) / 2 + _GAP_X
            placed[i] = max(placed[i], least)
        if row:  # a uniform shift keeps the gaps and spreads the push evenly to both sides
            correction = sum(placed[i] - wanted[i] for i in range(len(row))) / len(row)
            placed = [value - correction for value in placed]
        for name, value in zip(row, placed):
            x[name] = value


# ------------------------------------------------------------------------------------------ SVG


def svg_of(figure) -> str:
    """``figure`` (a graph.viz.figure.Figure) as an SVG document, laid out here."""
    layout = _Layout(figure)
    legend_width = 0.0
    if figure.legend:
        legend_width = max(len(text) for text, _, _ in figure.legend) * _CHAR_WIDTH + 44
    width = max(layout.width + legend_width + (_MARGIN if legend_width else 0),
                len(figure.title) * (_CHAR_WIDTH + 1.5) + 2 * _MARGIN)
    height = max(layout.height, _MARGIN * 2 + len(figure.legend) * 18 + 16)
    for edge in figure.edges:  # arcs under a row (see _svg_edge) may reach below the last row
        if not edge.constraint and abs(layout.y[edge.source] - layout.y[edge.target]) < 1:
            bottom = max(layout.y[n] + layout.size[n][1] / 2 for n in (edge.source, edge.target))
            height = max(height, bottom + 8 + 0.06 * abs(layout.x[edge.source] - layout.x[edge.target]) + 20)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}, Arial, sans-serif" '
           f'font-size="{FONT_SIZE}">',
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>']
    colors = sorted({e.color for e in figure.edges})
    out.append("<defs>")
    for index, color in enumerate(colors):
        out.append(f'<marker id="arrow{index}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
                   'markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
                   f'<path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>')
    out.append("</defs>")
    if figure.title:
        out.append(f'<text x="{_MARGIN}" y="{_MARGIN + 12}" font-size="{FONT_SIZE + 3}" '
                   f'font-weight="bold">{html.escape(figure.title)}</text>')
    for edge in figure.edges:
        out.append(_svg_edge(edge, layout, colors.index(edge.color)))
    for node in figure.nodes.values():
        out.append(_svg_node(node, layout.x[node.name], layout.y[node.name], *layout.size[node.name]))
    if figure.legend:
        left, top = layout.width + _MARGIN, _MARGIN + (28 if figure.title else 0)
        out.append(f'<rect x="{left - 6:.1f}" y="{top - 6}" width="{legend_width:.1f}" '
                   f'height="{len(figure.legend) * 18 + 8}" fill="#ffffff" stroke="#bbbbbb"/>')
        for i, (text, fill, color) in enumerate(figure.legend):
            y = top + i * 18
            out.append(f'<rect x="{left:.1f}" y="{y}" width="14" height="12" fill="{fill}" stroke="{color}"/>')
            out.append(f'<text x="{left + 20:.1f}" y="{y + 10}">{html.escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _boundary(layout: _Layout, name: str, towards: tuple[float, float]) -> tuple[float, float]:
    """Where the segment from a node's centre towards a point leaves the node's box."""
    x, y = layout.x[name], layout.y[name]
    width, height = layout.size[name]
    dx, dy = towards[0] - x, towards[1] - y
    if dx == 0 and dy == 0:
        return x, y
    scale = min(width / 2 / abs(dx) if dx else float("inf"), height / 2 / abs(dy) if dy else float("inf"))
    return x + dx * scale, y + dy * scale


def _svg_edge(edge, layout: _Layout, marker: int) -> str:
    chain = layout.chains.get((edge.source, edge.target))
    reverse = chain is None and (edge.target, edge.source) in layout.chains
    if reverse:
        chain = list(reversed(layout.chains[(edge.target, edge.source)]))
    if chain is None:  # a self loop, a non-constraint edge or a duplicate: a gentle curve
        chain = [edge.source, edge.target]
    points = [(layout.x[n], layout.y[n]) for n in chain]
    if len(points) == 2 and edge.source == edge.target:
        x, y = points[0]
        w, h = layout.size[edge.source]
        path = (f"M{x + w / 2:.1f},{y - 4:.1f} C{x + w / 2 + 30:.1f},{y - 24:.1f} {x + w / 2 + 30:.1f},"
                f"{y + 24:.1f} {x + w / 2:.1f},{y + 4:.1f}")
    else:
        points[0] = _boundary(layout, chain[0], points[1])
        points[-1] = _boundary(layout, chain[-1], points[-2])
        path = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
        if len(points) == 2 and not edge.constraint:
            (x0, y0), (x1, y1) = points
            if abs(y1 - y0) < 1:  # same row: an arc under the row, leaving and entering at the bottoms
                (x0, y0), (x1, y1) = ((layout.x[n], layout.y[n] + layout.size[n][1] / 2) for n in chain)
                path = f"M{x0:.1f},{y0:.1f} Q{(x0 + x1) / 2:.1f},{max(y0, y1) + 14 + 0.12 * abs(x1 - x0):.1f} " \
                       f"{x1:.1f},{y1:.1f}"
                points = [(x0, y0), ((x0 + x1) / 2, max(y0, y1) + 6 + 0.06 * abs(x1 - x0)), (x1, y1)]
            else:
                bend = 0.25 * (y1 - y0)
                path += f" Q{(x0 + x1) / 2 + bend:.1f},{(y0 + y1) / 2:.1f} {x1:.1f},{y1:.1f}"
        else:
            for (x0, y0), (x1, y1) in zip(points, points[1:]):  # vertical tangents: smooth through the points
                middle = (y0 + y1) / 2
                path += f" C{x0:.1f},{middle:.1f} {x1:.1f},{middle:.1f} {x1:.1f},{y1:.1f}"
    dash = {"dashed": ' stroke-dasharray="6,4"', "dotted": ' stroke-dasharray="2,3"'}.get(edge.style, "")
    width = 2.2 if edge.style == "bold" else 1.2
    parts = [f'<path d="{path}" fill="none" stroke="{edge.color}" stroke-width="{width}"{dash} '
             f'marker-end="url(#arrow{marker})"/>']
    if edge.label:
        (x0, y0), (x1, y1) = points[len(points) // 2 - 1], points[len(points) // 2]
        parts.append(f'<text x="{(x0 + x1) / 2 + 4:.1f}" y="{(y0 + y1) / 2 + 4:.1f}" font-size="{FONT_SIZE - 2}" '
                     f'fill="{edge.color}">{html.escape(edge.label)}</text>')
    return "\n".join(parts)


def _svg_node(node, x: float, y: float, width: float, height: float) -> str:
    stroke = f'fill="{node.fill}" stroke="{node.color}" stroke-width="{node.penwidth:g}"'
    shapes = []
    for ring in range(node.peripheries):
        inset = 4 * ring
        w, h = width - 2 * inset, height - 2 * inset
        fill = stroke if ring == 0 else stroke.replace(f'fill="{node.fill}"', 'fill="none"')
        if node.shape == "ellipse":
            shapes.append(f'<ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{w / 2:.1f}" ry="{h / 2:.1f}" {fill}/>')
        elif node.shape == "diamond":
            shapes.append(f'<polygon points="{x:.1f},{y - h / 2:.1f} {x + w / 2:.1f},{y:.1f} {x:.1f},'
                          f'{y + h / 2:.1f} {x - w / 2:.1f},{y:.1f}" {fill}/>')
        elif node.shape == "octagon":
            c = min(8.0, h / 3)
            xs, ys = (x - w / 2, x - w / 2 + c, x + w / 2 - c, x + w / 2), (y - h / 2, y - h / 2 + c,
                                                                             y + h / 2 - c, y + h / 2)
            corners = [(xs[1], ys[0]), (xs[2], ys[0]), (xs[3], ys[1]), (xs[3], ys[2]), (xs[2], ys[3]),
                       (xs[1], ys[3]), (xs[0], ys[2]), (xs[0], ys[1])]
            shapes.append('<polygon points="{}" {}/>'.format(" ".join(f"{a:.1f},{b:.1f}" for a, b in corners), fill))
        else:
            shapes.append(f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" '
                          f'rx="3" {fill}/>')
    lines = node.label.split("\n")
    first = y - (len(lines) - 1) * _LINE_HEIGHT / 2 + 4
    for i, line in enumerate(lines):
        shapes.append(f'<text x="{x:.1f}" y="{first + i * _LINE_HEIGHT:.1f}" text-anchor="middle" '
                      f'fill="{node.fontcolor}">{html.escape(line)}</text>')
    title = f"<title>{html.escape(node.tooltip or node.name)}</title>"
    return f"<g>{title}" + "".join(shapes) + "</g>"
