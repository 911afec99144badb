"""Tests for saver/partial_restore.py: restore_matching, rename rules and the RestoreReport."""

import json
import os

import numpy as np
import pytest

from graph.variables.save_slice_info import SaveSliceInfo
from graph import errors
from graph.core import graph as graph_lib
from graph.runtime import session as session_lib
from graph.variables import variables
from graph.variables import variable_collections
from saver.restore import partial_restore
from saver.format.bundle import Slice, write_checkpoint
from saver.restore import IncompleteRestoreError, RestoreReport, compile_rename, restore_matching

from tests import TEST_DATA

DATA = TEST_DATA


def _var(name, shape, dtype=np.float32, value=None):
    value = np.full(shape, -1, dtype) if value is None else np.asarray(value, dtype)
    return variables.Variable(value, name=name)


def _partitioned(name, full_shape, row_splits, dtype=np.float32):
    """A partitioned variable built by hand: parts '<name>/part_i' split along axis 0."""
    parts = []
    offsets = [0] + list(np.cumsum(row_splits))[:-1]
    for i, (offset, rows) in enumerate(zip(offsets, row_splits)):
        shape = [rows] + list(full_shape[1:])
        part = _var(f"{name}/part_{i}", shape, dtype)
        part._set_save_slice_info(SaveSliceInfo(name, list(full_shape), [int(offset)] + [0] * (len(full_shape) - 1),
                                                            shape))
        parts.append(part)
    return parts


def _uninitialized(sess):
    """Names of the global variables without a value in ``sess`` (independent of report_uninitialized)."""
    store = sess._context.variables
    return sorted(v.op.name for v in sess.graph.get_collection("variables") if v.op.name not in store)


def _layers(n, width=4):
    rng = np.random.default_rng(5)
    values = {}
    for i in range(1, n + 1):
        values[f"layer_{i}/kernel"] = rng.standard_normal((width, width)).astype(np.float32)
        values[f"layer_{i}/bias"] = rng.standard_normal(width).astype(np.float32)
    return values


@pytest.fixture
def graph():
    g = graph_lib.Graph()
    with g.as_default():
        yield g


def test_five_layer_model_into_six_layer_model(graph, tmp_path):
    saved = _layers(5)
    prefix = write_checkpoint(str(tmp_path / "five" / "model.ckpt-100"), saved)
    model = {}
    for i in range(1, 7):
        with graph.name_scope(f"layer_{i}"):
            model[f"layer_{i}/kernel"] = _var("kernel", (4, 4), value=np.eye(4) * i)
            model[f"layer_{i}/bias"] = _var("bias", (4,), value=np.full(4, i))
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix)
    assert report.complete is False
    assert sorted(v.op.name for v in report.restored_variables) == sorted(saved)
    assert [(m.var.op.name, m.key) for m in report.missing] == [("layer_6/kernel", "layer_6/kernel"),
                                                               ("layer_6/bias", "layer_6/bias")]
    assert report.unused == [] and report.shape_mismatches == [] and report.dtype_mismatches == []
    assert _uninitialized(sess) == ["layer_6/bias", "layer_6/kernel"]
    reported = sess.run(variable_collections.report_uninitialized_variables())
    assert reported.tolist() == [b"layer_6/kernel", b"layer_6/bias"]
    fresh = [v for v in model.values() if v.op.name.encode() in set(reported.tolist())]
    sess.run(variable_collections.variables_initializer(fresh))
    for name, var in model.items():
        expected = saved.get(name, np.eye(4) * 6 if name.endswith("kernel") else np.full(4, 6))
        np.testing.assert_array_equal(sess.run(var), np.asarray(expected, np.float32))
    assert _uninitialized(sess) == []
    with pytest.raises(IncompleteRestoreError, match="layer_6/kernel"):
        report.raise_if_incomplete()


def test_report_summary_lists_every_section(graph, tmp_path):
    prefix = write_checkpoint(str(tmp_path / "m"), {
        "old/w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(3, np.float32),
        "c": np.ones(5, np.float32), "d": np.ones(4, np.float64), "zzz": np.zeros(1, np.float32)})
    with graph.name_scope("l1"):
        w = _var("w", (2, 3))
    _var("b", (3,)), _var("c", (4,)), _var("d", (4,), np.float32), _var("extra", ())
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix, rename={"l1/": "old/"})
    text = str(report)
    assert text.splitlines()[0] == (f"Restored 2 of 5 variables from {prefix} (5 tensors in the checkpoint, "
                                    "1 unused).")
    assert "Missing from the checkpoint (1):\n  extra" in text
    assert "Shape mismatches (1):\n  c [4] vs 'c' [5] in the checkpoint" in text
    assert "Dtype mismatches (1):\n  d float32 vs 'd' float64 in the checkpoint" in text
    assert "Unused in the checkpoint (1):\n  zzz" in text
    assert "l1/w <- 'old/w'" in text
    assert repr(report) == ("<RestoreReport restored=2 missing=1 unused=1 shape_mismatches=1 "
                            "dtype_mismatches=1 skipped=0>")
    (mismatch,) = report.shape_mismatches
    assert (mismatch.key, mismatch.var_shape, mismatch.checkpoint_shape) == ("c", (4,), (5,))
    (dtype_mismatch,) = report.dtype_mismatches
    assert dtype_mismatch.var_dtype.name == "float32" and dtype_mismatch.checkpoint_dtype.name == "float64"
    np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))
    assert _uninitialized(sess) == ["c", "d", "extra"]
    assert report.summary(limit=0).count("... and") == 5


