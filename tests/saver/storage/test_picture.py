"""saver/picture.py: TF2 object graphs drawn like the "Training checkpoints" guide's figure."""

import os
import xml.etree.ElementTree as ElementTree

import pytest

from saver.storage import picture
from saver.storage.object_graph import object_graph_from_checkpoint
from saver.storage.object_graph_builder import Var, build_object_graph
from saver.storage.reader import load_checkpoint

from tests import TEST_DATA

DATA = TEST_DATA
GUIDE = os.path.join(DATA, "tf2_guide")
V1_ADAM = os.path.join(DATA, "v1_adam")


def _by_label(figure, first_line):
    return [n for n in figure.nodes.values() if n.label.split("\n")[0] == first_line]


def test_guide_keras3_optimizer_and_slots():
    graph = object_graph_from_checkpoint(GUIDE)
    optimizers, slots, variables = picture.classify(graph)
    assert [graph.path_string(n) for n in optimizers] == ["optimizer"]
    kernel, bias = 14, 15
    assert graph.path_string(kernel) == "net/l1/_kernel"
    assert slots == {16: kernel, 18: bias, 17: kernel, 19: bias}  # _momentums/i and _velocities/i
    assert {graph.path_string(v) for v in variables} == {
        "net/l1/_kernel", "net/l1/bias", "optimizer/_iterations", "optimizer/_learning_rate", "step", "save_counter"}


def test_guide_figure_colours_and_simplification():
    figure = picture.figure(GUIDE)
    (optimizer,) = _by_label(figure, "optimizer")
    assert optimizer.fill == picture.OPTIMIZER_COLOR
    (kernel,) = _by_label(figure, "_kernel")
    assert kernel.fill == picture.VARIABLE_COLOR and "float32 [1, 5]" in kernel.label and "net/kernel" in kernel.label
    momentum = _by_label(figure, "_momentums/0")[0]
    assert momentum.fill == picture.SLOT_COLOR and "adam/net_dense_kernel_momentum" in momentum.label
    assert _by_label(figure, "iterator")[0].fill == picture.OBJECT_COLOR
    assert "variant [5]" in _by_label(figure, "iterator")[0].label  # ITERATOR saves ITERATOR_STATE
    assert not _by_label(figure, "_variables") and not _by_label(figure, "_trainable_variables")
    slot_links = [e for e in figure.edges if e.style == "dotted"]
    assert {(figure.nodes[e.source].label.split("\n")[0], figure.nodes[e.target].label.split("\n")[0])
            for e in slot_links} == {("_kernel", "_momentums/0"), ("bias", "_momentums/1"),
                                     ("_kernel", "_velocities/0"), ("bias", "_velocities/1")}
    full = picture.figure(GUIDE, simplify=False)
    assert len(full.nodes) == 20 and _by_label(full, "_variables")


def test_v1_slot_variables():
    figure = picture.figure(V1_ADAM)
    (optimizer,) = _by_label(figure, "opt")
    assert optimizer.fill == picture.OPTIMIZER_COLOR
    slots = [n for n in figure.nodes.values() if n.fill == picture.SLOT_COLOR]
    assert sorted(n.label.split("\n")[1] for n in slots) == ["scope/b/Adam", "scope/b/Adam_1", "w/Adam", "w/Adam_1"]
    from_optimizer = [e for e in figure.edges if e.source == optimizer.name and e.color == picture.SLOT_COLOR]
    assert len(from_optimizer) == 4
    powers = [n for n in figure.nodes.values() if n.label.startswith("beta")]
    assert all(n.fill == picture.VARIABLE_COLOR for n in powers)  # non-slot optimizer variables are blue


def test_accepts_graph_reader_and_built_graph():
    with load_checkpoint(GUIDE) as reader:
        from_reader = picture.to_dot(reader)
    assert "float32 [1, 5]" in from_reader
    built = build_object_graph({"net": {"w": "dense/w"}, "opt": {"iter": Var("it")}})
    figure = picture.figure(built)
    assert _by_label(figure, "opt")[0].fill == picture.OPTIMIZER_COLOR
    assert _by_label(figure, "w")[0].label == "w\ndense/w"  # no reader: no dtype line


def test_svg_and_write(tmp_path):
    svg = picture.to_svg(GUIDE, title="guide")
    root = ElementTree.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "guide" in texts and "optimizer" in texts and "optimizer slot variable" in texts
    assert picture.to_svg(GUIDE, title="guide") == svg
    picture.write(str(tmp_path / "o.dot"), V1_ADAM)
    assert (tmp_path / "o.dot").read_text().startswith("digraph")


def test_name_based_checkpoint_has_no_object_graph(tmp_path):
    from graph.errors import NotFoundError
    from saver.format.bundle import write_checkpoint
    write_checkpoint(str(tmp_path / "m"), {"w": [1.0]})
    with pytest.raises(NotFoundError, match="_CHECKPOINTABLE_OBJECT_GRAPH"):
        picture.figure(str(tmp_path / "m"))


def test_describe_labels_only_library_errors_unreadable():
    from graph.errors import DataLossError
    from saver.storage.picture import _describe

    class Damaged:
        def __init__(self, error):
            self.error = error

        def get_variable_to_dtype_map(self):
            raise self.error

    assert _describe(Damaged(DataLossError(None, None, "bad index")), "x") == "(unreadable)"
    with pytest.raises(ZeroDivisionError):  # a bug is not hidden behind a label
        _describe(Damaged(ZeroDivisionError()), "x")
