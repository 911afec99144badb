"""TensorFlow's basic_session_run_hooks suite (second part: the hooks that save, count, wait and feed).

Port of tensorflow/python/training/basic_session_run_hooks_test.py (tensorflow/tensorflow at 0228e2ceae02):
CheckpointSaverHookTest, CheckpointSaverHookMultiStepTest, ResourceCheckpointSaverHookTest, StepCounterHookTest,
SummarySaverHookTest, GlobalStepWaiterHookTest, FinalOpsHookTest, ResourceSummarySaverHookTest, FeedFnHookTest
and ProfilerHookTest with the same steps and expectations, rewritten against ``harness.tf``.  The original is
Copyright 2016 The TensorFlow Authors, licensed under the Apache License, Version 2.0.

TF's ``contrib`` test helper ``FakeSummaryWriter`` is gone from TensorFlow 2.21: ``_RecordingWriter`` below
records what a hook writes ({step: {tag: value}}, graphs, meta graphs) the same way on both backends.
``training_util._increment_global_step``, ``_HookedSession`` and ``tf_logging`` come from each backend through
``harness.private``; ``contrib``'s ``checkpoint_utils.load_variable`` is ``tf.train.load_variable``.
"""

import os
import time
from unittest import mock

import pytest

from tests.tf_suites.harness import TestCase, private, skip_ours, tf

MOCK_START_TIME = 1484695987.209386


def _hooked_session(sess, hooks):
    return private("tensorflow.python.training.monitored_session:_HookedSession",
                   "saver.loops.monitored_session:_HookedSession")(sess, hooks)


def _increment_global_step(increment):
    return private("tensorflow.python.training.training_util:_increment_global_step",
                   "saver.loops.basic_hooks:increment_global_step")(increment)


def _logging_module():
    return private("tensorflow.python.platform:tf_logging", "graph.platform:tf_logging")


def _writer_cache():
    return private("tensorflow.python.summary.writer.writer_cache:FileWriterCache",
                   "graph.summary.writer:FileWriterCache")


def _mock_listener():
    """A CheckpointSaverListener of the bound backend counting its calls; ``ask_for_stop`` stops in after_save."""

    class MockCheckpointSaverListener(tf.train.CheckpointSaverListener):

        def __init__(self):
            self.counts = {"begin": 0, "before_save": 0, "after_save": 0, "end": 0}
            self.ask_for_stop = False

        def begin(self):
            self.counts["begin"] += 1

        def before_save(self, session, global_step):
            self.counts["before_save"] += 1

        def after_save(self, session, global_step):
            self.counts["after_save"] += 1
            return True if self.ask_for_stop else None

        def end(self, session, global_step):
            self.counts["end"] += 1

        def get_counts(self):
            return dict(self.counts)

    return MockCheckpointSaverListener()


class _RecordingWriter:
    """Records what hooks write to a summary writer: scalar summaries per step, graphs and meta graphs."""

    def __init__(self, logdir, graph=None):
        self.logdir = logdir
        self.summaries = {}
        self.graphs = []
        self.meta_graphs = []
        self.session_logs = []
        self.run_metadata_tags = []

    def get_logdir(self):
        return self.logdir

    def add_summary(self, summary, global_step=None):
        if isinstance(summary, bytes):
            summary = tf.Summary.FromString(summary)
        self.summaries.setdefault(global_step, []).append(summary)

    def scalars(self):
        """{step: {tag: simple_value}} over every summary written."""
        out = {}
        for step, summaries in self.summaries.items():
            for summary in summaries:
                for value in summary.value:
                    out.setdefault(step, {})[value.tag] = value.simple_value
        return out

    def add_graph(self, graph, global_step=None, graph_def=None):
        self.graphs.append(graph)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        self.meta_graphs.append(meta_graph_def)

    def add_session_log(self, session_log, global_step=None):
        self.session_logs.append((session_log.status, global_step))

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        self.run_metadata_tags.append(tag)

    def flush(self):
        pass

    def close(self):
        pass

    def reopen(self):
        pass


class _CheckpointHookCase(TestCase):
    steps_per_run = 1

    def setUp(self):
        self.model_dir = self.get_temp_dir()
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.scaffold = tf.train.Scaffold()
            self.global_step = tf.train.get_or_create_global_step()
            self.train_op = _increment_global_step(self.steps_per_run)

    def _saved_step(self):
        return tf.train.load_variable(self.model_dir, self.global_step.name)

    def _hooked(self, sess, hook):
        sess.run(self.scaffold.init_op)
        return _hooked_session(sess, [hook])

    def _hook(self, **kwargs):
        hook = tf.train.CheckpointSaverHook(self.model_dir, scaffold=self.scaffold, **kwargs)
        if self.steps_per_run != 1:
            hook._set_steps_per_run(self.steps_per_run)
        hook.begin()
        self.scaffold.finalize()
        return hook

    def _runs_and_saved_steps(self, hook, expected):
        with tf.Session() as sess:
            mon_sess = self._hooked(sess, hook)
            for saved in expected:
                mon_sess.run(self.train_op)
                assert self._saved_step() == saved


