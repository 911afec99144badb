"""Tests for saver/object_graph.py: decoding TF-written object graphs, paths, keys, hostile graphs, encoding."""

import base64
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from graph.errors import DataLossError, NotFoundError
from saver.storage import object_graph as og
from saver.storage import object_graph_keys as ogk
from saver.storage.object_graph import ObjectGraph
from saver.storage.object_graph_builder import Var, build_object_graph
from saver.format.proto import TrackableObjectGraph

from tests import TEST_DATA

DATA = TEST_DATA
FIXTURES = ["tf2_guide", "tf2_guide_noiter", "v1_adam", "odd_names"]
_Object = TrackableObjectGraph.TrackableObject


def _expected(name):
    with open(os.path.join(DATA, name, "expected.json"), encoding="utf-8") as f:
        return json.load(f)


def _graph(name):
    expected = _expected(name)
    return ObjectGraph.from_bytes(base64.b64decode(expected["object_graph_b64"]), name), expected


def _proto(*nodes):
    """A TrackableObjectGraph from (children, attributes, slots) tuples."""
    protos = []
    for children, attributes, slots in nodes:
        protos.append(_Object(
            children=[_Object.ObjectReference(node_id=i, local_name=n) for i, n in children],
            attributes=[_Object.SerializedTensor(name=a, full_name=f, checkpoint_key=k) for a, f, k in attributes],
            slot_variables=[_Object.SlotVariableReference(original_variable_node_id=o, slot_name=s,
                                                          slot_variable_node_id=v) for o, s, v in slots]))
    return TrackableObjectGraph(nodes=protos)


# ---------------------------------------------------------------------------------------- names


@pytest.mark.parametrize("name, escaped", [
    ("a/b", "a.Sb"), ("c.d", "c..d"), ("e.S", "e..S"), ("x..y/.z", "x....y.S..z"), ("plain", "plain"),
    ("", ""), ("ünï cödé", "ünï cödé"), ("/", ".S"), (".", ".."), ("S", "S"), ("./S", "...SS"),
])
def test_escape_round_trip(name, escaped):
    assert ogk.escape_local_name(name) == escaped
    assert ogk.unescape_local_name(escaped) == name


@pytest.mark.parametrize("bad", [".", "a.b", "a.", ".x", "..."])
def test_unescape_rejects_lone_dots(bad):
    with pytest.raises(ValueError, match="not an escaped local name"):
        ogk.unescape_local_name(bad)


def test_key_helpers():
    assert ogk.object_path_to_string(["model", "d", "a/b"]) == "model/d/a.Sb"
    assert ogk.checkpoint_key("net/l1/_kernel", "VARIABLE_VALUE") == "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert ogk.checkpoint_key("x", ogk.SERIALIZE_TO_TENSORS_NAME) == "x/.ATTRIBUTES/"
    assert ogk.checkpoint_key("x", "a.b/c") == "x/.ATTRIBUTES/a..b.Sc"
    assert ogk.slot_variable_key("model/v", "opt", "m") == "model/v/.OPTIMIZER_SLOT/opt/m"


# ------------------------------------------------------------------------------- TF-written graphs


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_graph_matches_tf_proto(name):
    graph, expected = _graph(name)
    assert len(graph) == len(expected["nodes"])
    for node, want in zip(graph, expected["nodes"]):
        assert [list(c) for c in node.children] == want["children"]
        assert [[a.name, a.full_name, a.checkpoint_key] for a in node.attributes] == want["attributes"]
        assert [[s.original_variable_node_id, s.slot_name, s.slot_variable_node_id]
                for s in node.slot_variables] == want["slot_variables"]
        assert node.has_checkpoint_values == want["has_checkpoint_values"]
        assert node.registered_saver is None and want["registered_saver"] is None
    assert graph.to_bytes() == base64.b64decode(expected["object_graph_b64"])  # byte-identical re-encode


