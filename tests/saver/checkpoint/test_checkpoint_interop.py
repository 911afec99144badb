"""tf.train.Checkpoint in graph mode against real TensorFlow: byte-identical files, restores both ways,
statuses with TF's messages, delayed restoration of variables and optimizer slots."""

import os

import numpy as np
import pytest

import graph.compat.v1 as ours

pytestmark = pytest.mark.tf


def _net_class(tf):
    class Net(tf.Module):
        def __init__(self, extra=False, with_dict=True):
            super().__init__()
            with self.name_scope:
                self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
                self.layers = [tf.Variable(1.0, name="a"), tf.Variable(np.float64(2.0), name="b")]
                if with_dict:
                    self.d = {"x": tf.Variable([3, 4], name="x"), "plain": 5}
                self.shape = (2, 3)  # a tuple of numbers is not tracked
                if extra:
                    self.z = tf.Variable(5.0, name="z")
    return Net


def _train_and_save(tf, directory, saves=2):
    """The guide's flow: a net, an Adam optimizer, a global step; train once, then save `saves` times."""
    with tf.Graph().as_default():
        net = _net_class(tf)()
        loss = tf.reduce_sum(net.w) + net.layers[0] * 2.0
        opt = tf.train.AdamOptimizer(0.1)
        step = tf.train.get_or_create_global_step()
        train = opt.minimize(loss, global_step=step)
        ckpt = tf.train.Checkpoint(step=step, optimizer=opt, net=net)
        paths = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            for _ in range(saves):
                paths.append(ckpt.save(os.path.join(directory, "ckpt"), session=sess))
        return paths


def _files(directory):
    return {name: open(os.path.join(directory, name), "rb").read() for name in sorted(os.listdir(directory))}


def test_save_is_byte_identical_to_tensorflow(tf_module, tmp_path):
    our_paths = _train_and_save(ours, str(tmp_path / "ours"))
    tf_paths = _train_and_save(tf_module, str(tmp_path / "tf"))
    assert [os.path.basename(p) for p in our_paths] == [os.path.basename(p) for p in tf_paths] == ["ckpt-1", "ckpt-2"]
    ours_files, tf_files = _files(tmp_path / "ours"), _files(tmp_path / "tf")
    assert sorted(ours_files) == sorted(tf_files)
    for name in tf_files:
        assert ours_files[name] == tf_files[name], name
    keys = [name for name, _ in ours.train.list_variables(our_paths[-1])]
    assert "net/layers/0/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE" in keys and "net/d/x/.ATTRIBUTES/VARIABLE_VALUE" in keys


def _restore_values(tf, path, create_after=False):
    """Restores `path` into a fresh program; returns values and the assert_consumed outcome."""
    with tf.Graph().as_default():
        net = _net_class(tf)(with_dict=not create_after)
        loss = tf.reduce_sum(net.w) + net.layers[0] * 2.0
        opt = tf.train.AdamOptimizer(0.1)
        step = tf.train.get_or_create_global_step()
        if not create_after:
            opt.minimize(loss, global_step=step)
        ckpt = tf.train.Checkpoint(step=step, optimizer=opt, net=net)
        status = ckpt.restore(path)
        if create_after:  # delayed restoration: a tracked variable and the slots appear after restore()
            net.d = {"x": tf.Variable([0, 0], name="x"), "plain": 5}
            opt.minimize(loss, global_step=step)
        with tf.Session() as sess:
            status.run_restore_ops(sess)
            status.assert_consumed()
            m = opt.get_slot(net.w, "m")
            beta1_power, _ = opt._get_beta_accumulators()
            return {"w": sess.run(net.w), "a": sess.run(net.layers[0]), "b": sess.run(net.layers[1]),
                    "x": sess.run(net.d["x"]), "step": sess.run(step), "m": sess.run(m),
                    "beta1_power": sess.run(beta1_power), "save_counter": sess.run(ckpt.save_counter)}


@pytest.mark.parametrize("create_after", [False, True], ids=["existing", "delayed"])
def test_restores_both_ways(tf_module, tmp_path, create_after):
    our_path = _train_and_save(ours, str(tmp_path / "ours"))[-1]
    tf_path = _train_and_save(tf_module, str(tmp_path / "tf"))[-1]
    expected = _restore_values(tf_module, tf_path, create_after)
    for name, value in _restore_values(ours, tf_path, create_after).items():
        np.testing.assert_array_equal(value, expected[name], err_msg=name)
    for name, value in _restore_values(tf_module, our_path, create_after).items():
        np.testing.assert_array_equal(value, expected[name], err_msg=name)
    assert expected["save_counter"] == 2 and expected["step"] == 1


