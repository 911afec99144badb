"""Tests for saver/meta_graph.py: .meta export/import here, and with real TensorFlow both ways."""

import os

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph import errors
from graph.base import kernels
from graph.core import graph as graph_lib
from graph.variables.partitioning import fixed_size_partitioner
from saver import meta_graph, meta_graph_import
from saver import saver as saver_lib
from graph.proto.framework import VariableDef
from graph.proto.meta_graph import CollectionDef, MetaGraphDef, SaverDef
from saver.storage.reader import load_checkpoint

FEED = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
KINDS = ["plain", "renamed", "partitioned", "sharded", "global_step"]


def build(tf_module, kind: str):
    """The same model with TensorFlow or with us (the compat API is the same); returns (saver, global step)."""
    t = tf_module
    a = t.Variable([[1.0, 2.0], [3.0, 4.0]], name="a")
    b = t.get_variable("b", shape=[2], initializer=t.zeros_initializer())
    var_list, step = None, None
    if kind == "renamed":
        var_list = {"new_a": a, "new_b": b}
    if kind == "partitioned":
        partitioner = t.fixed_size_partitioner(3) if t is not tf else fixed_size_partitioner(3)
        t.get_variable("emb", shape=[7, 2], partitioner=partitioner, initializer=t.ones_initializer())
    if kind in ("global_step", "adam"):
        step = t.train.get_or_create_global_step()
    if kind == "sharded":
        with t.device("/cpu:1"):
            t.Variable(5.0, name="c")
    x = t.placeholder(t.float32, [None, 2], name="x")
    y = t.identity(t.matmul(x, a) + b, name="y")
    t.add_to_collection("outputs", y)
    if kind == "adam":
        loss = t.reduce_mean(t.square(y - 1.0))
        t.add_to_collection("train_op", t.train.AdamOptimizer(0.1).minimize(loss, global_step=step))
    return t.train.Saver(var_list, sharded=(kind == "sharded")), step


def save(tf_module, kind: str, directory: str, session_config=None):
    """Builds, trains a little, saves; returns (prefix, y for FEED, {variable name: value})."""
    t = tf_module
    saver, step = build(t, kind)
    os.makedirs(os.path.join(directory, kind), exist_ok=True)  # sharded saves need the directory
    with t.Session(config=session_config) as sess:
        sess.run(t.global_variables_initializer())
        sess.run(t.assign(t.get_default_graph().get_tensor_by_name("a:0").op.outputs[0]
                          if t is not tf else t.global_variables()[0], [[5.0, 6.0], [7.0, 8.0]]))
        if kind == "adam":
            for _ in range(3):
                sess.run(t.get_collection("train_op")[0], {"x:0": FEED})
        if kind == "global_step":
            sess.run(t.assign(step, 42))
        prefix = saver.save(sess, os.path.join(directory, kind, "model"), global_step=step)
        values = {v.op.name: sess.run(v) for v in t.global_variables()}
        return prefix, sess.run("y:0", {"x:0": FEED}), values


# ------------------------------------------------------------------------------------- here, both ways


def test_round_trip_here_with_scope_collections_and_restore(tmp_path):
    with graph_lib.Graph().as_default():
        tf.add_to_collection("strings", "hello")
        tf.add_to_collection("numbers", 3)
        tf.add_to_collection("floats", 0.5)
        tf.add_to_collection("junk", object())  # skipped with a warning, as TF does
        prefix, expected, values = save(tf, "partitioned", str(tmp_path))
    assert os.path.getsize(prefix + ".meta") < 20_000
    with graph_lib.Graph().as_default() as g:
        saver = saver_lib.import_meta_graph(prefix + ".meta", import_scope="imp")
        variables = tf.global_variables()
        assert [v.name for v in variables] == ["imp/" + name + ":0" for name in values]
        assert tf.trainable_variables()[0] is variables[0]  # one Variable object in both collections
        emb = [v for v in variables if "emb" in v.name][1]
        info = emb._get_save_slice_info()
        assert (info.full_name, list(info.var_offset)) == ("imp/emb", [3, 0])
        assert g.get_collection("outputs")[0].name == "imp/y:0"
        assert (g.get_collection("strings"), g.get_collection("numbers"), g.get_collection("floats")) == \
            (["imp/hello"], [3], [0.5])
        assert g.get_collection("junk") == []
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            np.testing.assert_allclose(sess.run("imp/y:0", {"imp/x:0": FEED}), expected)
            for variable in variables:
                np.testing.assert_allclose(sess.run(variable), values[variable.op.name[4:]])