@pytest.mark.parametrize("name", FIXTURES)
def test_paths_reproduce_every_checkpoint_key(name):
    graph, expected = _graph(name)
    for node, attribute in graph.attributes():
        assert graph.expected_checkpoint_key(node.node_id, attribute.name) == attribute.checkpoint_key
    tensor_keys = set(expected["variables"]) - {ogk.OBJECT_GRAPH_PROTO_KEY}
    for key in tensor_keys:  # every saved tensor belongs to an attribute (maybe by prefix)
        node, attribute = graph.attribute_for_key(key)
        assert key.startswith(attribute.checkpoint_key)


def test_tf2_guide_keys_and_full_names():
    graph, _ = _graph("tf2_guide_noiter")
    assert len(graph) == 19
    mapping = graph.key_to_full_name()
    assert mapping["net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"] == "net/kernel"
    assert mapping["optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"] == "adam/net_dense_kernel_momentum"
    assert graph.full_name_to_key()["net/kernel"] == "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert graph.full_name_to_key()["Variable"] == "step/.ATTRIBUTES/VARIABLE_VALUE"
    assert len(mapping) == 10 and graph.slot_variables() == []  # Keras 3 Adam: no slot variables
    kernel = graph.attribute_for_key("net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE")[0]
    assert graph.path(kernel.node_id) == ("net", "l1", "_kernel")
    # optimizer/_trainable_variables/0 reaches the kernel too, but the BFS-first path names it
    assert graph.path_string(kernel.node_id) == "net/l1/_kernel"
    assert graph.root.children[0] == (1, "net")


def test_tf2_guide_iterator_attribute_is_a_key_prefix():
    graph, expected = _graph("tf2_guide")
    assert len(graph) == 20
    assert expected["variables"]["iterator/.ATTRIBUTES/ITERATOR_STATE"]["dtype"] == "variant"
    node, attribute = graph.attribute_for_key("iterator/.ATTRIBUTES/ITERATOR_STATE")
    assert (attribute.name, attribute.checkpoint_key) == ("ITERATOR", "iterator/.ATTRIBUTES/ITERATOR")
    assert graph.path(node.node_id) == ("iterator",)
    with pytest.raises(NotFoundError, match="no object has the checkpoint key 'nope'"):
        graph.attribute_for_key("nope")


def test_v1_adam_slot_variables():
    graph, _ = _graph("v1_adam")
    slots = graph.slot_variables()
    assert [(s.optimizer_node_id, s.original_variable_node_id, s.slot_name, s.slot_variable_node_id)
            for s in slots] == [(2, 4, "m", 8), (2, 5, "m", 9), (2, 4, "v", 10), (2, 5, "v", 11)]
    assert graph.path(8) is None  # slot nodes have no parent
    assert graph.path_string(8) == "model/v/.OPTIMIZER_SLOT/opt/m"
    assert graph.full_name_to_key()["w/Adam_1"] == "model/v/.OPTIMIZER_SLOT/opt/v/.ATTRIBUTES/VARIABLE_VALUE"
    assert graph.key_to_full_name()["model/b/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE"] == "scope/b/Adam"
    edges = [(u, v, k) for u, v, k, d in graph.graph.edges(keys=True, data=True) if d["kind"] == "slot"]
    assert edges == [(2, 8, "m"), (2, 9, "m"), (2, 10, "v"), (2, 11, "v")]


def test_odd_names_paths_and_shared_variable():
    graph, expected = _graph("odd_names")
    keys = {a.full_name: a.checkpoint_key for _, a in graph.attributes()}
    assert keys["ab"] == "model/d/a.Sb/.ATTRIBUTES/VARIABLE_VALUE"
    assert keys["cd"] == "model/d/c..d/.ATTRIBUTES/VARIABLE_VALUE"
    assert keys["eS"] == "model/d/e..S/.ATTRIBUTES/VARIABLE_VALUE"
    assert keys["xy"] == "model/d/x....y.S..z/.ATTRIBUTES/VARIABLE_VALUE"
    assert keys["uni"] == "model/d/ünï cödé/.ATTRIBUTES/VARIABLE_VALUE"
    assert keys["shared"] == "model/first/.ATTRIBUTES/VARIABLE_VALUE"  # BFS-first of model/first, model/d/again
    node = graph.attribute_for_key(keys["xy"])[0]
    assert graph.path(node.node_id) == ("model", "d", "x..y/.z")
    assert [ogk.unescape_local_name(p) for p in graph.path_string(node.node_id).split("/")] == \
        ["model", "d", "x..y/.z"]
    assert sorted(expected["variables"]) == sorted(list(keys.values()) + [ogk.OBJECT_GRAPH_PROTO_KEY])