def _messages(tf, path):
    """Each status check's AssertionError text (or "ok") for partial programs."""
    out = {}
    with tf.Graph().as_default():
        net = _net_class(tf)()
        status = tf.train.Checkpoint(net=net).restore(path)
        for check in ("assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match"):
            try:
                getattr(status, check)()
                out["partial." + check] = "ok"
            except AssertionError as error:
                out["partial." + check] = str(error)
        assert status.expect_partial() is status
    with tf.Graph().as_default():
        net = _net_class(tf)(extra=True)
        ckpt = tf.train.Checkpoint(net=net)
        status = ckpt.restore(None)
        for check in ("assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match",
                      "run_restore_ops"):
            with pytest.raises(AssertionError) as caught:
                getattr(status, check)()
            out["none." + check] = str(caught.value)
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            out["none.z"] = float(sess.run(net.z))
        status = ckpt.restore(path)
        with pytest.raises(AssertionError) as caught:
            status.assert_existing_objects_matched()
        out["extra"] = str(caught.value)
        with tf.Session() as sess:
            status.initialize_or_restore(sess)  # z is initialized, the rest restored
            out["extra.values"] = (float(sess.run(net.z)), sess.run(net.w).tolist())
    with tf.Graph().as_default():
        status = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0], name="v")).restore(path)
        with pytest.raises(AssertionError) as caught:
            status.assert_existing_objects_matched()
        out["unrelated"] = str(caught.value)
    return out


def test_status_messages_match_tensorflow(tf_module, tmp_path):
    path = _train_and_save(tf_module, str(tmp_path / "tf"))[-1]
    expected = _messages(tf_module, path)
    assert expected["partial.assert_consumed"].startswith("Unresolved object in checkpoint (root).")
    assert _messages(ours, path) == expected


def _manager_run(tf, directory, **kwargs):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable(np.ones(3, np.float32), name="v")
        increment = tf.assign_add(step, 1)
        ckpt = tf.train.Checkpoint(step=step, v=v)
        manager = tf.train.CheckpointManager(ckpt, directory, **kwargs)
        saved = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(6):
                sess.run(increment)
                path = manager.save()
                saved.append(None if path is None else os.path.basename(path))
        kept = [os.path.basename(p) for p in manager.checkpoints]
        again = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
        return saved, kept, os.path.basename(manager.latest_checkpoint), \
            [os.path.basename(p) for p in again.checkpoints], sorted(os.listdir(directory))


@pytest.mark.parametrize("kwargs", [
    {"max_to_keep": 3},
    {"max_to_keep": None},
    {"max_to_keep": 2, "checkpoint_name": "model", "checkpoint_interval": 2, "step_counter": "step"},
], ids=["keep3", "keep_all", "interval"])
def test_checkpoint_manager_matches_tensorflow(tf_module, tmp_path, kwargs):
    def run(tf, directory):
        if kwargs.get("step_counter") == "step":
            # the step counter must be the program's own variable: rebuild it inside the run
            with tf.Graph().as_default():
                step = tf.train.get_or_create_global_step()
                increment = tf.assign_add(step, 1)
                ckpt = tf.train.Checkpoint(step=step)
                manager = tf.train.CheckpointManager(ckpt, directory, **dict(kwargs, step_counter=step))
                saved = []
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    for _ in range(6):
                        sess.run(increment)
                        path = manager.save()
                        saved.append(None if path is None else os.path.basename(path))
                return saved, [os.path.basename(p) for p in manager.checkpoints], sorted(os.listdir(directory))
        return _manager_run(tf, directory, **kwargs)
    assert run(ours, str(tmp_path / "ours")) == run(tf_module, str(tmp_path / "tf"))


