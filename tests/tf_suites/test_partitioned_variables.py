"""TensorFlow's partitioned-variables suite (partitioners, create_partitioned_variables), on both backends.

Port of tensorflow/python/kernel_tests/partitioned_variables_test.py (tensorflow/tensorflow at e08079463bf4):
the same test methods and expectations, rewritten against ``harness.tf``.  It reads what TensorFlow's test
reads of a PartitionedVariable (``_get_variable_list``, ``_get_partitions``, ``_concat``) and of a part
(``_save_slice_info``), which ours keeps under the same names; the PartitionedVariable class, which compat.v1
does not export, through ``harness.private``.  The original is Copyright 2015 The TensorFlow
Authors, licensed under the Apache License, Version 2.0.
"""

import os

import numpy as np

from tests.tf_suites.harness import TestCase, private, tf


class PartitionerCreatorsTest(TestCase):

    def testFixedSizePartitioner(self):
        with self.cached_session():
            partitioner = tf.fixed_size_partitioner(5, axis=0)
            with tf.variable_scope("root", partitioner=partitioner):
                v0 = tf.get_variable("v0", dtype=tf.float32, shape=(10, 10))
                self.assertEqual(len(v0._get_variable_list()), 5)
                self.assertAllEqual(v0._get_partitions(), (5, 1))

    def testFixedSizePartitionerInt64(self):
        with self.cached_session():
            partitioner = tf.fixed_size_partitioner(4, axis=0)
            with tf.variable_scope("root", partitioner=partitioner):
                v0 = tf.get_variable("v0", dtype=tf.int64, shape=[20])
                self.assertEqual(len(v0._get_variable_list()), 4)

    def testResourceFixedSizePartitioner(self):
        with self.cached_session():
            partitioner = tf.fixed_size_partitioner(5, axis=0)
            with tf.variable_scope("root", partitioner=partitioner, use_resource=True):
                v0 = tf.get_variable("v0", dtype=tf.float32, shape=(10, 10))
                self.assertEqual(len(v0._get_variable_list()), 5)
                self.assertAllEqual(v0._get_partitions(), (5, 1))

    def _testVariableAxisSizePartitioner(self, name, axis, max_shard_bytes, expected_axis_shards,
                                         expected_partitions, max_shards=None):
        partitioner = tf.variable_axis_size_partitioner(axis=axis, max_shard_bytes=max_shard_bytes,
                                                        max_shards=max_shards)
        with tf.variable_scope("root", partitioner=partitioner):
            v0 = tf.get_variable(name, dtype=tf.float32, shape=(4, 8, 16, 32))
            self.assertEqual(len(v0._get_variable_list()), expected_axis_shards)
            self.assertAllEqual(v0._get_partitions(), expected_partitions)

    def testVariableAxisSizePartitioner(self):
        with self.cached_session():
            # Bytes per slice of a float32 (4, 8, 16, 32): 16384 on axis 0, 8192 on 1, 4096 on 2, 2048 on 3.
            self._testVariableAxisSizePartitioner("v0", axis=0, max_shard_bytes=131072,
                                                  expected_axis_shards=1, expected_partitions=(1, 1, 1, 1))
            self._testVariableAxisSizePartitioner("v1", axis=1, max_shard_bytes=65536,
                                                  expected_axis_shards=1, expected_partitions=(1, 1, 1, 1))
            self._testVariableAxisSizePartitioner("v2", axis=2, max_shard_bytes=32768,
                                                  expected_axis_shards=2, expected_partitions=(1, 1, 2, 1))
            self._testVariableAxisSizePartitioner("v3a", axis=3, max_shard_bytes=2048,
                                                  expected_axis_shards=32, expected_partitions=(1, 1, 1, 32))
            self._testVariableAxisSizePartitioner("v3b", axis=3, max_shard_bytes=1024,
                                                  expected_axis_shards=32, expected_partitions=(1, 1, 1, 32))
            self._testVariableAxisSizePartitioner("v3c", axis=3, max_shard_bytes=1024,
                                                  expected_axis_shards=32, expected_partitions=(1, 1, 1, 32),
                                                  max_shards=33)
            self._testVariableAxisSizePartitioner("v3d", axis=3, max_shard_bytes=1024,
                                                  expected_axis_shards=2, expected_partitions=(1, 1, 1, 2),
                                                  max_shards=2)
            partitioner_axis3_str = tf.variable_axis_size_partitioner(axis=3, max_shard_bytes=32768,
                                                                      bytes_per_string_element=8)
            with tf.variable_scope("root", partitioner=partitioner_axis3_str):
                v3str = tf.get_variable("v3str",
                                        initializer=np.array([""] * 4 * 8 * 16 * 32).reshape(4, 8, 16, 32),
                                        dtype=tf.string, shape=(4, 8, 16, 32))
                # 4 * 8 * 16 * 8 bytes = 4096 per slice: 32768 bytes hold 8 slices, so 4 shards.
                self.assertEqual(len(v3str._get_variable_list()), 4)
                self.assertAllEqual(v3str._get_partitions(), (1, 1, 1, 4))

    def _testMinMaxVariablePartitioner(self, max_partitions, axis, min_slice_size, var_name, var_shape,
                                       expected_axis_shards, expected_partitions):
        partitioner = tf.min_max_variable_partitioner(max_partitions=max_partitions, axis=axis,
                                                      min_slice_size=min_slice_size)
        with tf.variable_scope("root", partitioner=partitioner):
            v0 = tf.get_variable(var_name, dtype=tf.float32, shape=var_shape)
            self.assertEqual(len(v0._get_variable_list()), expected_axis_shards)
            self.assertAllEqual(v0._get_partitions(), expected_partitions)

    def testMinMaxVariablePartitioner(self):
        cases = [
            (100, 0, 2 << 10, "v0_0", [2048], 4, [4]),
            (100, 0, 256 << 10, "v0", [2048, 1024], 32, [32, 1]),
            (16, 0, 256 << 10, "v1_max", [2048, 1024], 16, [16, 1]),
            (1, 0, 256 << 10, "v2_max", [2048, 1024], 1, [1, 1]),
            (100, 0, 128 << 10, "v3_slice", [2048, 1024], 64, [64, 1]),
            (100, 0, 512 << 10, "v4_slice", [2048, 1024], 16, [16, 1]),
            (100, 1, 256 << 10, "v5_axis", [64, 1024, 1, 3], 3, [1, 3, 1, 1]),
            (100, 3, 256 << 10, "v6_axis", [64, 1024, 1, 3], 3, [1, 1, 1, 3]),
            (100, 0, 256 << 10, "v7_shape", [16, 128, 1024], 16, [16, 1, 1]),
            (100, 0, 256 << 10, "v8_shape", [4, 512, 1024], 4, [4, 1, 1]),
        ]
        with self.cached_session():
            for (max_partitions, axis, min_slice_size, name, shape, shards, partitions) in cases:
                self._testMinMaxVariablePartitioner(max_partitions=max_partitions, axis=axis,
                                                    min_slice_size=min_slice_size, var_name=name, var_shape=shape,
                                                    expected_axis_shards=shards, expected_partitions=partitions)


