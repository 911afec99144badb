"""MonitoredTrainingSession and its hooks (saver/loops): the same training loops as TensorFlow, the same files."""

import os
import time
import types

import numpy as np
import pytest

import graph.compat.v1 as ours
from saver.loops import basic_hooks, monitored_session, saving_hooks, session_manager, session_run_hook


def _checkpoint_files(directory):
    return sorted(f for f in os.listdir(directory) if f.startswith("model.ckpt") or f == "checkpoint")


def _train(tf, directory, last_step, extra_hooks=(), **kwargs):
    """Trains w towards 3 until ``last_step``; returns (steps seen, w, final ops values, state file text)."""
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0, name="w")
        loss = tf.square(w - 3.0)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        final = tf.train.FinalOpsHook([w, step])
        hooks = [tf.train.StopAtStepHook(last_step=last_step), tf.train.NanTensorHook(loss), final]
        hooks += [make(tf, loss) for make in extra_hooks]
        steps = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=directory, hooks=hooks, save_summaries_steps=None,
                                               log_step_count_steps=None, **kwargs) as sess:
            while not sess.should_stop():
                _, value = sess.run([train, step])
                steps.append(int(value))
        with open(os.path.join(directory, "checkpoint")) as f:
            state = f.read().replace(directory, "<dir>")
        return steps, final.final_ops_values, state


@pytest.mark.tf
def test_training_saves_and_resumes_like_tensorflow(tf1, tmp_path):
    runs = {}
    for name, tf in (("tf", tf1), ("ours", ours)):
        directory = str(tmp_path / name)
        first = _train(tf, directory, 7, save_checkpoint_steps=3)
        files_after_first = _checkpoint_files(directory)
        second = _train(tf, directory, 12, save_checkpoint_steps=3)  # a restart resumes from model.ckpt-7
        runs[name] = (first, files_after_first, second, _checkpoint_files(directory))
    (tf_first, tf_files, tf_second, tf_files_2), (first, files, second, files_2) = runs["tf"], runs["ours"]
    assert first[0] == tf_first[0] == list(range(1, 8)) and second[0] == tf_second[0] == list(range(8, 13))
    np.testing.assert_allclose(first[1][0], tf_first[1][0], rtol=1e-6)
    np.testing.assert_allclose(second[1][0], tf_second[1][0], rtol=1e-6)
    assert first[2] == tf_first[2] and second[2] == tf_second[2]  # the state files, byte for byte
    assert files == tf_files
    # After the restart both delete model.ckpt-0, which the first run wrote (recover_last_checkpoints).
    assert "model.ckpt-0.index" in files and "model.ckpt-0.index" not in files_2
    assert files_2 == tf_files_2


def test_every_second_checkpoints_and_session_creation_checkpoint(tmp_path):
    directory = str(tmp_path)
    steps, values, state = _train(ours, directory, 4, save_checkpoint_secs=3600)
    assert steps == [1, 2, 3, 4] and values[1] == 4
    # saved at creation (step 0) and at the end (step 4); the hour never passed
    assert _checkpoint_files(directory) == ["checkpoint", "model.ckpt-0.data-00000-of-00001", "model.ckpt-0.index",
                                            "model.ckpt-0.meta", "model.ckpt-4.data-00000-of-00001",
                                            "model.ckpt-4.index", "model.ckpt-4.meta"]
    assert os.path.exists(os.path.join(directory, "graph.pbtxt"))
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(directory))


