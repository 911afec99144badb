"""TensorFlow's ``tf.data.Dataset.take()`` suite (TakeTest), on both backends.

Port of tensorflow/python/data/kernel_tests/take_test.py (tensorflow/tensorflow at 0304934138cb), its TakeTest
class: the same test methods, inputs and expected values, rewritten against ``harness.tf`` in graph mode; the
``count`` combinations become one test per count.  The file's checkpoint, random-access and global-shuffle
classes test TF2-only APIs and are not ported.  The original is Copyright 2017 The TensorFlow Authors,
licensed under the Apache License, Version 2.0.
"""

import numpy as np
import pytest

from tests.tf_suites.dataset_test_base import DatasetTestBase
from tests.tf_suites.harness import tf

COUNTS = [-1, 0, 4, 10, 25]


class TakeTest(DatasetTestBase):

    @pytest.mark.parametrize("count", COUNTS)
    def testBasic(self, count):
        components = (np.arange(10),)
        dataset = tf.data.Dataset.from_tensor_slices(components).take(count)
        self.assertEqual([c.shape[1:] for c in components], [s for s in tf.data.get_output_shapes(dataset)])
        num_output = min(count, 10) if count != -1 else 10
        self.assertDatasetProduces(dataset, [tuple(components[0][i:i + 1]) for i in range(num_output)])

    def testName(self):
        self.assertDatasetProduces(tf.data.Dataset.from_tensors(42).take(1, name="take"), [42])
