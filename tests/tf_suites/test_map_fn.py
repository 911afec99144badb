"""TensorFlow's map_fn suite: structures in and out, dtypes, static shapes, scoped variables, gradients, errors.

Port of tensorflow/python/kernel_tests/control_flow/map_fn_test.py (tensorflow/tensorflow at 0304934138cb):
the same test methods, inputs and expected values, rewritten against ``harness.tf`` and run with v1 control
flow (the original's class also runs under control flow v2).  The original is Copyright 2015 The TensorFlow
Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, excluded, run_deprecated_v1, run_in_graph_and_eager_modes, \
    run_v1_only, skip_ours, tf


class MapFnTest(TestCase):

    @run_in_graph_and_eager_modes
    def testMap_Simple(self):
        nums = [1, 2, 3, 4, 5, 6]
        elems = tf.constant(nums, name="data")
        r = tf.map_fn(lambda x: tf.multiply(tf.add(x, 3), 2), elems)
        self.assertAllEqual(np.array([(x + 3) * 2 for x in nums]), self.evaluate(r))

    testMapDtypeEager = excluded("eager: runs under context.eager_mode() only",
                                 "map_fn with dtype=string gives a string tensor eagerly")

    @skip_ours("not yet emulated: map_fn over a SparseTensor (batched as serialized variants)")
    def testMapSparseTensor(self):
        with self.cached_session():
            st = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0]], values=tf.constant([0, 1, 2]),
                                 dense_shape=[2, 2])
            result = tf.map_fn(lambda x: x, st)
            self.assertAllEqual(result.indices, st.indices)
            self.assertAllEqual(result.values, st.values)
            self.assertAllEqual(result.dense_shape, st.dense_shape)

    @skip_ours("not yet emulated: RaggedTensor")
    def testMapRaggedTensor(self):
        with self.cached_session():
            rt = tf.ragged.constant([[1, 2], [3]])
            result = tf.map_fn(lambda x: x + 1, rt,
                               fn_output_signature=tf.RaggedTensorSpec([None], rt.dtype))
            # the harness evaluates dense values only: the ragged result is compared as its nested list
            self.assertEqual([[2, 3], [4]], self.evaluate(result).to_list())
            self.assertEqual([2, None], result.shape.as_list())

    @run_in_graph_and_eager_modes
    def testMapVariable(self):
        v = tf.Variable([1, 2], use_resource=True)
        self.evaluate(v.initializer)
        result = tf.map_fn(lambda x: x + 1, v)
        self.assertAllEqual(result, [2, 3])

    @run_in_graph_and_eager_modes
    def testMapOverScalarErrors(self):
        with self.assertRaisesRegex(ValueError, "must be .* Tensor.* not scalar"):
            tf.map_fn(lambda x: x, [1, 2])
        with self.assertRaisesRegex(ValueError, "must be .* Tensor.* not scalar"):
            tf.map_fn(lambda x: x, 1)

    @run_deprecated_v1
    def testMap_Scoped(self):
        with self.cached_session() as sess:

            def double_scoped(x):
                with tf.variable_scope("body"):
                    two = tf.get_variable("two", [], dtype=tf.int32, initializer=tf.constant_initializer(2))
                    return tf.multiply(x, two)

            with tf.variable_scope("root") as varscope:
                elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
                doubles = np.array([2 * x for x in [1, 2, 3, 4, 5, 6]])
                r = tf.map_fn(double_scoped, elems)
                self.assertEqual(len(tf.trainable_variables()), 1)
                self.assertEqual(tf.trainable_variables()[0].name, "root/body/two:0")
                sess.run([tf.global_variables_initializer()])
                self.assertAllEqual(doubles, self.evaluate(r))

                varscope.reuse_variables()
                r = tf.map_fn(double_scoped, elems)
                self.assertEqual(len(tf.trainable_variables()), 1)
                self.assertAllEqual(doubles, self.evaluate(r))

    @run_deprecated_v1
    def testMap_Grad(self):
        with self.cached_session():
            param = tf.constant(2.0)
            elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="elems")
            y = tf.map_fn(lambda x: tf.multiply(tf.square(x), param), elems)
            r_param = tf.gradients(y, param)[0]
            r_elems = tf.gradients(y, elems)[0]
            self.assertAllEqual(91.0, self.evaluate(r_param))
            self.assertAllEqual([4.0, 8.0, 12.0, 16.0, 20.0, 24.0], self.evaluate(r_elems))

    @run_in_graph_and_eager_modes
    def testMap_SimpleNotTensor(self):
        nums = np.array([1, 2, 3, 4, 5, 6])
        r = tf.map_fn(lambda x: tf.multiply(tf.add(x, 3), 2), nums)
        self.assertAllEqual(np.array([(x + 3) * 2 for x in nums]), self.evaluate(r))

    @run_in_graph_and_eager_modes
    def testMap_SingleInputMultiOutput(self):
        nums = np.array([1, 2, 3, 4, 5, 6])
        r = tf.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), nums, dtype=(tf.int64, tf.int64))
        self.assertEqual(2, len(r))
        self.assertEqual((6,), r[0].get_shape())
        self.assertEqual((6,), r[1].get_shape())
        received = self.evaluate(r)
        self.assertAllEqual((nums + 3) * 2, received[0])
        self.assertAllEqual(-(nums + 3) * 2, received[1])

    @run_in_graph_and_eager_modes
    def testMap_MultiOutputMismatchedDtype(self):
        nums = np.array([1, 2, 3, 4, 5, 6])
        with self.assertRaisesRegex(TypeError, r"two structures don't have the same nested structure"):
            # the function returns a tuple where dtype says a list
            tf.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), nums, dtype=[tf.int64, tf.int64])

    @run_in_graph_and_eager_modes
    def testMap_MultiInputSingleOutput(self):
        nums = np.array([1, 2, 3, 4, 5, 6])
        r = tf.map_fn(lambda x: x[0] * x[1][0] + x[1][1], (nums, (nums, -nums)), dtype=tf.int64)
        self.assertEqual((6,), r.get_shape())
        received = self.evaluate(r)
        self.assertAllEqual(nums * nums + (-nums), received)

    @run_in_graph_and_eager_modes
    def testMap_MultiInputSameStructureOutput(self):
        nums = np.array([1, 2, 3, 4, 5, 6])
        r = tf.map_fn(lambda x: (x[1][0], (x[1][1], x[0])), (nums, (2 * nums, -nums)))
        r = [r[0], r[1][0], r[1][1]]
        self.assertEqual((6,), r[0].get_shape())
        self.assertEqual((6,), r[1].get_shape())
        self.assertEqual((6,), r[2].get_shape())
        received = self.evaluate(r)
        self.assertAllEqual(2 * nums, received[0])
        self.assertAllEqual(-nums, received[1])
        self.assertAllEqual(nums, received[2])

    testMap_autograph_indirect = excluded("eager: calls map_fn inside a tf.function (autograph)",
                                          "map_fn of a Python-branching function inside def_function.function")

    @run_in_graph_and_eager_modes
    def testMapShape(self):
        x = tf.constant([[1, 2, 3], [4, 5, 6]])
        y = tf.map_fn(lambda e: e, x)
        self.assertAllEqual(y.get_shape(), self.evaluate(y).shape)

    @run_deprecated_v1
    def testMapUnknownShape(self):
        x = tf.placeholder(tf.float32)
        y = tf.map_fn(lambda e: e, x)
        self.assertIs(None, y.get_shape().dims)

    @run_v1_only("b/120545219")
    def testMapEmptyScalar(self):
        map_return = tf.map_fn(lambda x: 1, tf.constant([], dtype=tf.int32))
        self.assertAllEqual([0], map_return.get_shape().dims)
        self.assertAllEqual([0], self.evaluate(map_return).shape)

    @run_v1_only("b/120545219")
    def testMapEmptyTensor(self):
        with self.cached_session():
            map_return = tf.map_fn(lambda x: tf.zeros([3, 2]), tf.constant([]))
            self.assertAllEqual([0, 3, 2], map_return.get_shape().dims)
            self.assertAllEqual([0, 3, 2], self.evaluate(map_return).shape)

    @run_in_graph_and_eager_modes
    def testMapEmptyList(self):
        with self.assertRaisesRegex(ValueError, r"elems must be a Tensor or"):
            tf.map_fn(lambda e: e, [])
