"""TensorFlow's ``tf.data.Dataset.repeat()`` suite (RepeatTest), on both backends.

Port of tensorflow/python/data/kernel_tests/repeat_test.py (tensorflow/tensorflow at 0304934138cb), its
RepeatTest class: the same test methods, inputs and expected values, rewritten against ``harness.tf`` in
graph mode; its ``count`` combinations become one test per count.  The file's checkpoint, random-access
and global-shuffle classes test TF2-only APIs and are not ported.  The original is Copyright 2017 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np
import pytest

from tests.tf_suites.dataset_test_base import DatasetTestBase
from tests.tf_suites.harness import tf

COMPONENTS = (np.array(1), np.array([1, 2, 3]), np.array(37.0))


class RepeatTest(DatasetTestBase):

    @pytest.mark.parametrize("count", [0, 3, 7])
    def testFiniteRepeat(self, count):
        dataset = tf.data.Dataset.from_tensors(COMPONENTS).repeat(count)
        self.assertEqual([c.shape for c in COMPONENTS], [s for s in tf.data.get_output_shapes(dataset)])
        self.assertDatasetProduces(dataset, [COMPONENTS] * count)

    def testInfiniteRepeat(self):
        dataset = tf.data.Dataset.from_tensors(COMPONENTS).repeat(-1)
        self.assertEqual([c.shape for c in COMPONENTS], [s for s in tf.data.get_output_shapes(dataset)])
        get_next = self.getNext(dataset)
        for _ in range(17):
            results = self.evaluate(get_next())
            for component, result in zip(COMPONENTS, results):
                self.assertAllEqual(component, result)

    def testRepeatRepeat(self):
        inner_count, outer_count = 7, 14
        dataset = tf.data.Dataset.from_tensors(COMPONENTS).repeat(inner_count).repeat(outer_count)
        self.assertEqual([c.shape for c in COMPONENTS], [s for s in tf.data.get_output_shapes(dataset)])
        self.assertDatasetProduces(dataset, [COMPONENTS] * (inner_count * outer_count))

    def testName(self):
        dataset = tf.data.Dataset.from_tensors(42).repeat(1, name="repeat")
        self.assertDatasetProduces(dataset, [42])