def test_text_format_clear_devices_and_atomic_write(tmp_path):
    with graph_lib.Graph().as_default():
        saver, _ = build(tf, "sharded")
        path = tmp_path / "deep" / "dir" / "m.meta"
        meta = saver.export_meta_graph(str(path), as_text=True, clear_devices=True)
        assert sorted(os.listdir(path.parent)) == ["m.meta"]  # no temp file left behind
        text = path.read_text()
    assert text.startswith("meta_info_def {") and 'version: V2' in text and "device:" not in text
    read = meta_graph_import.read_meta_graph_file(path)
    assert read.to_bytes(deterministic=True) == meta.to_bytes(deterministic=True)
    with graph_lib.Graph().as_default():
        saver_lib.import_meta_graph(read)
        assert tf.get_default_graph().get_operation_by_name("c").device == ""


def test_import_clear_devices_and_device_scopes(tmp_path):
    with graph_lib.Graph().as_default():
        saver, _ = build(tf, "sharded")
        meta = meta_graph.export_meta_graph(saver_def=saver.saver_def)
    with graph_lib.Graph().as_default() as g:
        saver_lib.import_meta_graph(meta)
        assert g.get_operation_by_name("c").device == "/device:CPU:1"
        assert g.get_operation_by_name("c/Assign").device == "/device:CPU:1"
    with graph_lib.Graph().as_default() as g:
        saver_lib.import_meta_graph(meta, clear_devices=True)
        assert {op.device for op in g.get_operations()} == {""}


def test_export_scope_unbound_inputs_and_input_map():
    with graph_lib.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.variable_scope("net"):
            w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
            tf.identity(x * w, name="y")
        meta = meta_graph.export_meta_graph(export_scope="net")
    names = [node.name for node in meta.graph_def.node]
    assert "w" in names and "y" in names and "x" not in names
    assert meta.collection_def["unbound_inputs"].bytes_list.value == [b"$unbound_inputs_x"]
    assert next(node for node in meta.graph_def.node if node.name == "mul").input == ["$unbound_inputs_x", "w/read"]
    with graph_lib.Graph().as_default() as g:
        feed = tf.constant([2.0, 3.0], name="feed")
        with pytest.raises(ValueError, match="unbound inputs"):
            saver_lib.import_meta_graph(meta, import_scope="again")
        saver_lib.import_meta_graph(meta, import_scope="copy", input_map={"$unbound_inputs_x": feed})
        assert [v.name for v in tf.global_variables()] == ["copy/w:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run("copy/y:0").tolist() == [2.0, 3.0]


def test_strip_default_attrs_and_saver_writes_meta(tmp_path):
    with graph_lib.Graph().as_default():
        saver, _ = build(tf, "plain")
        meta = meta_graph.export_meta_graph(saver_def=saver.saver_def, strip_default_attrs=True)
        assign = next(node for node in meta.graph_def.node if node.name == "a/Assign")
        assert "use_locking" not in assign.attr and meta.meta_info_def.stripped_default_attrs
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "m"))
    assert os.path.exists(prefix + ".meta")
    with graph_lib.Graph().as_default() as g:
        restored = saver_lib.import_meta_graph(meta)
        assert g.get_operation_by_name("a/Assign").get_attr("use_locking") is True  # defaults come back
        with tf.Session() as sess:
            restored.restore(sess, prefix)
            assert sess.run("a:0").tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_large_initial_values_are_not_in_the_file():
    with graph_lib.Graph().as_default():
        tf.Variable(tf.random_normal([1000, 1000], seed=1), name="big_random")
        tf.Variable(tf.zeros([1000, 1000]), name="big_zeros")
        tf.get_variable("big_glorot", [2000, 500])
        tf.train.Saver()
        meta = meta_graph.export_meta_graph()
    assert len(meta.to_bytes()) < 30_000


