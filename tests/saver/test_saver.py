"""saver.saver.Saver: the save graph, save/restore, state file, retention, errors, V1, sharding, TF2 fallback."""

import json
import os

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph import errors
from graph.variables.partitioning import fixed_size_partitioner
from saver import saver as saver_lib
from saver.format.bundle import BundleReader
from saver.saver import CheckpointNotFoundError, Saver, SaverDef

from tests import TEST_DATA

DATA = TEST_DATA


@pytest.fixture
def g():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def _vars():
    a = tf.Variable(np.array([1.0, 2.0], np.float32), name="a")
    b = tf.Variable(np.array([[3, 4]], np.int32), name="b")
    return a, b


def _files(path):
    return sorted(os.listdir(path))


# ----------------------------------------------------------------- graph
def test_save_graph_matches_tensorflow(g):
    a, b = _vars()
    saver = Saver()
    ops = {op.name: op for op in g.get_operations() if op.name.startswith("save/")}
    assert list(ops) == ["save/filename/input", "save/filename", "save/Const", "save/SaveV2/tensor_names",
                         "save/SaveV2/shape_and_slices", "save/SaveV2", "save/control_dependency",
                         "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices", "save/RestoreV2",
                         "save/Assign", "save/Assign_1", "save/restore_all"]
    assert ops["save/Const"].type == "PlaceholderWithDefault"
    assert [t.name for t in ops["save/SaveV2"].inputs[3:]] == ["a:0", "b:0"]
    assert ops["save/RestoreV2"].device == "/device:CPU:0"
    assert [t.name for t in ops["save/Assign_1"].inputs] == ["b:0", "save/RestoreV2:1"]
    assert ops["save/Assign"].get_attr("_class") == [b"loc:@a"]
    assert [c.name for c in ops["save/restore_all"].control_inputs] == ["save/Assign", "save/Assign_1"]
    assert [c.name for c in ops["save/control_dependency"].control_inputs] == ["save/SaveV2"]
    sd = saver.as_saver_def()
    assert (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name) == \
        ("save/Const:0", "save/control_dependency:0", "save/restore_all")
    assert (sd.max_to_keep, sd.sharded, sd.keep_checkpoint_every_n_hours, sd.version) == (5, False, 10000.0, 2)
    # What tensorflow's SaverDef.SerializeToString gives for these defaults.
    assert sd.to_bytes() == (b"\n\x0csave/Const:0\x12\x19save/control_dependency:0\x1a\x10save/restore_all"
                             b" \x055\x00@\x1cF8\x02")
    assert SaverDef.from_bytes(sd.to_bytes()) == sd
    second = Saver([a], name="mine")
    assert second.as_saver_def().restore_op_name == "mine/restore_all"
    assert Saver([b]).as_saver_def().save_tensor_name == "save_1/control_dependency:0"


def test_sharded_graph(g):
    with tf.device("/cpu:1"):
        tf.Variable([1.0], name="a")
    with tf.device("/cpu:0"):
        tf.Variable([2.0], name="b")
    saver = Saver(sharded=True)
    names = [op.name for op in g.get_operations() if op.name.startswith("save/")]
    for expected in ("save/StaticRegexFullMatch", "save/Select", "save/StringJoin", "save/num_shards",
                     "save/ShardedFilename", "save/ShardedFilename_1", "save/MergeV2Checkpoints/checkpoint_prefixes",
                     "save/MergeV2Checkpoints", "save/Identity", "save/restore_shard", "save/restore_shard_1",
                     "save/restore_all/NoOp", "save/restore_all/NoOp_1"):
        assert expected in names
    assert g.get_operation_by_name("save/SaveV2").inputs[3].name == "b:0"  # CPU:0 sorts first
    assert g.get_operation_by_name("save/SaveV2_1").inputs[3].name == "a:0"
    assert saver.as_saver_def().save_tensor_name == "save/Identity:0"
    assert saver.as_saver_def().sharded