def test_tree_rendering():
    graph, _ = _graph("v1_adam")
    assert graph.tree() == (
        "/ [0]\n"
        "  model [1]\n"
        "    v [4]  {VARIABLE_VALUE=w}\n"
        "    b [5]  {VARIABLE_VALUE=scope/b}\n"
        "  opt [2]\n"
        "    beta1_power [6]  {VARIABLE_VALUE=beta1_power}\n"
        "    beta2_power [7]  {VARIABLE_VALUE=beta2_power}\n"
        "    .OPTIMIZER_SLOT m of /model/v [8]  {VARIABLE_VALUE=w/Adam}\n"
        "    .OPTIMIZER_SLOT m of /model/b [9]  {VARIABLE_VALUE=scope/b/Adam}\n"
        "    .OPTIMIZER_SLOT v of /model/v [10]  {VARIABLE_VALUE=w/Adam_1}\n"
        "    .OPTIMIZER_SLOT v of /model/b [11]  {VARIABLE_VALUE=scope/b/Adam_1}\n"
        "  save_counter [3]  {VARIABLE_VALUE=save_counter}\n")
    guide, expected = _graph("tf2_guide_noiter")
    text = guide.tree(annotate=lambda key: "%s%s" % (expected["variables"][key]["dtype"],
                                                      expected["variables"][key]["shape"]))
    assert "      _kernel [13]  {VARIABLE_VALUE=net/kernel float32[1, 5]}\n" in text
    assert "      0 [13] -> /net/l1/_kernel\n" in text
    assert len(text.splitlines()) == 1 + sum(len(n.children) for n in guide)


# --------------------------------------------------------------------------------- from checkpoints


def test_object_graph_from_checkpoint_prefix_dir_and_reader():
    prefix = os.path.join(DATA, "v1_adam", "ckpt-1")
    graph = og.object_graph_from_checkpoint(prefix)
    assert len(graph) == 12 and graph.source == prefix
    assert og.object_graph_from_checkpoint(os.path.join(DATA, "tf2_guide")).source.endswith("ckpt-5")

    class FakeReader:
        def has_tensor(self, key):
            return key == ogk.OBJECT_GRAPH_PROTO_KEY

        def get_tensor(self, key):
            return np.array(graph.to_bytes(), dtype=object)

    assert og.object_graph_from_checkpoint(FakeReader()).to_bytes() == graph.to_bytes()
    assert og.object_graph_key_mapping(prefix)["scope/b"] == "model/b/.ATTRIBUTES/VARIABLE_VALUE"


def test_object_graph_from_checkpoint_reader():
    from saver.storage.reader import load_checkpoint
    graph = og.object_graph_from_checkpoint(load_checkpoint(os.path.join(DATA, "tf2_guide")))
    assert len(graph) == 20 and graph.source.endswith("ckpt-5")


def test_object_graph_from_checkpoint_errors(tmp_path):
    class NoGraph:
        def has_tensor(self, key):
            return False

    with pytest.raises(NotFoundError, match="not an object-based"):
        og.object_graph_from_checkpoint(NoGraph())

    class Vector:
        def has_tensor(self, key):
            return True

        def get_tensor(self, key):
            return np.array([b"a", b"b"], dtype=object)

    with pytest.raises(DataLossError, match="expected a scalar"):
        og.object_graph_from_checkpoint(Vector())
    with pytest.raises(NotFoundError, match="Couldn't find 'checkpoint' file"):
        og.object_graph_from_checkpoint(str(tmp_path))


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_values_match_json(name):
    """The committed fixtures are consistent: every tensor's dtype, shape and value as TF's reader saw them."""
    from saver.format.bundle import BundleReader
    expected = _expected(name)
    with BundleReader(os.path.join(DATA, name, expected["prefix"])) as reader:
        assert sorted(reader.keys()) == sorted(expected["variables"])
        for key, want in expected["variables"].items():
            dtype, shape = reader.lookup_dtype_and_shape(key)
            assert (dtype.name, list(shape)) == (want["dtype"], want["shape"]), key
            value = reader.lookup(key)
            if "value" in want:
                np.testing.assert_array_equal(value, np.array(want["value"], dtype=value.dtype), err_msg=key)
            elif "value_b64" in want:
                assert value.item() == base64.b64decode(want["value_b64"]), key