class CheckpointSaverHookTest(_CheckpointHookCase):

    def test_saves_when_saver_and_scaffold_both_missing(self):
        with self.graph.as_default():
            hook = tf.train.CheckpointSaverHook(self.model_dir, save_steps=1)
            hook.begin()
            self.scaffold.finalize()
            with tf.Session() as sess:
                self._hooked(sess, hook).run(self.train_op)
                assert self._saved_step() == 1

    def test_raise_when_saver_and_scaffold_both_present(self):
        with pytest.raises(ValueError):
            tf.train.CheckpointSaverHook(self.model_dir, saver=self.scaffold.saver, scaffold=self.scaffold)

    def test_raise_in_both_secs_and_steps(self):
        with pytest.raises(ValueError):
            tf.train.CheckpointSaverHook(self.model_dir, save_secs=10, save_steps=20)

    def test_raise_in_none_secs_and_steps(self):
        with pytest.raises(ValueError):
            tf.train.CheckpointSaverHook(self.model_dir)

    def test_save_secs_saves_in_first_step(self):
        with self.graph.as_default():
            self._runs_and_saved_steps(self._hook(save_secs=2), [1])

    def test_save_secs_calls_listeners_at_begin_and_end(self):
        with self.graph.as_default():
            listener = _mock_listener()
            hook = self._hook(save_secs=2, listeners=[listener])
            with tf.Session() as sess:
                mon_sess = self._hooked(sess, hook)
                mon_sess.run(self.train_op)  # saves
                mon_sess.run(self.train_op)  # does not: the end does
                hook.end(sess)
        assert listener.get_counts() == {"begin": 1, "before_save": 2, "after_save": 2, "end": 1}

    def _monitored_listener_run(self, scaffold, listeners):
        with tf.Graph().as_default():
            if scaffold:
                scaffold = tf.train.Scaffold()
            global_step = tf.train.get_or_create_global_step()
            train_op = _increment_global_step(1)
            kwargs = {"scaffold": scaffold} if scaffold else {}
            hook = tf.train.CheckpointSaverHook(self.model_dir, save_steps=1, listeners=listeners, **kwargs)
            with tf.train.SingularMonitoredSession(hooks=[hook], checkpoint_dir=self.model_dir, **kwargs) as sess:
                sess.run(train_op)
                sess.run(train_op)
                global_step_val = sess.raw_session().run(global_step)
        assert global_step_val == 2
        for listener in listeners:
            assert listener.get_counts() == {"begin": 1, "before_save": 3, "after_save": 3, "end": 1}

    def _restored_global_step(self):
        with tf.Graph().as_default():
            global_step = tf.train.get_or_create_global_step()
            with tf.train.SingularMonitoredSession(checkpoint_dir=self.model_dir) as sess2:
                return sess2.run(global_step)

    def test_listener_with_monitored_session(self):
        self._monitored_listener_run(True, [_mock_listener()])

    def test_listener_stops_training_in_after_save(self):
        with tf.Graph().as_default():
            scaffold = tf.train.Scaffold()
            tf.train.get_or_create_global_step()
            train_op = _increment_global_step(1)
            listener = _mock_listener()
            hook = tf.train.CheckpointSaverHook(self.model_dir, save_steps=1, scaffold=scaffold, listeners=[listener])
            with tf.train.SingularMonitoredSession(hooks=[hook], scaffold=scaffold,
                                                   checkpoint_dir=self.model_dir) as sess:
                sess.run(train_op)
                assert not sess.should_stop()
                sess.run(train_op)
                assert not sess.should_stop()
                listener.ask_for_stop = True
                sess.run(train_op)
                assert sess.should_stop()

    def test_listener_with_default_saver(self):
        self._monitored_listener_run(False, [_mock_listener()])
        assert self._restored_global_step() == 2

    def test_two_listeners_with_default_saver(self):
        self._monitored_listener_run(False, [_mock_listener(), _mock_listener()])
        assert self._restored_global_step() == 2

    def test_save_secs_saves_periodically(self):
        with mock.patch.object(time, "time") as mock_time, self.graph.as_default():
            mock_time.return_value = MOCK_START_TIME
            hook = self._hook(save_secs=2)
            with tf.Session() as sess:
                mon_sess = self._hooked(sess, hook)
                for offset, saved in ((0, None), (0.5, 1), (2.5, None), (2.6, None), (2.7, 3), (10, 6)):
                    mock_time.return_value = MOCK_START_TIME + offset
                    mon_sess.run(self.train_op)
                    if saved is not None:
                        assert self._saved_step() == saved

    def test_save_secs_calls_listeners_periodically(self):
        with mock.patch.object(time, "time") as mock_time, self.graph.as_default():
            mock_time.return_value = MOCK_START_TIME
            listener = _mock_listener()
            hook = self._hook(save_secs=2, listeners=[listener])
            with tf.Session() as sess:
                mon_sess = self._hooked(sess, hook)
                for offset in (0.5, 0.5, 3.0, 3.5, 4.0, 6.5, 7.0):  # saves at 0.5, 3.0 and 6.5
                    mock_time.return_value = MOCK_START_TIME + offset
                    mon_sess.run(self.train_op)
                mock_time.return_value = MOCK_START_TIME + 7.5
                hook.end(sess)  # and at the end
        assert listener.get_counts() == {"begin": 1, "before_save": 4, "after_save": 4, "end": 1}

    def test_save_steps_saves_in_first_step(self):
        with self.graph.as_default():
            self._runs_and_saved_steps(self._hook(save_steps=2), [1])

    def test_save_steps_saves_periodically(self):
        with self.graph.as_default():
            self._runs_and_saved_steps(self._hook(save_steps=2), [1, 1, 3, 3, 5])

    def test_save_saves_at_end(self):
        with self.graph.as_default():
            hook = self._hook(save_secs=2)
            with tf.Session() as sess:
                mon_sess = self._hooked(sess, hook)
                mon_sess.run(self.train_op)
                mon_sess.run(self.train_op)
                hook.end(sess)
                assert self._saved_step() == 2

    def test_summary_writer_defs(self):
        writer = _RecordingWriter(self.model_dir)
        with mock.patch.object(_writer_cache(), "get", lambda logdir: writer), self.graph.as_default():
            hook = self._hook(save_steps=2)
            with tf.Session() as sess:
                mon_sess = self._hooked(sess, hook)
                hook.after_create_session(sess, None)
                mon_sess.run(self.train_op)
            expected = tf.train.export_meta_graph(graph_def=self.graph.as_graph_def(add_shapes=True),
                                                  saver_def=self.scaffold.saver.saver_def)
        assert writer.get_logdir() == self.model_dir
        assert len(writer.meta_graphs) == 1
        assert writer.meta_graphs[0].graph_def == expected.graph_def
        assert writer.meta_graphs[0].saver_def == expected.saver_def

    def test_save_checkpoint_before_first_train_step(self):
        with self.graph.as_default():
            hook = self._hook(save_steps=2)
            with tf.Session() as sess:
                mon_sess = _hooked_session(sess, [hook])
                sess.run(self.scaffold.init_op)
                hook.after_create_session(sess, None)
                assert self._saved_step() == 0  # saved at step 0
                mon_sess.run(self.train_op)
                assert self._saved_step() == 0  # not after one step
                mon_sess.run(self.train_op)
                assert self._saved_step() == 2  # after save_steps