# ----------------------------------------------------------------- save
def test_save_and_restore_round_trip(g, tmp_path):
    a, b = _vars()
    saver = Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
        assert path == str(tmp_path / "model.ckpt")
        assert _files(tmp_path) == ["checkpoint", "model.ckpt.data-00000-of-00001", "model.ckpt.index"] or \
            "model.ckpt.meta" in _files(tmp_path)
        sess.run([a.assign([9.0, 9.0]), b.assign([[0, 0]])])
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(a), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(b), [[3, 4]])
    with tf.Session() as fresh:  # restoring initializes
        saver.restore(fresh, path)
        np.testing.assert_array_equal(fresh.run(b), [[3, 4]])
    state = (tmp_path / "checkpoint").read_text()
    assert state == f'model_checkpoint_path: "{path}"\nall_model_checkpoint_paths: "{path}"\n'


def test_global_step_forms_and_padding(g, tmp_path):
    a, _ = _vars()
    step = tf.Variable(7, name="global_step", trainable=False)
    saver = Saver([a], pad_step_number=False)
    padded = Saver([a], pad_step_number=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        base = str(tmp_path / "m")
        assert saver.save(sess, base, global_step=3, write_meta_graph=False) == base + "-3"
        assert saver.save(sess, base, global_step=step, write_meta_graph=False) == base + "-7"
        assert saver.save(sess, base, global_step=tf.constant(11), write_meta_graph=False) == base + "-11"
        assert saver.save(sess, base, global_step="global_step:0", write_meta_graph=False) == base + "-7"
        assert padded.save(sess, base, global_step=5, write_meta_graph=False) == base + "-00000005"
        assert saver.save(sess, base, global_step=np.int64(4), write_meta_graph=False) == base + "-4"


def test_directory_creation_and_path_errors(g, tmp_path):
    a, _ = _vars()
    saver = Saver([a])
    with tf.Session() as sess:
        sess.run(a.initializer)
        assert saver.save(sess, str(tmp_path / "new" / "m"), write_meta_graph=False)  # one level is created
        with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save."):
            saver.save(sess, str(tmp_path / "x" / "y" / "m"), write_meta_graph=False)
        with pytest.raises(ValueError, match="'latest_filename' must not contain path components"):
            saver.save(sess, str(tmp_path / "m"), latest_filename="a/b")
        with pytest.raises(ValueError, match="'latest_filename' collides with 'save_path'"):
            saver.save(sess, str(tmp_path / "checkpoint"))
        with pytest.raises(TypeError, match="'sess' must be a Session"):
            saver.save(object(), str(tmp_path / "m"))
        saver.save(sess, str(tmp_path / "m"), latest_filename="other", write_meta_graph=False)
        assert (tmp_path / "other").exists()
        saver.save(sess, str(tmp_path / "nostate"), write_state=False, write_meta_graph=False)
        assert "nostate" not in (tmp_path / "other").read_text()


def test_relative_paths_in_state_file(g, tmp_path, monkeypatch):
    a, _ = _vars()
    with tf.Session() as sess:
        sess.run(a.initializer)
        Saver([a], save_relative_paths=True).save(sess, str(tmp_path / "m"), write_meta_graph=False)
        assert (tmp_path / "checkpoint").read_text() == ('model_checkpoint_path: "m"\n'
                                                         'all_model_checkpoint_paths: "m"\n')
        monkeypatch.chdir(tmp_path)
        os.mkdir("rel")
        assert Saver([a]).save(sess, "rel/r", global_step=8, write_meta_graph=False) == "rel/r-8"
        assert (tmp_path / "rel" / "checkpoint").read_text() == ('model_checkpoint_path: "r-8"\n'
                                                                 'all_model_checkpoint_paths: "r-8"\n')
        assert tf.train.latest_checkpoint("rel") == os.path.join("rel", "r-8")


# ----------------------------------------------------------------- retention
def _save_steps(sess, saver, base, steps, **kwargs):
    return [saver.save(sess, base, global_step=s, write_meta_graph=False, **kwargs) for s in steps]


def test_max_to_keep(g, tmp_path):
    a, _ = _vars()
    saver = Saver([a], max_to_keep=2)
    with tf.Session() as sess:
        sess.run(a.initializer)
        base = str(tmp_path / "m")
        _save_steps(sess, saver, base, range(4))
    assert saver.last_checkpoints == [base + "-2", base + "-3"]
    assert _files(tmp_path) == ["checkpoint", "m-2.data-00000-of-00001", "m-2.index",
                                "m-3.data-00000-of-00001", "m-3.index"]
    assert tf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths == [base + "-2", base + "-3"]


@pytest.mark.parametrize("keep", [0, None])
def test_max_to_keep_zero_keeps_everything(g, tmp_path, keep):
    a, _ = _vars()
    saver = Saver([a], max_to_keep=keep)
    assert saver.as_saver_def().max_to_keep == 0
    with tf.Session() as sess:
        sess.run(a.initializer)
        base = str(tmp_path / "m")
        _save_steps(sess, saver, base, range(3))
    assert saver.last_checkpoints == []
    assert len([f for f in _files(tmp_path) if f.endswith(".index")]) == 3
    assert (tmp_path / "checkpoint").read_text() == (f'model_checkpoint_path: "{base}-2"\n'
                                                     f'all_model_checkpoint_paths: "{base}-2"\n')


def test_keep_checkpoint_every_n_hours(g, tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(saver_lib.time, "time", lambda: clock[0])
    a, _ = _vars()
    saver = Saver([a], max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
    with tf.Session() as sess:
        sess.run(a.initializer)
        base = str(tmp_path / "m")
        for step, now in enumerate([1000.0, 2000.0, 4700.0, 5000.0, 9000.0]):
            clock[0] = now
            saver.save(sess, base, global_step=step, write_meta_graph=False)
    # next_time starts at 1000+3600=4600: m-2 (saved at 4700) is kept on disk, then next_time = 8200.
    assert sorted(f for f in _files(tmp_path) if f.endswith(".index")) == ["m-2.index", "m-4.index"]
    assert saver.last_checkpoints == [base + "-4"]


def test_never_deletes_files_it_did_not_write(g, tmp_path):
    a, _ = _vars()
    with tf.Session() as sess:
        sess.run(a.initializer)
        base = str(tmp_path / "m")
        Saver([a]).save(sess, base + "-other", write_meta_graph=False)
        saver = Saver([a], max_to_keep=1)
        _save_steps(sess, saver, base, range(3))
    assert "m-other.index" in _files(tmp_path)


def test_set_and_recover_last_checkpoints(g, tmp_path):
    a, _ = _vars()
    saver = Saver([a], max_to_keep=2)
    with tf.Session() as sess:
        sess.run(a.initializer)
        base = str(tmp_path / "m")
        paths = _save_steps(sess, saver, base, range(2))
        other = Saver([a], max_to_keep=2)
        other.recover_last_checkpoints(paths + [base + "-missing"])
        assert other.last_checkpoints == paths
        assert all(isinstance(t, float) for _, t in other._last_checkpoints)
        other.set_last_checkpoints([paths[0]])
        assert other._last_checkpoints == [(paths[0], np.inf)]
        other.set_last_checkpoints_with_time([(paths[1], 5.0)])
        assert other.last_checkpoints == [paths[1]]
        with pytest.raises(AssertionError):
            other.set_last_checkpoints((paths[0],))


# ----------------------------------------------------------------- restore errors
def test_restore_errors(g, tmp_path):
    a, b = _vars()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
        saver = Saver([a])
        with pytest.raises(ValueError, match="Can't load save_path when it is None."):
            saver.restore(sess, None)
        with pytest.raises(CheckpointNotFoundError, match="The passed save_path is not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "nothere"))
        with pytest.raises(errors.NotFoundError):
            saver.restore(sess, str(tmp_path / "nothere"))
        with pytest.raises(ValueError):
            saver.restore(sess, str(tmp_path / "nothere"))
    with tf.Graph().as_default():
        weights = tf.Variable([1.0], name="c")
        with tf.Session() as sess, pytest.raises(errors.NotFoundError) as info:
            Saver({"aa": weights}).restore(sess, path)
        assert "Key aa not found in checkpoint" in str(info.value) and "Closest keys present: a" in str(info.value)
        assert "a Variable name or other graph key that is missing" in str(info.value)
    with tf.Graph().as_default():
        wide = tf.Variable([1.0, 2.0, 3.0], name="a")
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(wide.initializer)
            Saver([wide]).restore(sess, path)
        message = str(info.value)
        assert "lhs shape= [3] rhs shape= [2]" in message
        assert "Variable 'a' has shape [3] but checkpoint key 'a' holds shape [2]" in message
        assert "mismatch between the current graph and the graph" in message
    with tf.Graph().as_default():
        wrong = tf.Variable([1.0], name="b")
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                                 match="expected dtype float does not equal original dtype int32"):
            Saver([wrong]).restore(sess, path)


def test_shape_mismatch_in_fresh_session(g, tmp_path):
    a, _ = _vars()
    with tf.Session() as sess:
        sess.run(a.initializer)
        path = Saver([a]).save(sess, str(tmp_path / "m"), write_meta_graph=False)
    with tf.Graph().as_default():
        wide = tf.Variable([1.0, 2.0, 3.0], name="a")
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match=r"lhs shape= \[3\] rhs shape= \[2\]"):
            Saver([wide]).restore(sess, path)


def test_reshape(g, tmp_path):
    a, b = _vars()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    with tf.Graph().as_default():
        column = tf.Variable(np.zeros((2, 1), np.float32), name="a")
        with tf.Session() as sess:
            Saver([column], reshape=True).restore(sess, path)
            np.testing.assert_array_equal(sess.run(column), [[1.0], [2.0]])


# ----------------------------------------------------------------- partitioned, V1, sharded
def test_partitioned_restore_from_any_partitioning(g, tmp_path):
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    emb = tf.get_variable("emb", [7, 2], initializer=tf.zeros_initializer(), partitioner=fixed_size_partitioner(3))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for part in emb:
            offset, shape = part._save_slice_info.var_offset[0], part._save_slice_info.var_shape[0]
            sess.run(part.assign(full[offset:offset + shape]))
        path = Saver().save(sess, str(tmp_path / "p"), write_meta_graph=False)
    with BundleReader(path) as reader:
        assert len(reader.lookup_tensor_slices("emb")) == 3
    with tf.Graph().as_default():
        emb2 = tf.get_variable("emb", [7, 2], partitioner=fixed_size_partitioner(2))
        with tf.Session() as sess:
            Saver().restore(sess, path)
            np.testing.assert_array_equal(np.concatenate(sess.run(list(emb2))), full)
            plain_path = Saver().save(sess, str(tmp_path / "q"), write_meta_graph=False)
    with tf.Graph().as_default():
        plain = tf.Variable(np.zeros((7, 2), np.float32), name="emb")
        with tf.Session() as sess:
            Saver().restore(sess, plain_path)
            np.testing.assert_array_equal(sess.run(plain), full)
            whole_path = Saver().save(sess, str(tmp_path / "w"), write_meta_graph=False)
    with tf.Graph().as_default():
        emb3 = tf.get_variable("emb", [7, 2], partitioner=fixed_size_partitioner(4))
        with tf.Session() as sess:
            Saver([emb3]).restore(sess, whole_path)
            np.testing.assert_array_equal(np.concatenate(sess.run(list(emb3))), full)


@pytest.mark.parametrize("sharded", [False, True])
def test_v1_format(g, tmp_path, sharded):
    a, b = _vars()
    saver = Saver(write_version=SaverDef.V1, sharded=sharded)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "v1"), write_meta_graph=False)
        assert path == str(tmp_path / ("v1-?????-of-00001" if sharded else "v1"))
        sess.run(a.assign([0.0, 0.0]))
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(a), [1.0, 2.0])
    assert not any(f.endswith(".index") for f in _files(tmp_path))