# --------------------------------------------------------------------------------- hostile graphs


def test_empty_and_garbage_graphs():
    with pytest.raises(DataLossError, match="no nodes"):
        ObjectGraph(TrackableObjectGraph())
    with pytest.raises(DataLossError, match="cannot parse the TrackableObjectGraph"):
        ObjectGraph.from_bytes(b"\x0a\x05\x0a", "bad.ckpt")


@pytest.mark.parametrize("nodes, what", [
    ((([(1, "a")], [], []),), "child 'a'"),
    ((([(-1, "neg")], [], []),), "child 'neg'"),
    ((([], [], [(0, "m", 7)]),), "slot variable 'm'"),
    ((([], [], [(9, "m", 0)]),), "the original of slot 'm'"),
])
def test_out_of_range_ids_are_data_loss(nodes, what):
    data = _proto(*nodes).to_bytes()
    with pytest.raises(DataLossError, match="refers to node .* as %s, but the graph has 1 nodes" % what):
        ObjectGraph.from_bytes(data, "hostile")


def test_cycles_terminate():
    # 0 -> 1 -> 2 -> 1 (cycle), 2 -> 0 (back to the root), 1 -> 1 (self loop), duplicate names
    attribute = ("VARIABLE_VALUE", "x", "a/.ATTRIBUTES/VARIABLE_VALUE")
    graph = ObjectGraph(_proto(([(1, "a")], [], []),
                               ([(2, "b"), (1, "self"), (2, "b")], [attribute], []),
                               ([(1, "back"), (0, "root")], [], [(1, "s", 2)])))
    assert graph.path(2) == ("a", "b")
    assert graph.path_string(0) == "" and graph.path(0) == ()
    text = graph.tree()
    assert text.count("\n") == 1 + 6 + 1  # root line, six edges, one slot line
    assert "root [0] -> /\n" in text and "self [1] -> /a\n" in text


def test_deep_chain_is_linear_and_bounded():
    depth = 3000
    nodes = [([(i + 1, "n")], [], []) for i in range(depth)] + [([], [("VARIABLE_VALUE", "v", "k")], [])]
    start = time.perf_counter()
    graph = ObjectGraph.from_bytes(_proto(*nodes).to_bytes())
    assert len(graph.path(depth)) == depth
    text = graph.tree(max_depth=10)
    assert "deeper than max_depth=10" in text and len(text.splitlines()) == 12
    assert time.perf_counter() - start < 5


def test_unreachable_node_has_no_path():
    graph = ObjectGraph(_proto(([], [], []), ([], [("VARIABLE_VALUE", "x", "x/.ATTRIBUTES/VARIABLE_VALUE")], [])))
    assert graph.path(1) is None and graph.path_string(1) is None
    assert graph.expected_checkpoint_key(1, "VARIABLE_VALUE") is None
    assert graph.key_to_full_name() == {"x/.ATTRIBUTES/VARIABLE_VALUE": "x"}


def test_full_name_to_key_later_wins():
    graph = ObjectGraph(_proto(([(1, "a"), (2, "b")], [], []),
                               ([], [("VARIABLE_VALUE", "same", "a/.ATTRIBUTES/VARIABLE_VALUE")], []),
                               ([], [("VARIABLE_VALUE", "same", "b/.ATTRIBUTES/VARIABLE_VALUE")], [])))
    assert graph.full_name_to_key() == {"same": "b/.ATTRIBUTES/VARIABLE_VALUE"}


# ---------------------------------------------------------------------------------------- encoding


def test_build_reproduces_v1_adam_bytes():
    v, b = Var("w"), Var("scope/b")
    opt = {"beta1_power": "beta1_power", "beta2_power": "beta2_power"}
    root = {"model": {"v": v, "b": b}, "opt": opt, "save_counter": "save_counter"}
    slots = [(opt, b, "v", "scope/b/Adam_1"), (opt, v, "m", "w/Adam"), (opt, v, "v", "w/Adam_1"),
             (opt, b, "m", "scope/b/Adam")]  # any order: sorted as TF orders them
    graph = build_object_graph(root, slots)
    assert graph.to_bytes() == base64.b64decode(_expected("v1_adam")["object_graph_b64"])


