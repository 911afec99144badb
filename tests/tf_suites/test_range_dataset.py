"""TensorFlow's ``tf.data.Dataset.range()`` suite, on both backends.

Port of tensorflow/python/data/kernel_tests/range_test.py (tensorflow/tensorflow at 246a7a9062e1): the same
test methods, inputs and expected values, rewritten against ``harness.tf`` in graph mode.  The original is
Copyright 2017 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

from tests.tf_suites.dataset_test_base import DatasetTestBase
from tests.tf_suites.harness import tf


class RangeTest(DatasetTestBase):

    def testStop(self):
        self.assertDatasetProduces(tf.data.Dataset.range(5), expected_output=range(5))

    def testStartStop(self):
        self.assertDatasetProduces(tf.data.Dataset.range(2, 5), expected_output=range(2, 5))

    def testStartStopStep(self):
        self.assertDatasetProduces(tf.data.Dataset.range(2, 10, 2), expected_output=range(2, 10, 2))

    def testZeroStep(self):
        with self.assertRaises(tf.errors.InvalidArgumentError):
            dataset = tf.data.Dataset.range(2, 10, 0)
            self.evaluate(dataset._variant_tensor)

    def testNegativeStep(self):
        self.assertDatasetProduces(tf.data.Dataset.range(2, 10, -1), expected_output=range(2, 10, -1))

    def testStopLessThanStart(self):
        self.assertDatasetProduces(tf.data.Dataset.range(10, 2), expected_output=range(10, 2))

    def testStopLessThanStartWithPositiveStep(self):
        self.assertDatasetProduces(tf.data.Dataset.range(10, 2, 2), expected_output=range(10, 2, 2))

    def testStopLessThanStartWithNegativeStep(self):
        self.assertDatasetProduces(tf.data.Dataset.range(10, 2, -1), expected_output=range(10, 2, -1))

    def testOutputType(self):
        expected_types = tf.int32
        # The stored source passes the dtype positionally; TensorFlow 2.21 takes it as output_type= only.
        dataset = tf.data.Dataset.range(5, output_type=expected_types)
        self.assertDatasetProduces(dataset, expected_output=range(5))
        self.assertEqual(expected_types, tf.data.get_output_types(dataset))