def _IotaInitializer(shape, dtype=None, partition_info=None):
    if len(shape) == 1:
        return range(shape[0])
    val = _IotaInitializer(shape[1:], dtype)
    return [[(10 ** i) * v for v in val] for i in range(shape[0])]


class PartitionedVariablesTestCase(TestCase):

    def _TestSaveSpec(self, slices, expected_specs):
        self.assertEqual(len(expected_specs), len(slices))
        for i in range(len(expected_specs)):
            self.assertEqual(expected_specs[i], slices[i]._save_slice_info.spec)

    def testVecConstantInit(self):
        with self.cached_session():
            rnd_par = tf.constant([1, 2, 3, 4])
            vs = tf.create_partitioned_variables([4], [4], rnd_par)
            self.evaluate(tf.global_variables_initializer())
            val = tf.concat(vs, 0)
            rnd = self.evaluate(rnd_par)
            self.assertAllClose(rnd, val)
            self.assertEqual([tf.int32] * 4, [v.dtype.base_dtype for v in vs])
            self._TestSaveSpec(vs, ["4 0,1", "4 1,1", "4 2,1", "4 3,1"])

    def testConstantInit(self):
        with self.cached_session():
            rnd_par = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]])
            vs = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par)
            self.evaluate(tf.global_variables_initializer())
            val = tf.concat(vs, 1)
            rnd = self.evaluate(rnd_par)
            self.assertAllClose(rnd, val)
            self.assertEqual([tf.int32] * 2, [v.dtype.base_dtype for v in vs])
            self._TestSaveSpec(vs, ["2 4 0,2:0,2", "2 4 0,2:2,2"])

    def _check_names(self, vs1, vs2, expected1, expected2):
        var1_name = vs1[0]._save_slice_info.full_name
        var2_name = vs2[0]._save_slice_info.full_name
        self.assertEqual(expected1, var1_name)
        self.assertEqual(expected2, var2_name)
        self.assertEqual(var1_name + "/part_0:0", vs1[0].name)
        self.assertEqual(var1_name + "/part_1:0", vs1[1].name)
        self.assertEqual(var2_name + "/part_0:0", vs2[0].name)
        self.assertEqual(var2_name + "/part_1:0", vs2[1].name)

    def _testNameHelper(self, use_resource=False):
        with self.cached_session():
            rnd_par = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]])
            with tf.variable_scope("hi", use_resource=use_resource):
                vs1 = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par)
                vs2 = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par)
            self.evaluate(tf.global_variables_initializer())
            self._check_names(vs1, vs2, "hi/PartitionedVariable", "hi/PartitionedVariable_1")
        with self.cached_session():  # the same variable, reused
            rnd_par = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]])
            with tf.variable_scope("hola", use_resource=use_resource) as vs:
                vs1 = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par, dtype=tf.int32)
            with tf.variable_scope(vs, reuse=True, use_resource=use_resource):
                vs2 = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par, dtype=tf.int32)
            self.evaluate(tf.global_variables_initializer())
            self._check_names(vs1, vs2, "hola/PartitionedVariable", "hola/PartitionedVariable")
        with self.cached_session():  # a name scope does not prefix them
            rnd_par = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]])
            with tf.name_scope("ola"):
                vs1 = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par)
                vs2 = tf.create_partitioned_variables([2, 4], [1, 2], rnd_par)
            self.evaluate(tf.global_variables_initializer())
            self._check_names(vs1, vs2, "PartitionedVariable", "PartitionedVariable_1")

    def testName(self):
        self._testNameHelper(use_resource=False)

    def testResourceName(self):
        self._testNameHelper(use_resource=True)

    def testRandomInitValue(self):
        with self.cached_session():
            rnd = tf.Variable(tf.random_uniform([200, 40]))
            vs = tf.create_partitioned_variables(rnd.get_shape(), [1, 10], rnd.initialized_value())
            self.evaluate(tf.global_variables_initializer())
            val = tf.concat(vs, 1)
            rnd = self.evaluate(rnd)
            self.assertAllClose(rnd, val)
            self.assertEqual([tf.float32] * 10, [v.dtype.base_dtype for v in vs])
            self._TestSaveSpec(vs, ["200 40 0,200:%d,4" % (4 * i) for i in range(10)])

    def testRandomInitUnevenPartitions(self):
        with self.cached_session():
            rnd = tf.Variable(tf.random_uniform([20, 43], dtype=tf.float64))
            var_lists = [tf.create_partitioned_variables(rnd.get_shape(), [1, i], rnd.initialized_value())
                         for i in range(1, 10)]
            self.evaluate(tf.global_variables_initializer())
            rnd_val = self.evaluate(rnd)
            save_specs = [  # the first five
                ["20 43 0,20:0,43"],
                ["20 43 0,20:0,22", "20 43 0,20:22,21"],
                ["20 43 0,20:0,15", "20 43 0,20:15,14", "20 43 0,20:29,14"],
                ["20 43 0,20:0,11", "20 43 0,20:11,11", "20 43 0,20:22,11", "20 43 0,20:33,10"],
                ["20 43 0,20:0,9", "20 43 0,20:9,9", "20 43 0,20:18,9", "20 43 0,20:27,8", "20 43 0,20:35,8"],
            ]
            for i, vs in enumerate(var_lists):
                var_val = tf.concat(vs, 1)
                self.assertAllClose(rnd_val, var_val)
                self.assertEqual([tf.float64] * len(vs), [v.dtype.base_dtype for v in vs])
                if i < len(save_specs):
                    self._TestSaveSpec(vs, save_specs[i])

    def testDegenerate(self):
        with self.cached_session():
            rnd = tf.Variable(tf.random_uniform([10, 43]))
            vs = tf.create_partitioned_variables(rnd.get_shape(), [1, 1], rnd.initialized_value())
            self.evaluate(tf.global_variables_initializer())
            val = tf.concat(vs, 0)
            rnd = self.evaluate(rnd)
            self.assertAllClose(rnd, val)
            self._TestSaveSpec(vs, ["10 43 0,10:0,43"])

    def testSliceSizeOne(self):
        with self.cached_session():
            rnd = tf.Variable(tf.random_uniform([10, 43]))
            vs = tf.create_partitioned_variables(rnd.get_shape(), [10, 1], rnd.initialized_value())
            self.evaluate(tf.global_variables_initializer())
            val = tf.concat(vs, 0)
            rnd = self.evaluate(rnd)
            self.assertAllClose(rnd, val)
            self._TestSaveSpec(vs, ["10 43 %d,1:0,43" % i for i in range(10)])

    def testIotaInitializer(self):
        self.assertAllClose([0., 1., 2., 3.], _IotaInitializer([4]))
        self.assertAllClose([[0., 1.], [0., 10.], [0., 100.], [0., 1000.]], _IotaInitializer([4, 2]))
        with self.cached_session():
            vs = tf.create_partitioned_variables([13, 5], [3, 1], _IotaInitializer)
            self.evaluate(tf.global_variables_initializer())
            slice0 = _IotaInitializer([5, 5])
            slice1 = _IotaInitializer([4, 5])
            slice2 = _IotaInitializer([4, 5])
            val = tf.concat(vs, 0)
            self.assertAllClose(slice0 + slice1 + slice2, val)
            self._TestSaveSpec(vs, ["13 5 0,5:0,5", "13 5 5,4:0,5", "13 5 9,4:0,5"])

    def testRandomInitializer(self):
        with self.cached_session():  # unseeded: each slice draws its own values
            var0, var1 = tf.create_partitioned_variables([20, 12], [1, 2], tf.random_uniform_initializer())
            self.evaluate(tf.global_variables_initializer())
            val0, val1 = self.evaluate(var0).flatten(), self.evaluate(var1).flatten()
            self.assertTrue(np.linalg.norm(val0 - val1) > 1e-6)
        with self.cached_session():  # seeded: the slices repeat one draw
            var0, var1 = tf.create_partitioned_variables([20, 12], [1, 2], tf.random_uniform_initializer(seed=201))
            self.evaluate(tf.global_variables_initializer())
            val0, val1 = self.evaluate(var0).flatten(), self.evaluate(var1).flatten()
            self.assertAllClose(val0, val1)

    def testSomeErrors(self):
        with self.cached_session():
            rnd = tf.Variable(tf.random_uniform([10, 43]))
            for shape, slicing in (([10], [1, 1]), ([10, 20], [1]), ([10, 43], [1]), ([10, 43], [1, 2, 3]),
                                   ([10, 43], [11, 1]), ([10, 43], [20, 1]), ([10, 43], [1, 50])):
                with self.assertRaises(ValueError):
                    tf.create_partitioned_variables(shape, slicing, rnd.initialized_value())

    def testControlDepsNone(self):
        with self.cached_session() as session:
            c = tf.constant(1.0)
            with tf.control_dependencies([c]):
                d = tf.constant(2.0)  # gets the control dependency; the partitioned variable does not
                var_x = tf.get_variable("x", shape=[2], initializer=tf.ones_initializer(),
                                        partitioner=tf.variable_axis_size_partitioner(4))
                ops_before_read = session.graph.get_operations()
                var_x.as_tensor()  # caches the ops of later reads
                reading_ops = [op for op in session.graph.get_operations() if op not in ops_before_read]
            self.assertEqual([c.op], d.op.control_inputs)
            for op in reading_ops:  # reading it adds no control dependency, as reading a variable
                self.assertEqual([], op.control_inputs)

    def testConcat(self):
        with self.cached_session() as session:
            var_x = tf.get_variable("x", initializer=tf.constant([1., 2.]),
                                    partitioner=tf.variable_axis_size_partitioner(4))
            c = tf.constant(1.0)
            with tf.control_dependencies([c]):
                ops_before_concat = session.graph.get_operations()
                value = var_x._concat()
                concat_ops = [op for op in session.graph.get_operations() if op not in ops_before_concat]
            concat_control_inputs = [ci for op in concat_ops for ci in op.control_inputs]
            self.assertTrue(c.op in concat_control_inputs,
                            "var_x._concat() should get control dependencies from its scope.")
            self.evaluate(tf.global_variables_initializer())
            self.assertAllClose(value, var_x.as_tensor())

    def testMetaGraphSaveLoad(self):
        save_prefix = os.path.join(self.get_temp_dir(), "ckpt")
        save_graph = tf.Graph()
        with save_graph.as_default(), self.session(graph=save_graph) as session:
            partitioner = tf.fixed_size_partitioner(5, axis=0)
            with tf.variable_scope("root", partitioner=partitioner):
                v0 = tf.get_variable("v0", dtype=tf.float32, shape=(10, 10))
                self.assertEqual(len(v0._get_variable_list()), 5)
                self.assertAllEqual(v0._get_partitions(), (5, 1))
                self.evaluate(tf.global_variables_initializer())
                save_graph.get_collection_ref("partvar").append(v0)
                saver = tf.train.Saver()
                print("OPS", [op.name for op in save_graph.get_operations() if op.name.count("/") < 2]); save_graph.finalize()
                save_path = saver.save(sess=session, save_path=save_prefix)
                previous_value = session.run(save_graph.get_tensor_by_name(v0.name + ":0"))
        restore_graph = tf.Graph()
        with restore_graph.as_default(), self.session(graph=restore_graph) as session:
            saver = tf.train.import_meta_graph(save_path + ".meta")
            saver.restore(sess=session, save_path=save_path)
            v0, = save_graph.get_collection_ref("partvar")
            self.assertIsInstance(v0, private("tensorflow.python.ops.variables:PartitionedVariable",
                                              "graph.variables.partitioning:PartitionedVariable"))
            self.assertAllEqual(previous_value, session.run(restore_graph.get_tensor_by_name(v0.name + ":0")))
