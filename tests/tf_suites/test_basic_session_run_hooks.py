"""TensorFlow's basic_session_run_hooks suite (first part), on both backends.

Port of tensorflow/python/training/basic_session_run_hooks_test.py (tensorflow/tensorflow at 0228e2ceae02):
SecondOrStepTimerTest, StopAtStepTest and LoggingTensorHookTest with the same steps and expectations,
rewritten against ``harness.tf``.  The original is Copyright 2016 The TensorFlow Authors, licensed under the
Apache License, Version 2.0.  TF's private ``monitored_session._HookedSession`` and its ``tf_logging`` (whose
``info`` the logging tests replace to see what is logged) come from each backend through ``harness.private``;
``contrib``'s ``get_or_create_global_step`` is ``tf.train.get_or_create_global_step``.
"""

import re
import time
from unittest import mock

import pytest

from tests.tf_suites.harness import TestCase, private, tf

MOCK_START_TIME = 1484695987.209386  # a realistic start time for tests that replace time.time


def _hooked_session(sess, hooks):
    return private("tensorflow.python.training.monitored_session:_HookedSession",
                   "saver.loops.monitored_session:_HookedSession")(sess, hooks)


def _logging_module():
    return private("tensorflow.python.platform:tf_logging", "graph.platform:tf_logging")


class SecondOrStepTimerTest(TestCase):

    def test_raise_in_both_secs_and_steps(self):
        with pytest.raises(ValueError):
            tf.train.SecondOrStepTimer(every_secs=2.0, every_steps=10)

    def test_raise_in_none_secs_and_steps(self):
        with pytest.raises(ValueError):
            tf.train.SecondOrStepTimer()

    def test_every_secs(self):
        with mock.patch.object(time, "time") as mock_time:
            mock_time.return_value = MOCK_START_TIME
            timer = tf.train.SecondOrStepTimer(every_secs=1.0)
            assert timer.should_trigger_for_step(1)
            timer.update_last_triggered_step(1)
            assert not timer.should_trigger_for_step(1)
            assert not timer.should_trigger_for_step(2)
            mock_time.return_value += 1.0
            assert not timer.should_trigger_for_step(1)
            assert timer.should_trigger_for_step(2)

    def test_every_steps(self):
        timer = tf.train.SecondOrStepTimer(every_steps=3)
        assert timer.should_trigger_for_step(1)
        timer.update_last_triggered_step(1)
        assert not timer.should_trigger_for_step(1)
        assert not timer.should_trigger_for_step(2)
        assert not timer.should_trigger_for_step(3)
        assert timer.should_trigger_for_step(4)

    def test_update_last_triggered_step(self):
        timer = tf.train.SecondOrStepTimer(every_steps=1)
        assert timer.update_last_triggered_step(1) == (None, None)
        time.sleep(0.001)  # elapsed seconds must be positive on a fast clock too
        elapsed_secs, elapsed_steps = timer.update_last_triggered_step(5)
        assert elapsed_secs > 0 and elapsed_steps == 4
        time.sleep(0.001)
        elapsed_secs, elapsed_steps = timer.update_last_triggered_step(7)
        assert elapsed_secs > 0 and elapsed_steps == 2


class StopAtStepTest(TestCase):

    def test_raise_in_both_last_step_and_num_steps(self):
        with pytest.raises(ValueError):
            tf.train.StopAtStepHook(num_steps=10, last_step=20)

    def _run(self, hook, steps_and_stops, reset_after=None):
        with tf.Graph().as_default():
            global_step = tf.train.get_or_create_global_step()
            no_op = tf.no_op()
            hook.begin()
            with tf.Session() as sess:
                mon_sess = _hooked_session(sess, [hook])
                sess.run(tf.assign(global_step, 5))
                hook.after_create_session(sess, None)
                mon_sess.run(no_op)
                assert not mon_sess.should_stop()
                for step, stops in steps_and_stops:
                    sess.run(tf.assign(global_step, step))
                    if step == reset_after:
                        mon_sess._should_stop = False
                    mon_sess.run(no_op)
                    assert mon_sess.should_stop() == stops, step

    def test_stop_based_on_last_step(self):
        self._run(tf.train.StopAtStepHook(last_step=10), [(9, False), (10, True), (11, True)], reset_after=11)

    def test_stop_based_on_num_step(self):
        self._run(tf.train.StopAtStepHook(num_steps=10), [(13, False), (14, False), (15, True), (16, True)],
                  reset_after=16)

    def test_stop_based_with_multiple_steps(self):
        self._run(tf.train.StopAtStepHook(num_steps=10), [(15, True)])