def test_strict_raises_before_changing_anything(graph, tmp_path):
    prefix = write_checkpoint(str(tmp_path / "m"), {"a": np.ones(2, np.float32), "b": np.ones(3, np.float32)})
    _var("a", (2,)), _var("b", (2,))
    sess = session_lib.Session(graph=graph)
    with pytest.raises(errors.NotFoundError) as caught:
        restore_matching(sess, prefix, strict=True)
    assert isinstance(caught.value, IncompleteRestoreError)
    assert caught.value.report.shape_mismatches[0].key == "b"
    assert "b [2] vs 'b' [3]" in caught.value.message
    assert _uninitialized(sess) == ["a", "b"]
    report = restore_matching(sess, prefix, var_list=[graph.get_collection("variables")[0]], strict=True)
    assert report.raise_if_incomplete() is report
    with pytest.raises(IncompleteRestoreError, match="Unused in the checkpoint"):
        report.raise_if_incomplete(allow_unused=False)


@pytest.mark.parametrize("rename, expected", [
    ({"net/": "old/"}, {"net/w": "old/w", "net/sub/v": "old/sub/v", "top": "top"}),
    ({"net/sub/": "x/", "net/": "y/"}, {"net/w": "y/w", "net/sub/v": "x/v", "top": "top"}),
    ({"/": "pre/"}, {"net/w": "pre/net/w", "top": "pre/top"}),
    ({"net/": "/"}, {"net/w": "w", "net/sub/v": "sub/v"}),
    ({"net/w": "W", "net/": "n/"}, {"net/w": "W", "net/sub/v": "n/sub/v"}),
    ({"net/": None}, {"net/w": None, "top": "top"}),
    ((r"^net/(\w+)$", r"model/\1"), {"net/w": "model/w", "net/sub/v": "net/sub/v"}),
    (lambda name: name.upper() if "w" in name else None, {"net/w": "NET/W", "top": None}),
    ([{"top": "TOP"}, (r"sub", "SUB"), lambda n: "other"], {"top": "TOP", "net/sub/v": "net/SUB/v", "net/w": "other"}),
])
def test_rename_rules(rename, expected):
    apply = compile_rename(rename)
    assert {name: apply(name) for name in expected} == expected


def test_rename_rejects_garbage():
    with pytest.raises(TypeError, match="rename rule"):
        compile_rename(42)
    with pytest.raises(TypeError, match="map str to str"):
        compile_rename({"a": 3})


def test_var_list_dict_list_and_skips(graph, tmp_path):
    prefix = write_checkpoint(str(tmp_path / "m"), {"ckpt_a": np.full(2, 7, np.float32), "b": np.full(2, 8, np.float32)})
    a, b = _var("a", (2,)), _var("b", (2,))
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix, var_list={"ckpt_a": a})
    assert [(r.var, r.key) for r in report.restored] == [(a, "ckpt_a")]
    assert report.unused == ["b"] and _uninitialized(sess) == ["b"]
    report = restore_matching(sess, prefix, var_list=[a, b], rename=lambda n: None if n == "a" else n)
    assert [s.name for s in report.skipped] == ["a"] and [r.key for r in report.restored] == ["b"]
    np.testing.assert_array_equal(sess.run(a), [7, 7])
    np.testing.assert_array_equal(sess.run(b), [8, 8])
    with pytest.raises(TypeError, match="must be a Variable"):
        restore_matching(sess, prefix, var_list={"x": 3})
    other = graph_lib.Graph()
    with other.as_default():
        stranger = _var("s", (1,))
    with pytest.raises(ValueError, match="not in the graph"):
        restore_matching(sess, prefix, var_list=[stranger])


def test_values_become_the_variable_store_arrays(graph, tmp_path, monkeypatch):
    prefix = write_checkpoint(str(tmp_path / "m"), {"a": np.arange(12, dtype=np.float32).reshape(3, 4)})
    _var("a", (3, 4))
    sess = session_lib.Session(graph=graph)
    read = []
    real = partial_restore._read_into

    def spy(reader, key, spec, out):
        result = real(reader, key, spec, out)
        read.append((out, result))
        return result
    monkeypatch.setattr(partial_restore, "_read_into", spy)
    restore_matching(sess, prefix)
    (out, result), = read
    assert result is out and sess._context.variables["a"] is out  # read into the array that is the value


