"""TensorFlow's foldl / foldr / scan suite: simple and nested structures, initializers, reversal, scoped
variables, gradients, control dependencies, static shapes and empty inputs.

Port of tensorflow/python/kernel_tests/control_flow/functional_ops_test.py (tensorflow/tensorflow at
02145c25ee76), its ``FunctionalOpsTest`` methods about ``foldl``, ``foldr`` and ``scan`` (the file's first part),
with the same inputs, steps and expected values, rewritten against ``harness.tf`` and run with v1 control flow.
The rest of that file tests the function-call ops built from ``function.Defun`` (``If``, ``While``, ``For``,
``remote_call``, ``PartitionedCall``), a TensorFlow-private API, and is not part of this port.  The original
is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, run_deprecated_v1, run_in_graph_and_eager_modes, tf


def simple_scoped_fn(a, x):
    """(a, x) -> 2 (x + a), the 2 a variable made in scope ``body``."""
    with tf.variable_scope("body"):
        two = tf.get_variable("two", [], dtype=tf.int32, initializer=tf.constant_initializer(2))
        return tf.multiply(tf.add(a, x), two)


def _double_sum(a, x):
    return tf.multiply(tf.add(a, x), 2)


class FunctionalOpsTest(TestCase):

    @run_in_graph_and_eager_modes
    def testFoldl_Simple(self):
        elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
        self.assertAllEqual(208, self.evaluate(tf.foldl(_double_sum, elems)))
        self.assertAllEqual(880, self.evaluate(tf.foldl(_double_sum, elems, initializer=10)))

    @run_in_graph_and_eager_modes
    def testFoldl_SingleInputMultiOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array([1, -1.0])
        r_value = self.evaluate(tf.foldl(lambda a, x: a + x, elems, initializer))
        self.assertAllEqual(22, r_value[0])
        self.assertAllEqual(20, r_value[1])

    @run_in_graph_and_eager_modes
    def testFoldl_MultiInputSingleOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array(1.0)
        r = tf.foldl(lambda a, x: a + x[0] + x[1], (elems, -elems), initializer)
        self.assertAllEqual(1, self.evaluate(r))

    @run_in_graph_and_eager_modes
    def testFoldl_MultiInputDifferentDimsSingleOutput(self):
        elems = np.array([[1.0, 1.0, 1.0], [2.0, 3.0, 4.0]])
        other_elems = np.array([-1.0, 1.0])
        initializer = np.array([0.0, 0.0, 0.0])
        r = tf.foldl(lambda a, x: a + x[0] * x[1], (elems, other_elems), initializer)
        self.assertAllEqual([1.0, 2.0, 3.0], self.evaluate(r))

    def _check_scoped(self, fold, first, second, initializer):
        with self.cached_session() as sess:
            with tf.variable_scope("root") as varscope:
                elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
                r = fold(simple_scoped_fn, elems)
                self.assertEqual(len(tf.trainable_variables()), 1)
                self.assertEqual(tf.trainable_variables()[0].name, "root/body/two:0")
                sess.run([tf.global_variables_initializer()])
                self.assertAllEqual(first, self.evaluate(r))

                varscope.reuse_variables()
                r = fold(simple_scoped_fn, elems, initializer=initializer)
                self.assertEqual(len(tf.trainable_variables()), 1)
                self.assertAllEqual(second, self.evaluate(r))

    @run_deprecated_v1
    def testFoldl_Scoped(self):
        self._check_scoped(tf.foldl, 208, 880, 10)

    @run_in_graph_and_eager_modes
    def testFoldr_Simple(self):
        elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
        self.assertAllEqual(450, self.evaluate(tf.foldr(_double_sum, elems)))
        self.assertAllEqual(1282, self.evaluate(tf.foldr(_double_sum, elems, initializer=10)))

    @run_in_graph_and_eager_modes
    def testFoldr_SingleInputMultiOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array([1, -1.0])
        r_value = self.evaluate(tf.foldr(lambda a, x: a + x, elems, initializer))
        self.assertAllEqual(22, r_value[0])
        self.assertAllEqual(20, r_value[1])

    @run_in_graph_and_eager_modes
    def testFoldr_MultiInputSingleOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array(1.0)
        r = tf.foldr(lambda a, x: a + x[0] + x[1], (elems, -elems), initializer)
        self.assertAllEqual(1, self.evaluate(r))

    @run_deprecated_v1
    def testFoldr_Scoped(self):
        self._check_scoped(tf.foldr, 450, 1282, 10)

    @run_deprecated_v1
    def testFold_Grad(self):
        with self.cached_session():
            elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
            v = tf.constant(2.0, name="v")
            r = tf.foldl(lambda a, x: tf.multiply(a, x), elems, initializer=v)
            self.assertAllEqual(720.0, self.evaluate(tf.gradients(r, v)[0]))
            r = tf.foldr(lambda a, x: tf.multiply(a, x), elems, initializer=v)
            self.assertAllEqual(720.0, self.evaluate(tf.gradients(r, v)[0]))

    @run_in_graph_and_eager_modes
    def testScan_Simple(self):
        elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
        v = tf.constant(2.0, name="v")
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems)
        self.assertAllEqual([1., 2., 6., 24., 120., 720.], self.evaluate(r))
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, initializer=v)
        self.assertAllEqual([2., 4., 12., 48., 240., 1440.], self.evaluate(r))

    @run_in_graph_and_eager_modes
    def testScan_Reverse(self):
        elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
        v = tf.constant(2.0, name="v")
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, reverse=True)
        self.assertAllEqual([720., 720., 360., 120., 30., 6.], self.evaluate(r))
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, initializer=v, reverse=True)
        self.assertAllEqual([1440., 1440., 720., 240., 60., 12.], self.evaluate(r))

    @run_in_graph_and_eager_modes
    def testScan_SingleInputMultiOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = (np.array(1.0), np.array(-1.0))
        r_value = self.evaluate(tf.scan(lambda a, x: (a[0] * x, -a[1] * x), elems, initializer))
        self.assertAllEqual([1.0, 2.0, 6.0, 24.0, 120.0, 720.0], r_value[0])
        self.assertAllEqual([1.0, -2.0, 6.0, -24.0, 120.0, -720.0], r_value[1])

    @run_in_graph_and_eager_modes
    def testScan_MultiInputSingleOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array(1.0)
        # a times 1 in every step
        r = tf.scan(lambda a, x: a * (x[0] + x[1]), (elems + 1, -elems), initializer)
        self.assertAllEqual([1.0, 1.0, 1.0, 1.0, 1.0, 1.0], self.evaluate(r))

    @run_in_graph_and_eager_modes
    def testScan_MultiInputSameTypeOutput(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        r_value = self.evaluate(tf.scan(lambda a, x: (a[0] + x[0], a[1] + x[1]), (elems, -elems)))
        self.assertAllEqual(np.cumsum(elems), r_value[0])
        self.assertAllEqual(np.cumsum(-elems), r_value[1])

    @run_in_graph_and_eager_modes
    def testScan_MultiOutputMismatchedInitializer(self):
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array(1.0)
        with self.assertRaisesRegex(ValueError, "two structures don't have the same nested structure"):
            tf.scan(lambda a, x: (a, -a), elems, initializer)

    @run_deprecated_v1
    def testScan_Scoped(self):
        self._check_scoped(tf.scan, np.array([1, 6, 18, 44, 98, 208]), np.array([6, 16, 38, 84, 178, 368]), 2)

    @run_in_graph_and_eager_modes
    def testScanFoldl_Nested(self):
        elems = tf.constant([1.0, 2.0, 3.0, 4.0], name="data")
        inner_elems = tf.constant([0.5, 0.5], name="data")

        def r_inner(a, x):
            return tf.foldl(lambda b, y: b * y * x, inner_elems, initializer=a)

        # step 0 gives 1; step 1 (a=1, x=2) gives 1*0.5*2*0.5*2 = 1; step 2 (x=3) 1.5*1.5; step 3 (x=4) 9
        self.assertAllClose([1., 1., 2.25, 9.], self.evaluate(tf.scan(r_inner, elems)))

    @run_deprecated_v1
    def testScan_Control(self):
        with self.cached_session() as sess:
            s = tf.placeholder(tf.float32, shape=[None])
            b = tf.placeholder(tf.bool)
            with tf.control_dependencies([b]):
                c = tf.scan(lambda a, x: x * a, s)
            self.assertAllClose(np.array([1.0, 3.0, 9.0]), sess.run(c, {s: [1, 3, 3], b: True}))

    @run_deprecated_v1
    def testScan_Grad(self):
        with self.cached_session():
            elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
            v = tf.constant(2.0, name="v")
            r = tf.scan(lambda a, x: tf.multiply(a, x), elems, initializer=v)
            self.assertAllEqual(873.0, self.evaluate(tf.gradients(r, v)[0]))

    @run_deprecated_v1
    def testScanGradientWithPartStopGradient(self):
        a = tf.Variable(0.0, name="a")
        b = tf.Variable(0.0, name="b")
        elems = tf.zeros(5)
        l0, l1 = tf.scan(lambda elem_, input_: (a, b), elems, initializer=(0., 0.))
        loss = l0 + tf.stop_gradient(l1)
        grad = tf.gradients(ys=[loss], xs=[a, b])
        with self.test_session():
            self.evaluate(tf.global_variables_initializer())
            self.evaluate(grad)

    @run_in_graph_and_eager_modes
    def testFoldShape(self):
        x = tf.constant([[1, 2, 3], [4, 5, 6]])
        y = tf.foldl(lambda _, current_input: current_input, x, initializer=tf.constant([0, 0, 0]))
        self.assertAllEqual(y.get_shape(), self.evaluate(y).shape)

    @run_in_graph_and_eager_modes
    def testScanShape(self):
        x = tf.constant([[1, 2, 3], [4, 5, 6]])
        y = tf.scan(lambda _, current_input: current_input, x, initializer=tf.constant([0, 0, 0]))
        self.assertAllEqual(y.get_shape(), self.evaluate(y).shape)

    @run_deprecated_v1
    def testScanEmptyTensor(self):
        with self.cached_session():
            x = tf.scan(lambda x, _: x, tf.range(0), initializer=tf.ones([2, 4]))
            self.assertAllEqual([0, 2, 4], x.get_shape())
            self.assertAllEqual(x.get_shape(), self.evaluate(x).shape)

    @run_deprecated_v1
    def testScanUnknownShape(self):
        x = tf.placeholder(tf.float32)
        initializer = tf.placeholder(tf.float32)
        y = tf.scan(lambda _, current_input: current_input, x, initializer=initializer)
        self.assertIs(None, y.get_shape().dims)

    @run_deprecated_v1
    def testScanVaryingShape(self):
        with self.cached_session() as sess:
            x = tf.placeholder(dtype=tf.float32, shape=[None, 2])
            x_t = tf.transpose(x)
            # over dimension 0 of x (unknown), then of its transpose (2), the latter without shape inference
            result = tf.scan(lambda a, x: a + x, x)
            result_t = tf.scan(lambda a, x: a + x, x_t, infer_shape=False)
            result_grad = tf.gradients(result, [x])[0]
            result_t_grad = tf.gradients(result_t, [x_t])[0]
            sess.run([result, result_t, result_grad, result_t_grad], feed_dict={x: [[1.0, 2.0]]})