def test_collection_kinds_and_describe():
    with graph_lib.Graph().as_default():
        saver, step = build(tf, "global_step")
        tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
        meta = meta_graph.export_meta_graph(saver_def=saver.saver_def)
    kinds = {key: meta.collection_def[key].which_oneof("kind") for key in meta.collection_def}
    assert kinds["variables"] == kinds["global_step"] == kinds["savers"] == "bytes_list"
    assert kinds["outputs"] == "node_list"
    step_def = VariableDef.from_bytes(meta.collection_def["global_step"].bytes_list.value[0])
    assert (step_def.variable_name, step_def.initializer_name, step_def.snapshot_name) == \
        ("global_step:0", "global_step/Assign", "global_step/read:0")
    assert SaverDef.from_bytes(meta.collection_def["savers"].bytes_list.value[0]) == meta.saver_def
    listing = meta_graph_import.describe_meta_graph(meta)
    assert "VariableV2" in listing and "global_step:0" in listing and "restore_all" in listing
    with graph_lib.Graph().as_default() as g:
        saver_lib.import_meta_graph(meta)
        assert g.get_collection("global_step")[0] is tf.global_variables()[2]
        assert g.get_collection(tf.GraphKeys.SAVERS)[0].saver_def == meta.saver_def


def test_bad_files(tmp_path):
    with pytest.raises(OSError, match="does not exist"):
        meta_graph_import.read_meta_graph_file(tmp_path / "none.meta")
    garbage = tmp_path / "garbage.meta"
    garbage.write_bytes(b"\xff\xfe not a proto {")
    with pytest.raises(OSError, match="Cannot parse"):
        meta_graph_import.read_meta_graph_file(garbage)
    with graph_lib.Graph().as_default():
        assert saver_lib.import_meta_graph(MetaGraphDef()) is None
    saver_text = tmp_path / "saver_def.meta"  # text of another message: its fields are not MetaGraphDef's
    saver_text.write_text('filename_tensor_name: "save/Const:0"\nversion: V2\n')
    with pytest.raises(OSError, match="Cannot parse file"):
        meta_graph_import.read_meta_graph_file(saver_text)
    tensorflow_only = tmp_path / "signatures.meta"  # fields TensorFlow has and we do not read are skipped
    tensorflow_only.write_text('signature_def { key: "serving" value { method_name: "m" } }\n'
                               'graph_def { node { name: "c" op: "NoOp" } }\n')
    assert [n.name for n in meta_graph_import.read_meta_graph_file(tensorflow_only).graph_def.node] == ["c"]


def test_collections_of_mixed_item_kinds_are_skipped():
    with graph_lib.Graph().as_default():
        tf.add_to_collection("ints", 3)
        tf.add_to_collection("ints", 3.5)  # an int64_list cannot hold it (TF's protobuf raises, TF skips)
        tf.add_to_collection("texts", "a")
        tf.add_to_collection("texts", 7)  # was written as seven zero bytes
        tf.add_to_collection("floats", 0.5)
        tf.add_to_collection("floats", 2)  # an int fits a float_list
        meta = meta_graph.export_meta_graph()
    assert "ints" not in meta.collection_def and "texts" not in meta.collection_def
    assert list(meta.collection_def["floats"].float_list.value) == [0.5, 2.0]


# ------------------------------------------------------------------------------------- TensorFlow as oracle