def test_sharded_v2(g, tmp_path):
    values = {}
    for index, device in enumerate(["/cpu:2", "/cpu:0", "/cpu:1"]):
        with tf.device(device):
            values[f"v{index}"] = tf.Variable(np.full(3, index, np.float32), name=f"v{index}")
    saver = Saver(sharded=True, max_to_keep=1)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
        sess.run(tf.global_variables_initializer())
        base = str(tmp_path / "s")
        path = saver.save(sess, base, global_step=1, write_meta_graph=False)
        assert path == base + "-1"
        assert _files(tmp_path) == ["checkpoint", "s-1.data-00000-of-00003", "s-1.data-00001-of-00003",
                                    "s-1.data-00002-of-00003", "s-1.index"]
        with BundleReader(path) as reader:
            assert reader.lookup_entry("v1").shard_id == 0 and reader.lookup_entry("v0").shard_id == 2
        saver.save(sess, base, global_step=2, write_meta_graph=False)
        assert not any(f.startswith("s-1") for f in _files(tmp_path))
        sess.run(values["v0"].assign([7.0, 7.0, 7.0]))
        saver.restore(sess, base + "-2")
        np.testing.assert_array_equal(sess.run(values["v0"]), [0.0, 0.0, 0.0])


# ----------------------------------------------------------------- building variants
def test_build_variants(g, tmp_path):
    with pytest.raises(ValueError, match="No variables to save"):
        Saver()
    empty = Saver(allow_empty=True)
    with tf.Session() as sess:
        assert empty.save(sess, str(tmp_path / "e"), write_meta_graph=False) is None
        assert empty.restore(sess, str(tmp_path / "e")) is None
    a, _ = _vars()
    with pytest.raises(ValueError, match="build cannot be deferred"):
        Saver([a], defer_build=True)
    deferred = Saver(defer_build=True)
    assert not [op for op in g.get_operations() if op.name.startswith("save")]
    with tf.Session() as sess, pytest.raises(RuntimeError, match="`build\\(\\)` should be called"):
        deferred.save(sess, str(tmp_path / "d"))
    deferred.build()
    deferred.build()  # once only
    assert deferred.as_saver_def().restore_op_name == "save/restore_all"
    with pytest.raises(TypeError):
        Saver([tf.constant(1.0)])
    with pytest.raises(ValueError, match="saver_def must be a saver_pb2.SaverDef"):
        Saver(saver_def="nope")