class CheckpointSaverHookMultiStepTest(_CheckpointHookCase):
    steps_per_run = 5

    def test_save_steps_saves_in_first_step(self):
        with self.graph.as_default():
            self._runs_and_saved_steps(self._hook(save_steps=2 * self.steps_per_run), [5])

    def test_save_steps_saves_periodically(self):
        with self.graph.as_default():
            self._runs_and_saved_steps(self._hook(save_steps=2 * self.steps_per_run), [5, 5, 15, 15, 25])

    def test_save_steps_saves_at_end(self):
        with self.graph.as_default():
            hook = self._hook(save_steps=2 * self.steps_per_run)
            with tf.Session() as sess:
                mon_sess = self._hooked(sess, hook)
                mon_sess.run(self.train_op)
                mon_sess.run(self.train_op)
                hook.end(sess)
                assert self._saved_step() == 10


class ResourceCheckpointSaverHookTest(_CheckpointHookCase):

    def setUp(self):
        self.model_dir = self.get_temp_dir()
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.scaffold = tf.train.Scaffold()
            with tf.variable_scope("foo", use_resource=True):
                self.global_step = tf.train.get_or_create_global_step()
            self.train_op = _increment_global_step(1)

    def test_save_steps_saves_periodically(self):
        with self.graph.as_default():
            self._runs_and_saved_steps(self._hook(save_steps=2), [1, 1, 3, 3, 5])
