"""TensorFlow's checkpoint_utils suite (load_variable, list_variables, init_from_checkpoint), on both backends.

Port of tensorflow/python/training/checkpoint_utils_test.py (tensorflow/tensorflow at 0304934138cb): the same
test methods and expectations, rewritten against ``harness.tf``.  The original is Copyright 2016 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import os
import pathlib
import time

import numpy as np

from tests.tf_suites.harness import TestCase, private, tf

_ALL = [("useful_scope/var4", [9, 9]), ("var1", [1, 10]), ("var2", [10, 10]), ("var3", [100, 100])]


def _create_checkpoints(sess, checkpoint_dir):
    checkpoint_prefix = os.path.join(checkpoint_dir, "model")
    v1 = tf.get_variable("var1", [1, 10])
    v2 = tf.get_variable("var2", [10, 10])
    v3 = tf.get_variable("var3", [100, 100])
    with tf.variable_scope("useful_scope"):
        v4 = tf.get_variable("var4", [9, 9])
    sess.run(tf.global_variables_initializer())
    values = sess.run([v1, v2, v3, v4])
    tf.train.Saver().save(sess, checkpoint_prefix, global_step=0, latest_filename="checkpoint")
    return values


def _partitioner(min_slice_size):
    return tf.min_max_variable_partitioner(max_partitions=5, axis=0, min_slice_size=min_slice_size)


def _create_partition_checkpoints(sess, checkpoint_dir):
    checkpoint_prefix = os.path.join(checkpoint_dir, "model")
    with tf.variable_scope("scope"):
        v1 = tf.get_variable(name="var1", shape=[100, 100], initializer=tf.truncated_normal_initializer(0.5),
                             partitioner=_partitioner(8 << 10))
    sess.run(tf.global_variables_initializer())
    v1_value = sess.run(v1._get_variable_list())
    tf.train.Saver().save(sess, checkpoint_prefix, global_step=0, latest_filename="checkpoint")
    return v1_value


class CheckpointsTest(TestCase):

    def testNoCheckpoints(self):
        checkpoint_dir = self.get_temp_dir() + "/no_checkpoints"
        with self.assertRaises(tf.errors.OpError):
            self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "var1"), [])

    def testNoTensor(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            _create_checkpoints(session, checkpoint_dir)
        with self.assertRaises(tf.errors.OpError):
            self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "var5"), [])

    def testGetTensor(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1, v2, v3, v4 = _create_checkpoints(session, checkpoint_dir)
        self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "var1"), v1)
        self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "var2"), v2)
        self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "var3"), v3)
        self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "useful_scope/var4"), v4)

    def testGetAllVariables(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            _create_checkpoints(session, checkpoint_dir)
        self.assertEqual(tf.train.list_variables(checkpoint_dir), _ALL)

    def testFSPath(self):
        checkpoint_dir = pathlib.Path(self.get_temp_dir())
        with self.cached_session() as session:
            v1, _, _, _ = _create_checkpoints(session, checkpoint_dir)
        reader = tf.train.load_checkpoint(checkpoint_dir)
        self.assertAllEqual(reader.get_tensor("var1"), v1)
        self.assertAllEqual(tf.train.load_variable(checkpoint_dir, "var1"), v1)
        self.assertEqual(tf.train.list_variables(checkpoint_dir), _ALL)

    def testInitFromCheckpoint(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1, v2, v3, v4 = _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                with tf.variable_scope("some_scope"):
                    my1 = tf.get_variable("my1", [1, 10])
                    with tf.variable_scope("some_other_scope"):
                        my2 = tf.get_variable("my2", [10, 10])
                        with tf.variable_scope("other_useful_scope"):
                            my4 = tf.get_variable("var4", [9, 9])
                my3 = tf.get_variable("my3", [100, 100])
                my3b = tf.get_variable("my3b", [100, 100])
                tf.train.init_from_checkpoint(checkpoint_dir, {
                    "var1": "some_scope/my1",
                    "useful_scope/": "some_scope/some_other_scope/other_useful_scope/"})
                tf.train.init_from_checkpoint(checkpoint_dir, [
                    ("var2", "some_scope/some_other_scope/my2"), ("var3", my3), ("var3", my3b)])
                session.run(tf.global_variables_initializer())
                self.assertAllEqual(my1.eval(session), v1)
                self.assertAllEqual(my2.eval(session), v2)
                self.assertAllEqual(my3.eval(session), v3)
                self.assertAllEqual(my3b.eval(session), v3)
                self.assertAllEqual(my4.eval(session), v4)
                # The values are read from the file, not held as constants in the graph.
                self.assertLess(len(str(session.graph.as_graph_def())), 32000)

    def testInitialValueComesFromCheckpoint(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1, _, _, _ = _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                with tf.variable_scope("some_scope", initializer=tf.zeros_initializer()):
                    my1 = tf.get_variable("my1", [1, 10])
                before = my1.initialized_value()
                tf.train.init_from_checkpoint(checkpoint_dir, {"var1": my1})
                after = my1.initialized_value()
                self.assertAllEqual(session.run(before), [[0.0] * 10])
                self.assertAllEqual(session.run(after), v1)
                session.run(tf.global_variables_initializer())
                self.assertAllEqual(session.run(my1), v1)
                self.assertAllEqual(session.run(my1.initialized_value()), v1)
                self.assertAllClose(session.run(before), v1)
                self.assertAllClose(session.run(after), v1)
                with self.assertRaises(AssertionError):
                    self.assertAllClose(v1, [[0.0] * 10])

    def testInitWithScopeDoesNotCaptureSuffixes(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            _, _, _, v4 = _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with tf.variable_scope("useful_scope"):
                my4 = tf.get_variable("var4", [9, 9])
            with tf.variable_scope("useful_scope_1"):
                my5_init = [[1.0, 2.0], [3.0, 4.0]]
                my5 = tf.get_variable("var5", initializer=my5_init)
            tf.train.init_from_checkpoint(checkpoint_dir, {"useful_scope/": "useful_scope/"})
            with self.session(graph=g) as session:
                session.run(tf.global_variables_initializer())
                self.assertAllEqual(my4.eval(session), v4)
                self.assertAllEqual(my5.eval(session), my5_init)

    def testRestoreRunsOnSameDevice(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default():
            with tf.device("/job:ps"):
                with tf.variable_scope("useful_scope"):
                    tf.get_variable("var4", [9, 9])
            tf.train.init_from_checkpoint(checkpoint_dir, {"useful_scope/": "useful_scope/"})

    def testInitFromRootCheckpoint(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1, v2, v3, v4 = _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                with tf.variable_scope("some_scope"):
                    my1 = tf.get_variable("var1", [1, 10])
                    my2 = tf.get_variable("var2", [10, 10])
                    my3 = tf.get_variable("var3", [100, 100])
                    with tf.variable_scope("useful_scope"):
                        my4 = tf.get_variable("var4", [9, 9])
                tf.train.init_from_checkpoint(checkpoint_dir, {"/": "some_scope/"})
                session.run(tf.global_variables_initializer())
                for variable, value in ((my1, v1), (my2, v2), (my3, v3), (my4, v4)):
                    self.assertAllEqual(variable.eval(session), value)

    def testInitToRootCheckpoint(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1, v2, v3, v4 = _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                my1 = tf.get_variable("var1", [1, 10])
                my2 = tf.get_variable("var2", [10, 10])
                my3 = tf.get_variable("var3", [100, 100])
                with tf.variable_scope("useful_scope"):
                    my4 = tf.get_variable("var4", [9, 9])
                tf.train.init_from_checkpoint(checkpoint_dir, {"/": "/"})
                session.run(tf.global_variables_initializer())
                for variable, value in ((my1, v1), (my2, v2), (my3, v3), (my4, v4)):
                    self.assertAllEqual(variable.eval(session), value)

    def testInitFromPartitionVar(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1 = _create_partition_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                with tf.variable_scope("some_scope"):
                    my1 = tf.get_variable(name="my1", shape=[100, 100], initializer=tf.zeros_initializer(),
                                          partitioner=_partitioner(8 << 10))
                    my1_var_list = my1._get_variable_list()
                with tf.variable_scope("some_other_scope"):  # other partitions than the checkpoint's
                    my2 = tf.get_variable(name="var1", shape=[100, 100], initializer=tf.zeros_initializer(),
                                          partitioner=_partitioner(16 << 10))
                    my2_var_list = my2._get_variable_list()
                tf.train.init_from_checkpoint(checkpoint_dir,
                                              {"scope/var1": "some_scope/my1", "scope/": "some_other_scope/"})
                session.run(tf.global_variables_initializer())
                my1_values = session.run(my1_var_list)
                self.assertAllEqual(my1_values, v1)
                my2_values = session.run(my2_var_list)
                self.assertNotEqual(len(my2_values), len(v1))
                self.assertAllEqual(np.concatenate(my2_values, axis=0), np.concatenate(v1, axis=0))
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                with tf.variable_scope("some_scope"):
                    my1 = tf.get_variable(name="my1", shape=[100, 100],
                                          initializer=tf.truncated_normal_initializer(0.5),
                                          partitioner=_partitioner(8 << 10))
                    my1_var_list = my1._get_variable_list()
                tf.train.init_from_checkpoint(checkpoint_dir, {"scope/var1": my1_var_list})
                session.run(tf.global_variables_initializer())
                my1_values = session.run(my1_var_list)
                self.assertAllEqual(my1_values, v1)

    def testInitFromCheckpointMissing(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g):
                with tf.variable_scope("some_scope"):
                    tf.get_variable("my1", [10, 10])
                    tf.get_variable("my2", [1, 10], dtype=tf.int64, initializer=tf.zeros_initializer())
                with self.assertRaises(tf.errors.OpError):  # no directory
                    tf.train.init_from_checkpoint("no_dir", {"var1": "some_scope/my1"})
                with self.assertRaises(ValueError):  # no such variable in the checkpoint
                    tf.train.init_from_checkpoint(checkpoint_dir, {"no_var": "some_scope/my1"})
                with self.assertRaises(ValueError):  # no such variable in the graph
                    tf.train.init_from_checkpoint(checkpoint_dir, {"var3": "some_scope/no_var"})
                with self.assertRaises(ValueError):  # shapes differ
                    tf.train.init_from_checkpoint(checkpoint_dir, {"var1": "some_scope/my1"})
                with self.assertRaises(ValueError):  # my1 and my2 are not in the checkpoint's scope
                    tf.train.init_from_checkpoint(checkpoint_dir, {"useful_scope/": "some_scope/"})
                with self.assertRaises(ValueError):  # a scope mapped from a variable name
                    tf.train.init_from_checkpoint(checkpoint_dir, {"useful_scope": "some_scope/"})

    def testNoAdditionalReadOpsForResourceVariables(self):
        checkpoint_dir = self.get_temp_dir()
        with self.cached_session() as session:
            v1, _, _, _ = _create_checkpoints(session, checkpoint_dir)
        with tf.Graph().as_default() as g:
            with self.session(graph=g) as session:
                # TF builds resource_variable_ops.ResourceVariable, compat.v1's Variable(use_resource=True)
                my1 = tf.Variable([[0.0] * 10], name="my1", use_resource=True)
                with tf.name_scope("init_from_checkpoint"):
                    tf.train.init_from_checkpoint(checkpoint_dir, {"var1": my1})
                session.run(tf.global_variables_initializer())
                self.assertAllEqual(session.run(my1), v1)
        extra = [op for op in g.get_operations()
                 if op.name.startswith("init_from_checkpoint/")
                 and not op.name.startswith("init_from_checkpoint/checkpoint_initializer")
                 and op.type not in ("AssignVariableOp", "Identity")]
        self.assertEqual(extra, [])


class WaitForNewCheckpointTest(TestCase):

    def testReturnsNoneAfterTimeout(self):
        start = time.time()
        wait_for_new_checkpoint = private("tensorflow.python.training.checkpoint_utils:wait_for_new_checkpoint",
                                          "saver.storage.state:wait_for_new_checkpoint")  # not in compat.v1
        ret = wait_for_new_checkpoint("/non-existent-dir", "foo", timeout=1.0, seconds_to_sleep=0.5)
        end = time.time()
        self.assertIsNone(ret)
        self.assertGreater(end, start + 0.5)  # it waited
        self.assertLess(end, start + 1.1)  # and the timeout ended the wait