def test_saver_def_reconstruction_and_protos(g, tmp_path):
    a, b = _vars()
    original = Saver(max_to_keep=3)
    rebuilt = Saver(saver_def=original.as_saver_def())
    assert rebuilt.as_saver_def() is original.as_saver_def()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = rebuilt.save(sess, str(tmp_path / "r"), write_meta_graph=False)
        sess.run(a.assign([5.0, 5.0]))
        Saver.from_proto(original.to_proto()).restore(sess, path)
        np.testing.assert_array_equal(sess.run(a), [1.0, 2.0])
    assert original.to_proto(export_scope="save").restore_op_name == "restore_all"
    assert original.to_proto(export_scope="other") is None
    scoped = SaverDef(filename_tensor_name="save/Const:0", save_tensor_name="save/control_dependency:0",
                      restore_op_name="save/restore_all", version=SaverDef.V2)
    assert Saver(saver_def=scoped, name="imported").as_saver_def().restore_op_name == "imported/save/restore_all"


def test_two_sessions_are_independent(g, tmp_path):
    a, _ = _vars()
    saver = Saver([a])
    with tf.Session() as first, tf.Session() as second:
        first.run(a.initializer)
        second.run(a.assign([8.0, 9.0]))
        path = saver.save(second, str(tmp_path / "two"), write_meta_graph=False)
        saver.restore(first, path)
        np.testing.assert_array_equal(first.run(a), [8.0, 9.0])