def test_nan_loss_fails_or_stops():
    with ours.Graph().as_default():
        step = ours.train.get_or_create_global_step()
        loss = ours.constant(float("nan"))
        train = ours.assign_add(step, 1)
        with pytest.raises(basic_hooks.NanLossDuringTrainingError, match="NaN loss during training"):
            with ours.train.MonitoredSession(hooks=[ours.train.NanTensorHook(loss)]) as sess:
                sess.run(train)
        with ours.train.MonitoredSession(hooks=[ours.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
            sess.run(train)
            assert sess.should_stop()


def test_input_running_out_ends_the_loop_cleanly_and_saves_the_last_step(tmp_path):
    with ours.Graph().as_default():
        step = ours.train.get_or_create_global_step()
        (value,) = ours.train.slice_input_producer([ours.range(10)], num_epochs=1, shuffle=False)
        batch = ours.train.batch([value], 3, allow_smaller_final_batch=True)
        total = ours.Variable(0, name="total")
        train = ours.group(ours.assign_add(total, ours.reduce_sum(batch)), ours.assign_add(step, 1))
        final = ours.train.FinalOpsHook(total)
        with ours.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=[final],
                                                 save_checkpoint_steps=100) as sess:
            while not sess.should_stop():
                sess.run(train)
        assert final.final_ops_values == 45
        assert ours.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-4")


class _Recorder(session_run_hook.SessionRunHook):
    def __init__(self, calls, fetch):
        self.calls, self.fetch = calls, fetch

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return session_run_hook.SessionRunArgs(self.fetch)

    def after_run(self, run_context, run_values):
        self.calls.append(("after_run", int(run_values.results)))
        if self.calls.count("before_run") == 2:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")


def test_hook_call_order_fetches_and_feeds():
    with ours.Graph().as_default():
        step = ours.train.get_or_create_global_step()
        x = ours.placeholder(ours.int64, [])
        train = ours.assign_add(step, x)
        calls = []
        with ours.train.SingularMonitoredSession(hooks=[_Recorder(calls, ours.constant(5)),
                                                        ours.train.FeedFnHook(lambda: {x: 1})]) as sess:
            while not sess.should_stop():
                sess.run(train)
            assert sess.raw_session().run(step) == 2
        assert calls == ["begin", "after_create_session", "before_run", ("after_run", 5), "before_run",
                         ("after_run", 5), "end"]
        assert not ours.get_default_graph().finalized  # unfinalized again after the session
    with ours.Graph().as_default():
        with pytest.raises(RuntimeError, match="Global step should be created to use StopAtStepHook"):
            ours.train.MonitoredSession(hooks=[ours.train.StopAtStepHook(1)])


def test_argument_errors_are_tensorflows():
    with pytest.raises(ValueError, match="One of num_steps or last_step must be specified"):
        ours.train.StopAtStepHook()
    with pytest.raises(ValueError, match="Can not provide both every_secs and every_steps"):
        basic_hooks.SecondOrStepTimer(every_secs=1, every_steps=1)
    with pytest.raises(ValueError, match="exactly one of every_n_steps and every_n_secs"):
        ours.train.StepCounterHook(every_n_steps=None)
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op must be provided"):
        ours.train.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="either at_end and/or exactly one of every_n_iter and every_n_secs"):
        ours.train.LoggingTensorHook(["a"])
    with pytest.raises(ValueError, match="You cannot provide both saver and scaffold"):
        saving_hooks.CheckpointSaverHook("d", save_steps=1, saver=object(), scaffold=session_manager.Scaffold())
    assert monitored_session.MonitoredSession is ours.train.MonitoredSession
    assert types.FunctionType is type(ours.train.MonitoredTrainingSession)


def _state_stamp(directory):
    path = os.path.join(directory, "checkpoint")
    return os.stat(path).st_mtime_ns if os.path.exists(path) else None


@pytest.mark.tf
def test_supervisor_restores_and_saves_like_tensorflow(tf1, tmp_path):
    def program(tf, directory):
        with tf.Graph().as_default():
            step = tf.train.get_or_create_global_step()
            w = tf.Variable(1.0, name="w")
            train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
            sv = tf.train.Supervisor(logdir=directory, save_model_secs=3600, save_summaries_secs=0)
            values = []
            for _ in range(2):  # the second managed session restores what the first one saved at its start
                state_before = _state_stamp(directory)
                with sv.managed_session() as sess:
                    # the checkpoint thread saves as the session starts; train after it did, as the
                    # timing of both libraries' threads otherwise decides which step it saves
                    deadline = time.time() + 30
                    while _state_stamp(directory) == state_before and time.time() < deadline:
                        time.sleep(0.01)
                    for _ in range(3):
                        sess.run(train)
                    values.append(sess.run([w, step]))
                    sv.saver.save(sess, sv.save_path, global_step=step)
            return values, sorted(f for f in os.listdir(directory) if f.startswith("model.ckpt"))
    expected = program(tf1, str(tmp_path / "tf"))
    actual = program(ours, str(tmp_path / "ours"))
    assert str(actual[0]) == str(expected[0]) and actual[1] == expected[1]