def test_build_reproduces_odd_names_bytes():
    shared = Var("shared")
    root = {"model": {"d": {"a/b": "ab", "c.d": "cd", "e.S": "eS", "x..y/.z": "xy", "ünï cödé": "uni",
                            "again": shared},
                      "lst": {"0": "l0", "1": "l1"}, "first": shared}}
    assert build_object_graph(root).to_bytes() == base64.b64decode(_expected("odd_names")["object_graph_b64"])


def test_build_reproduces_tf2_guide_bytes():
    kernel, bias = Var("net/kernel"), Var("net/bias")
    iterations, learning_rate = Var("adam/iteration"), Var("adam/learning_rate")
    moments = [Var("adam/net_dense_%s_%s" % (w, m)) for w in ("kernel", "bias") for m in ("momentum", "velocity")]
    optimizer = {
        "_variables": {str(i): v for i, v in enumerate([iterations, learning_rate] + moments)},
        "_trainable_variables": {"0": kernel, "1": bias},
        "_trainable_variables_indices": {},
        "_iterations": iterations, "_learning_rate": learning_rate,
        "_momentums": {"0": moments[0], "1": moments[2]}, "_velocities": {"0": moments[1], "1": moments[3]},
    }
    root = {"net": {"l1": {"_kernel": kernel, "bias": bias}}, "optimizer": optimizer, "step": "Variable",
            "save_counter": "save_counter"}
    graph = build_object_graph(root)
    assert len(graph) == 19
    assert graph.to_bytes() == base64.b64decode(_expected("tf2_guide_noiter")["object_graph_b64"])


def test_build_errors():
    with pytest.raises(TypeError, match="must be a dict, Var or str"):
        build_object_graph({"a": 5})
    with pytest.raises(ValueError, match="slot optimizer"):
        build_object_graph({"v": "v"}, [({}, {}, "m", "x")])


def test_build_attributes_on_objects_and_has_checkpoint_values():
    graph = build_object_graph({"empty": {}, "obj": {".ATTRIBUTES": {"ITERATOR": ""}, "leaf": {}}})
    assert [n.has_checkpoint_values for n in graph] == [True, False, True, False]
    assert graph[2].attributes[0].checkpoint_key == "obj/.ATTRIBUTES/ITERATOR"


# ------------------------------------------------------------------------------------------ oracle

_RESTORE_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf
    model = tf.Module()
    model.d = {"a/b": tf.Variable([0.0, 0.0]), "c.d": tf.Variable(0, dtype=tf.int64)}
    step = tf.Variable(0)
    ckpt = tf.train.Checkpoint(model=model, step=step)
    ckpt.restore(sys.argv[1]).assert_consumed()
    print(model.d["a/b"].numpy().tolist(), int(model.d["c.d"].numpy()), int(step.numpy()), int(ckpt.save_counter))
""")


@pytest.mark.tf
def test_tensorflow_restores_a_checkpoint_with_our_object_graph(tmp_path):
    from saver.format.bundle import write_checkpoint
    graph = build_object_graph({"model": {"d": {"a/b": "ab", "c.d": "cd"}}, "save_counter": "save_counter",
                                "step": "Variable"})
    keys = graph.full_name_to_key()
    prefix = str(tmp_path / "ours")
    write_checkpoint(prefix, {keys["ab"]: np.array([1.5, -2.0], np.float32), keys["cd"]: np.array(7, np.int64),
                              keys["Variable"]: np.array(3, np.int32), keys["save_counter"]: np.array(1, np.int64),
                              ogk.OBJECT_GRAPH_PROTO_KEY: np.array(graph.to_bytes(), dtype=object)})
    script = tmp_path / "restore.py"
    script.write_text(_RESTORE_SCRIPT)
    done = subprocess.run([sys.executable, str(script), prefix], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[1.5, -2.0] 7 3 1"