# ----------------------------------------------------------------- TF2 object-based checkpoints
def _guide_expected():
    with open(os.path.join(DATA, "tf2_guide", "expected.json")) as file:
        return json.load(file)["variables"]


def test_object_based_fallback_by_full_name(g):
    expected = _guide_expected()
    kernel = tf.Variable(np.zeros((1, 5), np.float32), name="net/kernel")
    bias = tf.Variable(np.zeros(5, np.float32), name="net/bias")
    step = tf.Variable(0, name="Variable")
    saver = Saver()
    prefix = tf.train.latest_checkpoint(os.path.join(DATA, "tf2_guide"))
    with tf.Session() as sess:
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(kernel), expected["net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        np.testing.assert_array_equal(sess.run(bias), expected["net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        assert sess.run(step) == 50
        saver.restore(sess, prefix)  # the cached object-restore saver is reused
    assert saver._object_restore_saver is not None


def test_object_based_by_paths_and_keys(g):
    expected = _guide_expected()
    kernel = tf.Variable(np.zeros((1, 5), np.float32), name="k")
    bias = tf.Variable(np.zeros(5, np.float32), name="b")
    momentum = tf.Variable(np.zeros((1, 5), np.float32), name="m")
    prefix = os.path.join(DATA, "tf2_guide", "ckpt-5")
    with tf.Session() as sess:
        Saver({"net/l1/kernel": kernel, "net/l1/bias": bias}).restore(sess, prefix)
        Saver({"optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE": momentum}).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(kernel), expected["net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        np.testing.assert_array_equal(sess.run(bias), expected["net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        np.testing.assert_array_equal(sess.run(momentum),
                                      expected["optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"]["value"])


def test_object_based_missing_names(g):
    tf.Variable(np.zeros((1, 5), np.float32), name="net/kernel")
    tf.Variable(1.0, name="not_there")
    with tf.Session() as sess, pytest.raises(errors.NotFoundError) as info:
        Saver().restore(sess, os.path.join(DATA, "tf2_guide", "ckpt-5"))
    message = str(info.value)
    assert "Existing variables not in the checkpoint: not_there" in message
    assert "(1 variable name(s) did match)" in message


def test_object_based_slots_restore_into_tf1_names(g):
    with open(os.path.join(DATA, "v1_adam", "expected.json")) as file:
        expected = json.load(file)["variables"]
    w = tf.Variable(np.zeros(2, np.float32), name="w")
    w_adam = tf.Variable(np.zeros(2, np.float32), name="w/Adam")
    b_adam_1 = tf.Variable(np.zeros((2, 1), np.float32), name="scope/b/Adam_1")
    beta1 = tf.Variable(0.0, name="beta1_power")
    with tf.Session() as sess:
        Saver().restore(sess, os.path.join(DATA, "v1_adam", "ckpt-1"))
        np.testing.assert_array_equal(sess.run(w), expected["model/v/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        np.testing.assert_array_equal(sess.run(w_adam),
                                      expected["model/v/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        np.testing.assert_array_equal(sess.run(b_adam_1),
                                      expected["model/b/.OPTIMIZER_SLOT/opt/v/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
        assert sess.run(beta1) == np.float32(expected["opt/beta1_power/.ATTRIBUTES/VARIABLE_VALUE"]["value"])


def test_scoped_saver_def_names_use_tensorflows_name_scope_rules(g):
    # Saver.from_proto / to_proto go through TF's ops.prepend_name_scope / strip_name_scope (one copy, in
    # graph.core.name_scopes), which keep a control input's '^' and a colocation group's 'loc:@' in front of the scope.
    from graph.core import name_scopes
    from graph.variables import variables
    assert saver_lib.prepend_name_scope is name_scopes.prepend_name_scope is variables._prepend_name_scope
    assert saver_lib.strip_name_scope is name_scopes.strip_name_scope is variables._strip_name_scope
    assert saver_lib.prepend_name_scope("^save/restore_all", "imp/") == "^imp/save/restore_all"
    assert saver_lib.prepend_name_scope("loc:@save/Const", "imp") == "loc:@imp/save/Const"
    assert saver_lib.strip_name_scope("^imp/save/restore_all", "imp/") == "^save/restore_all"
    assert saver_lib.strip_name_scope("loc:@imp//save/Const", "imp") == "loc:@save/Const"
    saver_def = SaverDef(filename_tensor_name="save/Const:0", save_tensor_name="save/control_dependency:0",
                         restore_op_name="save/restore_all", version=SaverDef.V2)
    imported = Saver.from_proto(saver_def, import_scope="imp/")
    assert (imported.as_saver_def().filename_tensor_name, imported.as_saver_def().restore_op_name) == (
        "imp/save/Const:0", "imp/save/restore_all")
    exported = imported.to_proto(export_scope="imp")
    assert (exported.filename_tensor_name, exported.save_tensor_name, exported.restore_op_name) == (
        "save/Const:0", "save/control_dependency:0", "save/restore_all")



def _save_path_errors(framework):
    with framework.Graph().as_default():
        framework.Variable(1.0, name="v")
        saver = framework.train.Saver()
        with framework.Session() as sess:
            sess.run(framework.global_variables_initializer())
            outcomes = []
            for save_path in (None, 5):
                try:
                    saver.save(sess, save_path)
                    outcomes.append("saved")
                except TypeError as error:
                    outcomes.append(f"TypeError: {error}")
    return outcomes, sorted(os.listdir("."))


@pytest.mark.tf
def test_save_path_must_be_a_string_as_in_tensorflow(tf_module, tmp_path, monkeypatch):
    # TF raises before writing anything; a None or number once became files named None.* and 5.*
    results = []
    for name, framework in (("tf", tf_module), ("ours", tf)):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        results.append(_save_path_errors(framework))
    assert results[0] == results[1] == (["TypeError: Expected binary or unicode string, got None",
                                         "TypeError: Expected binary or unicode string, got 5"], [])
