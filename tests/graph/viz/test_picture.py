"""graph/picture.py and graph/figure.py: the graph's picture as DOT and as SVG drawn by our own layout."""

import re
import shutil
import xml.etree.ElementTree as ElementTree

import pytest

import graph.compat.v1 as tf
from graph.viz import figure as figure_lib
from graph.viz import picture
from graph.viz import svg_drawing
from graph.viz.figure import Edge, Figure, Node
from graph.core.graph import Graph

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def guide_graph():
    """The TF1 variables guide: devices, an initialized_value dependency, the init op."""
    with Graph().as_default() as graph:
        with tf.device("/job:ps/task:0"):
            weights = tf.Variable(tf.random_normal([784, 200], stddev=0.35), name="weights")
        with tf.device("/job:worker/task:0"):
            tf.Variable(tf.zeros([200]), name="biases")
        tf.Variable(weights.initialized_value() * 2.0, name="w_twice")
        tf.global_variables_initializer()
        yield graph


def _texts(svg: str):
    root = ElementTree.fromstring(svg)
    return [t.text for t in root.iter(SVG + "text")], root


def test_variables_detail_nodes_and_edges(guide_graph):
    picture_ = picture.figure(guide_graph)
    names = set(picture_.nodes)
    assert {"weights", "biases", "w_twice", "weights/Assign", "biases/Assign", "w_twice/Assign", "init"} <= names
    assert not any(n.startswith("random_normal") or "cond" in n for n in names)  # computation left out
    assert "weights\nfloat32 [784, 200]" == picture_.nodes["weights"].label
    assert picture_.nodes["weights"].peripheries == 2
    assert "random_normal" in picture_.nodes["weights/Assign"].label
    edges = {(e.source, e.target): e for e in picture_.edges}
    assert edges[("weights", "weights/Assign")].style == "bold"  # the reference written by the initializer
    initialized = edges[("weights", "w_twice/Assign")]
    assert initialized.label == "initialized_value" and initialized.style == "dashed"
    assert ("biases", "w_twice/Assign") not in edges
    controls = [e for e in picture_.edges if e.style == "dashed" and e.label == ""]
    assert controls and all(e.color == picture.CONTROL_COLOR for e in controls)


def test_devices_coloured_and_listed(guide_graph):
    picture_ = picture.figure(guide_graph)
    ps, worker = picture_.nodes["weights"].fill, picture_.nodes["biases"].fill
    assert ps != worker and picture.NO_DEVICE_COLOR == picture_.nodes["w_twice"].fill
    assert picture_.nodes["weights/Assign"].fill == ps  # colocated with its variable
    legend = {text: fill for text, fill, _ in picture_.legend}
    assert legend["/job:ps/task:0"] == ps and legend["/job:worker/task:0"] == worker
    assert legend["(no device)"] == picture.NO_DEVICE_COLOR


def test_ops_detail_has_every_op(guide_graph):
    picture_ = picture.figure(guide_graph, detail="ops")
    assert set(picture_.nodes) == {op.name for op in guide_graph.get_operations()}
    data = sum(len(op.inputs) for op in guide_graph.get_operations())
    control = sum(len(op.control_inputs) for op in guide_graph.get_operations())
    assert len([e for e in picture_.edges if e.label != "initialized_value"]) == data + control


def test_dot_text(guide_graph):
    dot = picture.to_dot(guide_graph)
    assert dot.startswith("digraph G {") and dot.rstrip().endswith("}")
    assert '"weights" -> "w_twice/Assign"' in dot and "initialized_value" in dot
    assert dot.count("{") == dot.count("}")


def test_svg_is_valid_and_shows_labels(guide_graph):
    svg = picture.to_svg(guide_graph)
    texts, root = _texts(svg)
    assert root.tag == SVG + "svg"
    assert "weights" in texts and "w_twice/Assign" in texts and "/job:ps/task:0" in texts
    assert float(root.get("width")) > 100 and float(root.get("height")) > 100
    assert picture.to_svg(guide_graph) == svg  # deterministic


def test_svg_layers_follow_dependencies(guide_graph):
    layout = svg_drawing._Layout(picture.figure(guide_graph))
    assert layout.y["weights"] < layout.y["weights/Assign"] < layout.y["init"]
    assert layout.y["weights"] < layout.y["w_twice/Assign"]  # the initialized_value edge shapes layers
    for row in layout.rows:  # no two boxes of a row overlap
        boxes = sorted((layout.x[n] - layout.size[n][0] / 2, layout.x[n] + layout.size[n][0] / 2) for n in row)
        assert all(a[1] <= b[0] + 1e-6 for a, b in zip(boxes, boxes[1:]))


def test_default_graph_and_bad_detail():
    with Graph().as_default():
        tf.Variable(1.0, name="v")
        assert "v" in picture.figure().nodes
        with pytest.raises(ValueError, match="detail"):
            picture.figure(detail="everything")


def test_write_formats(tmp_path, guide_graph, monkeypatch):
    assert picture.write(str(tmp_path / "g.svg"), guide_graph).endswith("g.svg")
    ElementTree.parse(tmp_path / "g.svg")
    picture.write(str(tmp_path / "g.dot"), guide_graph)
    assert (tmp_path / "g.dot").read_text().startswith("digraph")
    with pytest.raises(ValueError, match="extension"):
        picture.write(str(tmp_path / "noext"), guide_graph)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(figure_lib.GraphvizNotFoundError, match="dot"):
        picture.write(str(tmp_path / "g.png"), guide_graph)
    assert not (tmp_path / "g.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot", "g.svg"]  # no temporary files left


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graphviz_png_and_svg(tmp_path, guide_graph):
    picture.write(str(tmp_path / "g.png"), guide_graph, detail="ops")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in picture.to_svg(guide_graph, engine="dot")


def test_figure_cycles_self_loops_and_long_edges():
    figure = Figure(title="t")
    for name in "abcd":
        figure.add_node(Node(name, name.upper()))
    figure.add_node(Node("e", "E\nsecond line", shape="diamond", peripheries=2))
    for source, target in [("a", "b"), ("b", "c"), ("c", "a"), ("a", "d"), ("d", "e"), ("a", "e"), ("e", "e")]:
        figure.add_edge(Edge(source, target, label=f"{source}{target}"))
    figure.add_edge(Edge("b", "d", style="dotted", constraint=False))
    layout = svg_drawing._Layout(figure)
    assert layout.y["a"] < layout.y["d"] < layout.y["e"]
    assert len(layout.chains[("a", "e")]) == 3  # passes through one invisible point
    texts, _ = _texts(figure.to_svg())
    assert "second line" in texts and "ae" in texts
    with pytest.raises(ValueError, match="shape"):
        Node("x", "x", shape="star")


def test_figure_dot_quotes_names():
    figure = Figure(title='say "hi"')
    figure.add_node(Node('a"b', "line1\nline2"))
    figure.legend = [("<tag>", "#ffffff", "#000000")]
    dot = figure.to_dot()
    assert r'"a\"b"' in dot and r'"line1\nline2"' in dot and "&lt;tag&gt;" in dot
    assert re.search(r'label="say \\"hi\\""', dot)