@pytest.fixture
def two_cpus(tf1):
    return tf1.ConfigProto(device_count={"CPU": 2})


@pytest.mark.tf
@pytest.mark.parametrize("kind", KINDS)
def test_tensorflow_imports_our_meta_and_restores(tf1, two_cpus, tmp_path, kind):
    with graph_lib.Graph().as_default():
        prefix, expected, values = save(tf, kind, str(tmp_path), session_config=tf.ConfigProto(device_count={"CPU": 2}))
    saver = tf1.train.import_meta_graph(prefix + ".meta")
    with tf1.Session(config=two_cpus) as sess:
        saver.restore(sess, prefix)
        np.testing.assert_allclose(sess.run("y:0", {"x:0": FEED}), expected, rtol=1e-6)
        assert [v.op.name for v in tf1.global_variables()] == list(values)
        for variable in tf1.global_variables():
            np.testing.assert_allclose(sess.run(variable), values[variable.op.name])
    if kind == "partitioned":
        info = tf1.global_variables()[3]._save_slice_info
        assert (info.full_name, info.full_shape, info.var_offset, info.var_shape) == ("emb", [7, 2], [3, 0], [2, 2])
    if kind == "global_step":
        assert tf1.train.get_global_step().name == "global_step:0"


@pytest.mark.tf
@pytest.mark.parametrize("kind", KINDS + ["adam"])
def test_we_import_tensorflow_meta_restore_and_compute(tf1, two_cpus, tmp_path, kind):
    prefix, expected, values = save(tf1, kind, str(tmp_path), session_config=two_cpus)
    if kind == "plain":  # TF's text format as well
        tf1.train.export_meta_graph(prefix + ".meta", as_text=True)
    with graph_lib.Graph().as_default() as g:
        saver = saver_lib.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in tf.global_variables()] == list(values)
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:  # /cpu:1, as TF's
            saver.restore(sess, prefix)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": FEED}), expected, rtol=1e-6)
            for variable in tf.global_variables():
                np.testing.assert_allclose(sess.run(variable), values[variable.op.name], rtol=1e-6)
            if kind == "adam" and kernels.lookup("ApplyAdam") is None:  # imported; only running it fails
                with pytest.raises(errors.UnimplementedError, match="ApplyAdam"):
                    sess.run(g.get_collection("train_op")[0], {"x:0": FEED})
            again = saver.save(sess, str(tmp_path / kind / "again"))  # TF's own save ops, run here
        theirs, ours = load_checkpoint(prefix), load_checkpoint(again)
        assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
        for key in theirs.get_variable_to_shape_map():
            np.testing.assert_array_equal(ours.get_tensor(key), theirs.get_tensor(key))
        if kind == "global_step":
            assert g.get_collection("global_step")[0].name == "global_step:0"


@pytest.mark.tf
def test_imported_string_collections_are_bytes_unless_scoped(tf1, tmp_path):
    # pix2pix's export keeps JSON in a collection; process-local.py reads it back with .decode('utf8')
    def imported(tf, scope):
        with tf.Graph().as_default():
            tf.add_to_collection("inputs", '{"input": "Placeholder:0"}')
            tf.train.export_meta_graph(str(tmp_path / "strings.meta"))
        with tf.Graph().as_default() as g:
            tf.train.import_meta_graph(str(tmp_path / "strings.meta"), import_scope=scope)
            return g.get_collection("inputs")
    for scope in (None, "imp"):
        assert imported(tf, scope) == imported(tf1, scope)
    assert imported(tf, None) == [b'{"input": "Placeholder:0"}']


