"""Assign, AssignAdd and AssignSub on variables, from one thread and from many: a TF1-era kernel test whose only
TensorFlow import is the line below.

Ported from tensorflow/python/kernel_tests/dense_update_ops_test.py as it stood in 2015-16 (the file that
imports ``tensorflow as tf`` and uses ``tf.test.TestCase``, ``test_session`` and ``checkedThread``; stored copy in
the search index, e.g. the pre-merge side of devsangwoo/tensor @ 066592c9f9cd), Apache-2.0, rewritten as
tests/tf_suites/README.md describes: TF's class and method names, inputs, steps, expected values.  ``tf.mul``
(renamed in TF 1.0) is spelled ``tf.multiply``.  ``test_ported_files.py`` runs this file under both frameworks by
changing only its import line.
"""

import numpy as np

import graph.compat.v1 as tf


class AssignOpTest(tf.test.TestCase):

    def _initAssignFetch(self, x, y, use_gpu=False):
        """Initializes a variable to x, assigns y, returns (the variable's value, the assign's value)."""
        super(AssignOpTest, self).setUp()  # as the original: a fresh graph (and cached session) per call
        with self.test_session(use_gpu=use_gpu):
            p = tf.Variable(x)
            assign = tf.assign(p, y)
            p.initializer.run()
            new_value = assign.eval()
            return p.eval(), new_value

    def _initAssignAddFetch(self, x, y, use_gpu=False):
        """Initializes a variable to x, adds y to it."""
        with self.test_session(use_gpu=use_gpu):
            p = tf.Variable(x)
            add = tf.assign_add(p, y)
            p.initializer.run()
            new_value = add.eval()
            return p.eval(), new_value

    def _initAssignSubFetch(self, x, y, use_gpu=False):
        """Initializes a variable to x, subtracts y from it."""
        with self.test_session(use_gpu=use_gpu):
            p = tf.Variable(x)
            sub = tf.assign_sub(p, y)
            p.initializer.run()
            new_value = sub.eval()
            return p.eval(), new_value

    def _testTypes(self, vals):
        for dtype in [np.float32, np.float64, np.int32, np.int64]:
            x = np.zeros(vals.shape).astype(dtype)
            y = vals.astype(dtype)
            gpu_runs = [False] + ([True] if tf.test.is_built_with_cuda() and dtype in [np.float32, np.float64]
                                  else [])
            for use_gpu in gpu_runs:
                var_value, op_value = self._initAssignFetch(x, y, use_gpu=use_gpu)
                self.assertAllEqual(y, var_value)
                self.assertAllEqual(y, op_value)
                var_value, op_value = self._initAssignAddFetch(x, y, use_gpu=use_gpu)
                self.assertAllEqual(x + y, var_value)
                self.assertAllEqual(x + y, op_value)
                var_value, op_value = self._initAssignSubFetch(x, y, use_gpu=False)
                self.assertAllEqual(x - y, var_value)
                self.assertAllEqual(x - y, op_value)

    def testBasic(self):
        self._testTypes(np.arange(0, 20).reshape([4, 5]))

    def testAssignNonStrictShapeChecking(self):
        with self.test_session():
            data = tf.fill([1024, 1024], 0)
            p = tf.Variable([1])
            a = tf.assign(p, data, validate_shape=False)
            a.op.run()
            self.assertAllEqual(p.eval(), data.eval())
            # A second assign changes the shape again.
            data2 = tf.fill([10, 10], 1)
            a2 = tf.assign(p, data2, validate_shape=False)
            a2.op.run()
            self.assertAllEqual(p.eval(), data2.eval())

    def testInitRequiredAssignAdd(self):
        with self.test_session():
            p = tf.Variable(tf.fill([1024, 1024], 1), tf.int32)
            a = tf.assign_add(p, tf.fill([1024, 1024], 0))
            with self.assertRaisesOpError("use uninitialized"):
                a.op.run()

    def testInitRequiredAssignSub(self):
        with self.test_session():
            p = tf.Variable(tf.fill([1024, 1024], 1), tf.int32)
            a = tf.assign_sub(p, tf.fill([1024, 1024], 0))
            with self.assertRaisesOpError("use uninitialized"):
                a.op.run()

    def _runInThreads(self, sess, ops):
        threads = [self.checkedThread(target=sess.run, args=(op,)) for op in ops]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def testParallelUpdateWithLocking(self):
        with self.test_session() as sess:
            zeros_t = tf.fill([1024, 1024], 0.0)
            ones_t = tf.fill([1024, 1024], 1.0)
            p = tf.Variable(zeros_t)
            adds = [tf.assign_add(p, ones_t, use_locking=True) for _ in range(20)]
            p.initializer.run()
            self._runInThreads(sess, adds)
            vals = p.eval()
            ones = np.ones((1024, 1024)).astype(np.float32)
            self.assertAllEqual(vals, ones * 20)

    def testParallelAssignWithLocking(self):
        with self.test_session() as sess:
            zeros_t = tf.fill([1024, 1024], 0.0)
            ones_t = tf.fill([1024, 1024], 1.0)
            p = tf.Variable(zeros_t)
            assigns = [tf.assign(p, tf.multiply(ones_t, float(i)), use_locking=True) for i in range(1, 21)]
            p.initializer.run()
            self._runInThreads(sess, assigns)
            vals = p.eval()
            # Every element holds one and the same assigned value.
            self.assertTrue(vals[0, 0] > 0)
            self.assertTrue(vals[0, 0] <= 20)
            self.assertAllEqual(vals, np.ones([1024, 1024]) * vals[0, 0])


if __name__ == "__main__":
    tf.test.main()