def test_partitioned_variables_from_any_partitioning(graph, tmp_path):
    full = np.arange(7 * 3, dtype=np.float32).reshape(7, 3)
    stored_parts = [Slice((7, 3), "0,4:-", full[:4]), Slice((7, 3), "4,3:-", full[4:])]
    prefix = write_checkpoint(str(tmp_path / "m"), {"emb": stored_parts, "whole": full, "emb2": stored_parts})
    emb = _partitioned("emb", (7, 3), [3, 2, 2])
    whole_as_parts = _partitioned("whole", (7, 3), [5, 2])
    emb2 = _var("emb2", (7, 3))
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix)
    assert report.complete and report.unused == []
    assert [(r.var.op.name, r.key) for r in report.restored] == [
        ("emb/part_0", "emb"), ("emb/part_1", "emb"), ("emb/part_2", "emb"),
        ("whole/part_0", "whole"), ("whole/part_1", "whole"), ("emb2", "emb2")]
    np.testing.assert_array_equal(np.concatenate([sess.run(p) for p in emb]), full)
    np.testing.assert_array_equal(np.concatenate([sess.run(p) for p in whole_as_parts]), full)
    np.testing.assert_array_equal(sess.run(emb2), full)


def test_partitioned_full_shape_mismatch_and_dict_of_parts(graph, tmp_path):
    full = np.arange(8, dtype=np.float32).reshape(4, 2)
    prefix = write_checkpoint(str(tmp_path / "m"), {"old_emb": full})
    parts = _partitioned("emb", (4, 2), [1, 3])
    wrong = _partitioned("bad", (5, 2), [2, 3])
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix, var_list={"old_emb": parts, "old_emb_": wrong},
                              rename={"old_emb_": "old_emb"})
    assert [r.var for r in report.restored] == parts
    assert [(m.var.op.name, m.var_shape, m.checkpoint_shape) for m in report.shape_mismatches] == [
        ("bad/part_0", (5, 2), (4, 2)), ("bad/part_1", (5, 2), (4, 2))]
    np.testing.assert_array_equal(np.concatenate([sess.run(p) for p in parts]), full)


def test_strings_and_directory_and_v1(graph, tmp_path):
    from saver.format.v1 import write_v1_checkpoint
    words = np.array([b"ab", b"", b"xyz"], dtype=object)
    write_checkpoint(str(tmp_path / "d" / "m-1"), {"s": words})
    (tmp_path / "d" / "checkpoint").write_text('model_checkpoint_path: "m-1"\n')
    s = variables.Variable(np.array([b"", b"", b""], dtype=object), name="s")
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, str(tmp_path / "d"))
    assert report.checkpoint == str(tmp_path / "d" / "m-1") and report.complete
    assert sess.run(s).tolist() == [b"ab", b"", b"xyz"]
    v1 = write_v1_checkpoint(str(tmp_path / "v1.ckpt"), {"s": np.array([b"q", b"r", b"s"], dtype=object)})
    restore_matching(sess, v1).raise_if_incomplete()
    assert sess.run(s).tolist() == [b"q", b"r", b"s"]


def test_tf2_object_based_checkpoint_by_full_name_and_object_path(graph):
    directory = os.path.join(DATA, "tf2_guide_noiter")
    with open(os.path.join(directory, "expected.json")) as file:
        expected = json.load(file)["variables"]
    kernel = _var("net/kernel", (1, 5))          # TF2 full_name of net/l1/_kernel
    bias = _var("bias", (5,))                    # found through its object path
    step = _var("step", (), np.int32)
    missing = _var("net/nothing", (2,))
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, directory, var_list={"net/kernel": kernel, "net/l1/bias": bias,
                                                          "step": step, "net/nothing": missing})
    assert {(r.var.op.name, r.key) for r in report.restored} == {
        ("net/kernel", "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"),
        ("bias", "net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE"),
        ("step", "step/.ATTRIBUTES/VARIABLE_VALUE")}
    assert [m.var for m in report.missing] == [missing]
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" not in report.unused
    assert "save_counter/.ATTRIBUTES/VARIABLE_VALUE" in report.unused
    np.testing.assert_array_equal(sess.run(kernel),
                                  np.float32(expected["net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"]["value"]))
    np.testing.assert_array_equal(sess.run(bias), np.float32(expected["net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE"]["value"]))
    assert sess.run(step) == 50