@pytest.mark.tf
def test_tensorflow_meta_survives_a_round_trip_through_us(tf1, tmp_path):
    prefix, expected, _ = save(tf1, "adam", str(tmp_path))
    again = str(tmp_path / "again.meta")
    with graph_lib.Graph().as_default():
        saver = saver_lib.import_meta_graph(prefix + ".meta")
        saver.export_meta_graph(again)
    with tf1.Graph().as_default():
        restored = tf1.train.import_meta_graph(again)
        with tf1.Session() as sess:
            restored.restore(sess, prefix)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": FEED}), expected, rtol=1e-6)
            sess.run(tf1.get_collection("train_op")[0], {"x:0": FEED})  # TF can keep training our copy


@pytest.mark.tf
def test_encoding_matches_real_protobuf(tf1):
    from tensorflow.core.protobuf import meta_graph_pb2
    with graph_lib.Graph().as_default():
        saver, _ = build(tf, "partitioned")
        meta = meta_graph.export_meta_graph(saver_def=saver.saver_def)
    data = meta.to_bytes(deterministic=True)
    real = meta_graph_pb2.MetaGraphDef.FromString(data)
    assert real.SerializeToString(deterministic=True) == data
    assert real.saver_def.version == 2 and real.saver_def.filename_tensor_name == "save/Const:0"
    assert MetaGraphDef.from_bytes(real.SerializeToString()) == MetaGraphDef.from_bytes(data)
    assert isinstance(meta.collection_def["variables"], CollectionDef)


@pytest.mark.tf
def test_tensorflow_while_loop_text_meta_imports_lists_missing_kernels_and_goes_back(tf1, tmp_path):
    v = tf1.Variable(3.0, name="v")
    _, acc = tf1.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * v), [tf1.constant(0), tf1.constant(1.0)])
    tf1.identity(tf1.cond(acc > 10.0, lambda: acc, lambda: -acc), name="out")
    saver = tf1.train.Saver()
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        expected = sess.run("out:0")
        prefix = saver.save(sess, str(tmp_path / "loop"))
        saver.export_meta_graph(prefix + ".meta", as_text=True)
    again = str(tmp_path / "again.meta")
    with graph_lib.Graph().as_default() as g:
        ours = saver_lib.import_meta_graph(prefix + ".meta")
        assert len(g.get_collection("while_context")) == 1  # kept as the bytes TF wrote
        missing = sorted({op.type for op in g.get_operations() if kernels.lookup(op.type) is None})
        with tf.Session() as sess:
            ours.restore(sess, prefix)
            if missing:  # today: Enter, Exit, LoopCond, NextIteration
                with pytest.raises(errors.UnimplementedError, match=".*".join(missing)):
                    sess.run("out:0")
            else:
                assert sess.run("out:0") == pytest.approx(expected)
        ours.export_meta_graph(again)
    with tf1.Graph().as_default():
        restored = tf1.train.import_meta_graph(again)
        with tf1.Session() as sess:
            restored.restore(sess, prefix)
            assert sess.run("out:0") == pytest.approx(expected)


# ------------------------------------------------------------------------------------- tf.cond contexts


def build_cond(tf_module):
    """Variables initialized from another's ``initialized_value()`` (a cond), a nested cond, a branch of
    constants; returns the saver."""
    t = tf_module
    a = t.Variable([1.0, 2.0], name="a")
    t.Variable(a.initialized_value() * 2, name="b")
    x = t.placeholder(t.float32, [], name="x")
    t.identity(t.cond(x > 0, lambda: t.cond(x > 1, lambda: x + a[0], lambda: x * 2), lambda: x - 1), name="c")
    t.identity(t.cond(x > 0, lambda: t.constant(1.0), lambda: t.constant(2.0)), name="d")
    return t.train.Saver()


def run_cond(tf_module, sess) -> list:
    return [sess.run(["c:0", "d:0"], {"x:0": x}) for x in (2.0, 0.5, -3.0)] + [sess.run("b:0").tolist()]


def save_cond(tf_module, directory: str):
    saver = build_cond(tf_module)
    with tf_module.Session() as sess:
        sess.run(tf_module.global_variables_initializer())
        sess.run(tf_module.assign(tf_module.global_variables()[1], [7.0, 8.0]))
        return saver.save(sess, os.path.join(directory, "cond")), run_cond(tf_module, sess)