def test_manager_state_file_matches_tensorflow_up_to_timestamps(tf_module, tmp_path):
    from saver.storage import state
    for tf, name in ((ours, "ours"), (tf_module, "tf")):
        _manager_run(tf, str(tmp_path / name), max_to_keep=3)
    ours_state = state.get_checkpoint_state(str(tmp_path / "ours"))
    tf_state = state.get_checkpoint_state(str(tmp_path / "tf"))
    assert [os.path.basename(p) for p in ours_state.all_model_checkpoint_paths] == \
        [os.path.basename(p) for p in tf_state.all_model_checkpoint_paths] == ["ckpt-4", "ckpt-5", "ckpt-6"]
    assert len(ours_state.all_model_checkpoint_timestamps) == 3
    assert ours_state.last_preserved_timestamp < ours_state.all_model_checkpoint_timestamps[0]
    ours_text = open(tmp_path / "ours" / "checkpoint").read()
    assert [line.split(":")[0] for line in ours_text.splitlines()] == \
        [line.split(":")[0] for line in open(tmp_path / "tf" / "checkpoint").read().splitlines()]


def _name_based(tf, directory):
    """A TF1 Saver checkpoint restored through tf.train.Checkpoint (NameBasedSaverStatus)."""
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="net/v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = tf.train.Saver().save(sess, os.path.join(directory, "model"))
    with tf.Graph().as_default():
        net = tf.Module(name="net")
        with net.name_scope:
            net.v = tf.Variable([0.0, 0.0], name="v")
        status = tf.train.Checkpoint(net=net).restore(prefix)
        with tf.Session() as sess:
            try:  # TF 2.21 graph mode gathers save_counter too, which a TF1 checkpoint lacks
                status.run_restore_ops(sess)
                return type(status).__name__, sess.run(net.v).tolist()
            except tf.errors.NotFoundError as caught:
                return type(status).__name__, "Key save_counter not found in checkpoint" in str(caught)


def test_name_based_checkpoint_through_checkpoint_restore(tf_module, tmp_path):
    assert _name_based(ours, str(tmp_path / "ours")) == _name_based(tf_module, str(tmp_path / "tf"))


def test_manager_keep_every_n_hours_with_a_fake_clock_matches_tensorflow_byte_for_byte(tf_module, tmp_path,
                                                                                      monkeypatch):
    """One save per (fake) hour, max_to_keep=2, keep one every 3 hours: same files, same state file."""
    import time

    def run(tf, directory):
        now = [1.7e9]  # TF reads the clock more often than we do: it advances only between saves
        monkeypatch.setattr(time, "time", lambda: now[0])
        with tf.Graph().as_default():
            v = tf.Variable(np.arange(3, dtype=np.int32), name="v")
            ckpt = tf.train.Checkpoint(v=v)
            manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2, keep_checkpoint_every_n_hours=3)
            with tf.Session() as sess:
                sess.run(v.initializer)
                for _ in range(8):
                    now[0] += 3600.0
                    manager.save()
        monkeypatch.undo()
        return sorted(os.listdir(directory)), [os.path.basename(p) for p in manager.checkpoints]
    files, kept = run(ours, str(tmp_path / "ours"))
    assert (files, kept) == run(tf_module, str(tmp_path / "tf"))
    assert [f for f in files if f.endswith(".index")] == ["ckpt-3.index", "ckpt-6.index", "ckpt-7.index",
                                                          "ckpt-8.index"] and kept == ["ckpt-7", "ckpt-8"]
    assert open(tmp_path / "ours" / "checkpoint").read() == open(tmp_path / "tf" / "checkpoint").read()
    assert (tmp_path / "ours" / "ckpt-8.index").read_bytes() == (tmp_path / "tf" / "ckpt-8.index").read_bytes()


def _restore_or_initialize(tf, directory):
    calls = []
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        ckpt = tf.train.Checkpoint(step=step)
        manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=None, init_fn=lambda: calls.append(1))
        first = manager.restore_or_initialize()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(step, 41))
            saved = manager.save(checkpoint_number=step)  # numbered by the global step
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(step=tf.train.get_or_create_global_step())
        again = tf.train.CheckpointManager(ckpt, directory, max_to_keep=None)
        second = again.restore_or_initialize()
    return first, calls, os.path.basename(saved), os.path.basename(second), \
        os.path.basename(tf.train.latest_checkpoint(directory))


def test_manager_restore_or_initialize_and_checkpoint_number_match_tensorflow(tf_module, tmp_path):
    expected = _restore_or_initialize(tf_module, str(tmp_path / "tf"))
    assert expected == (None, [1], "ckpt-41", "ckpt-41", "ckpt-41")
    assert _restore_or_initialize(ours, str(tmp_path / "ours")) == expected