class LoggingTensorHookTest(TestCase):

    def setUp(self):
        self._logging = _logging_module()
        self._actual_log = self._logging.info
        self.logged_message = None

        def mock_log(*args, **kwargs):
            self.logged_message = args
            self._actual_log(*args, **kwargs)
        self._logging.info = mock_log

    def teardown_method(self, method):
        self._logging.info = self._actual_log
        super().teardown_method(method)

    def _logged(self, text) -> bool:
        return re.search(text, str(self.logged_message)) is not None

    def test_illegal_args(self):
        with pytest.raises(ValueError, match="nvalid every_n_iter"):
            tf.train.LoggingTensorHook(tensors=["t"], every_n_iter=0)
        with pytest.raises(ValueError, match="nvalid every_n_iter"):
            tf.train.LoggingTensorHook(tensors=["t"], every_n_iter=-10)
        with pytest.raises(ValueError, match="xactly one of"):
            tf.train.LoggingTensorHook(tensors=["t"], every_n_iter=5, every_n_secs=5)
        with pytest.raises(ValueError, match="xactly one of"):
            tf.train.LoggingTensorHook(tensors=["t"])

    def test_print_at_end_only(self):
        with tf.Graph().as_default(), tf.Session() as sess:
            t = tf.constant(42.0, name="foo")
            train_op = tf.constant(3)
            hook = tf.train.LoggingTensorHook(tensors=[t.name], at_end=True)
            hook.begin()
            mon_sess = _hooked_session(sess, [hook])
            sess.run(tf.global_variables_initializer())
            self.logged_message = ""
            for _ in range(3):
                mon_sess.run(train_op)
                assert not self._logged(t.name)
            hook.end(sess)
            assert self._logged(t.name)

    def _validate_print_every_n_steps(self, sess, at_end):
        t = tf.constant(42.0, name="foo")
        train_op = tf.constant(3)
        hook = tf.train.LoggingTensorHook(tensors=[t.name], every_n_iter=10, at_end=at_end)
        hook.begin()
        mon_sess = _hooked_session(sess, [hook])
        sess.run(tf.global_variables_initializer())
        mon_sess.run(train_op)
        assert self._logged(t.name)
        for _ in range(3):
            self.logged_message = ""
            for _ in range(9):
                mon_sess.run(train_op)
                assert not self._logged(t.name)
            mon_sess.run(train_op)
            assert self._logged(t.name)
        self.logged_message = ""  # one more run: the count was reset properly
        mon_sess.run(train_op)
        assert not self._logged(t.name)
        self.logged_message = ""
        hook.end(sess)
        assert self._logged(t.name) == at_end

    def test_print_every_n_steps(self):
        with tf.Graph().as_default(), tf.Session() as sess:
            self._validate_print_every_n_steps(sess, at_end=False)
            self._validate_print_every_n_steps(sess, at_end=False)  # a second hook starts afresh

    def test_print_every_n_steps_and_end(self):
        with tf.Graph().as_default(), tf.Session() as sess:
            self._validate_print_every_n_steps(sess, at_end=True)
            self._validate_print_every_n_steps(sess, at_end=True)

    def test_print_first_step(self):
        with tf.Graph().as_default(), tf.Session() as sess:
            t = tf.constant(42.0, name="foo")
            train_op = tf.constant(3)
            hook = tf.train.LoggingTensorHook(tensors={"foo": t}, every_n_iter=1)
            hook.begin()
            mon_sess = _hooked_session(sess, [hook])
            sess.run(tf.global_variables_initializer())
            mon_sess.run(train_op)
            assert self._logged("foo")
            assert not self._logged("sec")  # the first run has no elapsed time

    def _validate_print_every_n_secs(self, sess, at_end, mock_time):
        t = tf.constant(42.0, name="foo")
        train_op = tf.constant(3)
        hook = tf.train.LoggingTensorHook(tensors=[t.name], every_n_secs=1.0, at_end=at_end)
        hook.begin()
        mon_sess = _hooked_session(sess, [hook])
        sess.run(tf.global_variables_initializer())
        mon_sess.run(train_op)
        assert self._logged(t.name)
        self.logged_message = ""
        mon_sess.run(train_op)
        assert not self._logged(t.name)
        mock_time.return_value += 1.0
        self.logged_message = ""
        mon_sess.run(train_op)
        assert self._logged(t.name)
        self.logged_message = ""
        hook.end(sess)
        assert self._logged(t.name) == at_end

    def _print_every_n_secs(self, at_end):
        with mock.patch.object(time, "time") as mock_time, tf.Graph().as_default(), tf.Session() as sess:
            mock_time.return_value = MOCK_START_TIME
            self._validate_print_every_n_secs(sess, at_end=at_end, mock_time=mock_time)
            self._validate_print_every_n_secs(sess, at_end=at_end, mock_time=mock_time)

    def test_print_every_n_secs(self):
        self._print_every_n_secs(at_end=False)

    def test_print_every_n_secs_and_end(self):
        self._print_every_n_secs(at_end=True)

    def test_print_formatter(self):
        with tf.Graph().as_default(), tf.Session() as sess:
            t = tf.constant(42.0, name="foo")
            train_op = tf.constant(3)
            hook = tf.train.LoggingTensorHook(tensors=[t.name], every_n_iter=10,
                                              formatter=lambda items: "qqq=%s" % items[t.name])
            hook.begin()
            mon_sess = _hooked_session(sess, [hook])
            sess.run(tf.global_variables_initializer())
            mon_sess.run(train_op)
            assert self.logged_message[0] == "qqq=42.0"