def test_missing_checkpoint_is_an_error(graph, tmp_path):
    _var("a", (1,))
    sess = session_lib.Session(graph=graph)
    with pytest.raises(errors.NotFoundError):
        restore_matching(sess, str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        restore_matching(sess, str(tmp_path))


def test_report_is_a_plain_object():
    report = RestoreReport("p", 0)
    assert report.complete and str(report).startswith("Restored 0 of 0 variables from p")


@pytest.mark.tf
def test_tf_written_partitioned_checkpoint_restores_into_other_partitioning(tf1, tmp_path, graph):
    with tf1.variable_scope("scope"):
        tf_emb = tf1.get_variable("emb", shape=[7, 2], partitioner=tf1.fixed_size_partitioner(3),
                                  initializer=tf1.random_uniform_initializer(seed=1))
    tf_w = tf1.get_variable("w", shape=[2, 3], initializer=tf1.random_normal_initializer(seed=2))
    saver = tf1.train.Saver()
    with tf1.Session() as tf_sess:
        tf_sess.run(tf1.global_variables_initializer())
        emb_value = np.concatenate([tf_sess.run(p) for p in tf_emb])
        w_value = tf_sess.run(tf_w)
        prefix = saver.save(tf_sess, str(tmp_path / "tf" / "model"))
    with graph.as_default():
        parts = _partitioned("new/emb", (7, 2), [4, 3])
        w = _var("new/w", (2, 3))
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix, rename=[{"new/emb": "scope/emb"}, (r"^new/", "")])
    assert report.complete and report.unused == []
    np.testing.assert_array_equal(np.concatenate([sess.run(p) for p in parts]), emb_value)
    np.testing.assert_array_equal(sess.run(w), w_value)


def test_partitioned_variable_objects_from_get_variable(graph, tmp_path):
    from graph.variables import partitioning
    from graph.variables import variable_scope
    full = np.arange(10 * 2, dtype=np.float32).reshape(10, 2)
    prefix = write_checkpoint(str(tmp_path / "m"), {
        "old/emb": [Slice((10, 2), "0,5:-", full[:5]), Slice((10, 2), "5,5:-", full[5:])]})
    with variable_scope.variable_scope("new"):
        emb = variable_scope.get_variable("emb", shape=[10, 2], partitioner=partitioning.fixed_size_partitioner(3))
    sess = session_lib.Session(graph=graph)
    report = restore_matching(sess, prefix, var_list=[emb], rename={"new/": "old/"})
    assert report.complete and len(report.restored) == 3
    np.testing.assert_array_equal(np.concatenate([sess.run(p) for p in emb]), full)
    sess2 = session_lib.Session(graph=graph)  # var_list=None groups the parts by their full name too
    report = restore_matching(sess2, prefix, rename={"new/": "old/"})
    assert {r.key for r in report.restored} == {"old/emb"} and report.complete


def test_five_layer_workflow_with_saver_and_matmul(tmp_path):
    """The end-to-end recipe: save a 5-layer MLP with Saver, grow it to 6 layers, restore what matches."""
    from graph.ops import linalg_ops
    from graph.ops import constant_ops as ops
    from saver.saver import Saver
    saved = _layers(5)

    def build(n):
        x = ops.placeholder(np.float32, [None, 4], name="x")
        layers, h = {}, x
        for i in range(1, n + 1):
            with graph_lib.name_scope(f"layer_{i}"):
                kernel = _var("kernel", (4, 4), value=saved.get(f"layer_{i}/kernel", np.eye(4)))
                bias = _var("bias", (4,), value=saved.get(f"layer_{i}/bias", np.zeros(4)))
                h = linalg_ops.matmul(h, kernel) + bias
            layers[i] = (kernel, bias)
        return x, h

    with graph_lib.Graph().as_default() as five:
        x5, y5 = build(5)
        with session_lib.Session(graph=five) as sess:
            sess.run(variable_collections.global_variables_initializer())
            prefix = Saver().save(sess, str(tmp_path / "five" / "model.ckpt"), global_step=100,
                                  write_meta_graph=False)
            batch = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
            expected = sess.run(y5, {x5: batch})
    with graph_lib.Graph().as_default() as six:
        x6, y6 = build(6)  # layer 6 starts as the identity, so the output must not change
        with session_lib.Session(graph=six) as sess:
            report = restore_matching(sess, str(tmp_path / "five"))
            assert report.checkpoint == prefix and len(report.restored) == 10 and report.unused == []
            missing = sess.run(variable_collections.report_uninitialized_variables())
            assert missing.tolist() == [b"layer_6/kernel", b"layer_6/bias"]
            new = [v for v in variable_collections.global_variables() if v.op.name.encode() in set(missing.tolist())]
            sess.run(variable_collections.variables_initializer(new))
            np.testing.assert_allclose(sess.run(y6, {x6: batch}), expected, rtol=1e-6)
