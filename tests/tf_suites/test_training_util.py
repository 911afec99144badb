"""TensorFlow's training_util (global step) suite, on both backends.

Port of tensorflow/python/training/training_util_test.py (tensorflow/tensorflow at 206ebf0a5f4a): the same
test methods and expectations, rewritten against ``harness.tf``.  TensorFlow's private
``_get_or_create_global_step_read`` / ``_increment_global_step`` are reached through ``harness.private``
(ours: ``saver.loops.basic_hooks``).  The original is Copyright 2015 The TensorFlow Authors, licensed under
the Apache License, Version 2.0.
"""

from tests.tf_suites.harness import TestCase, private, tf


def _global_step_read(graph=None):
    return private("tensorflow.python.training.training_util:_get_or_create_global_step_read",
                   "saver.loops.basic_hooks:global_step_read_tensor")(graph)


def _increment_global_step(increment, graph=None):
    return private("tensorflow.python.training.training_util:_increment_global_step",
                   "saver.loops.basic_hooks:increment_global_step")(increment, graph)


class GlobalStepTest(TestCase):

    def _assert_global_step(self, global_step, expected_dtype=None):
        expected_dtype = expected_dtype or tf.int64
        self.assertEqual("%s:0" % tf.GraphKeys.GLOBAL_STEP, global_step.name)
        self.assertEqual(expected_dtype, global_step.dtype.base_dtype)
        self.assertEqual([], global_step.get_shape().as_list())

    def test_invalid_dtype(self):
        with tf.Graph().as_default() as g:
            self.assertIsNone(tf.train.get_global_step())
            tf.Variable(0.0, trainable=False, dtype=tf.float32, name=tf.GraphKeys.GLOBAL_STEP)
            self.assertRaisesRegex(TypeError, "does not have integer type", tf.train.get_global_step)
        self.assertRaisesRegex(TypeError, "does not have integer type", tf.train.get_global_step, g)

    def test_invalid_shape(self):
        with tf.Graph().as_default() as g:
            self.assertIsNone(tf.train.get_global_step())
            tf.Variable(  # TF spells it variables.VariableV1, compat.v1's Variable
                [0], trainable=False, dtype=tf.int32, name=tf.GraphKeys.GLOBAL_STEP)
            self.assertRaisesRegex(TypeError, "not scalar", tf.train.get_global_step)
        self.assertRaisesRegex(TypeError, "not scalar", tf.train.get_global_step, g)

    def test_create_global_step(self):
        self.assertIsNone(tf.train.get_global_step())
        with tf.Graph().as_default() as g:
            global_step = tf.train.create_global_step()
            self._assert_global_step(global_step)
            self.assertRaisesRegex(ValueError, "already exists", tf.train.create_global_step)
            self.assertRaisesRegex(ValueError, "already exists", tf.train.create_global_step, g)
            self._assert_global_step(tf.train.create_global_step(tf.Graph()))

    def test_get_global_step(self):
        with tf.Graph().as_default() as g:
            self.assertIsNone(tf.train.get_global_step())
            tf.Variable(  # TF spells it variables.VariableV1, compat.v1's Variable
                0, trainable=False, dtype=tf.int32, name=tf.GraphKeys.GLOBAL_STEP)
            self._assert_global_step(tf.train.get_global_step(), expected_dtype=tf.int32)
        self._assert_global_step(tf.train.get_global_step(g), expected_dtype=tf.int32)

    def test_get_or_create_global_step(self):
        with tf.Graph().as_default() as g:
            self.assertIsNone(tf.train.get_global_step())
            self._assert_global_step(tf.train.get_or_create_global_step())
            self._assert_global_step(tf.train.get_or_create_global_step(g))


class GlobalStepReadTest(TestCase):

    def test_global_step_read_is_none_if_there_is_no_global_step(self):
        with tf.Graph().as_default():
            self.assertIsNone(_global_step_read())
            tf.train.create_global_step()
            self.assertIsNotNone(_global_step_read())

    def test_reads_from_cache(self):
        with tf.Graph().as_default():
            tf.train.create_global_step()
            first = _global_step_read()
            second = _global_step_read()
            self.assertEqual(first, second)

    def test_reads_before_increments(self):
        with tf.Graph().as_default():
            tf.train.create_global_step()
            read_tensor = _global_step_read()
            inc_op = _increment_global_step(1)
            inc_three_op = _increment_global_step(3)
            with tf.train.MonitoredTrainingSession() as sess:
                read_value, _ = sess.run([read_tensor, inc_op])
                self.assertEqual(0, read_value)
                read_value, _ = sess.run([read_tensor, inc_three_op])
                self.assertEqual(1, read_value)
                read_value = sess.run(read_tensor)
                self.assertEqual(4, read_value)