def test_cond_contexts_round_trip_here(tmp_path):
    with graph_lib.Graph().as_default() as g:
        prefix, expected = save_cond(tf, str(tmp_path))
        contexts = g.get_collection("cond_context")
    meta = meta_graph_import.read_meta_graph_file(prefix + ".meta")
    assert meta.collection_def["cond_context"].which_oneof("kind") == "bytes_list"
    assert len(meta.collection_def["cond_context"].bytes_list.value) == len(contexts) == 8
    with graph_lib.Graph().as_default() as g:
        saver = saver_lib.import_meta_graph(prefix + ".meta")
        rebuilt = g.get_collection("cond_context")
        assert [c.name for c in rebuilt] == [c.name for c in contexts]
        outer = rebuilt[4]
        assert (outer.name, outer.pred.name, outer.pivot.name, outer.branch) == \
            ("cond_1/cond_text", "cond_1/pred_id:0", "cond_1/switch_t:0", 1)
        assert [inner.name for inner in outer._nested_contexts] == ["cond_1/cond/cond_text", "cond_1/cond/cond_text_1"]
        again = meta_graph.export_meta_graph()
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            assert run_cond(tf, sess) == expected
    assert again.collection_def["cond_context"] == meta.collection_def["cond_context"]
    with graph_lib.Graph().as_default() as g:
        saver_lib.import_meta_graph(meta, import_scope="imp")
        assert g.get_collection("cond_context")[0].pivot.name == "imp/cond/switch_t:0"
        scoped = meta_graph.export_meta_graph(export_scope="imp")
    scoped_values = scoped.collection_def["cond_context"].bytes_list.value
    original_values = meta.collection_def["cond_context"].bytes_list.value
    assert scoped_values[:4] + scoped_values[5:] == original_values[:4] + original_values[5:]
    assert b"imp/cond_1/cond/cond_text" in scoped_values[4]  # TF writes nested contexts without export_scope


@pytest.mark.tf
def test_cond_contexts_with_tensorflow_both_ways(tf1, tmp_path):
    from tensorflow.core.protobuf import control_flow_pb2
    from graph.io.control_flow_context import CondContextDef
    theirs_prefix, expected = save_cond(tf1, str(tmp_path / "tf"))
    theirs = tf1.train.export_meta_graph().collection_def["cond_context"].bytes_list.value
    with graph_lib.Graph().as_default():
        ours_prefix, ours_expected = save_cond(tf, str(tmp_path / "ours"))
    assert ours_expected == expected
    ours = meta_graph_import.read_meta_graph_file(ours_prefix + ".meta").collection_def["cond_context"].bytes_list.value
    # The same protos; TF writes external_values in its hash table's order (it changes from run to run),
    # we write them sorted, which is TF's deterministic serialization.
    assert [control_flow_pb2.CondContextDef.FromString(data).SerializeToString(deterministic=True)
            for data in theirs] == list(ours)
    assert [CondContextDef.from_bytes(data) for data in theirs] == [CondContextDef.from_bytes(data) for data in ours]
    with tf1.Graph().as_default():  # TensorFlow imports our .meta, rebuilds the contexts, restores and runs
        saver = tf1.train.import_meta_graph(ours_prefix + ".meta")
        assert len(tf1.get_collection("cond_context")) == 8
        with tf1.Session() as sess:
            saver.restore(sess, ours_prefix)
            assert run_cond(tf1, sess) == expected
    with graph_lib.Graph().as_default():  # we import TensorFlow's, restore, run, and write its contexts back
        saver = saver_lib.import_meta_graph(theirs_prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, theirs_prefix)
            assert run_cond(tf, sess) == expected
        again = meta_graph.export_meta_graph().collection_def["cond_context"].bytes_list.value
    assert list(again) == list(theirs)
