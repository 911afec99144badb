"""The part of TensorFlow's ``data/kernel_tests/test_base.DatasetTestBase`` the ported tf.data suites use.

Graph mode only: ``getNext`` builds an iterator's ``get_next`` once and returns a callable giving it (an
initializable iterator, initialized in the test's cached session, or a one-shot iterator), as TF's base
does outside eager mode; ``assertDatasetProduces`` drains a dataset and checks the end is OutOfRangeError.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, tf

__all__ = ["DatasetTestBase"]


class DatasetTestBase(TestCase):
    """TestCase plus TF's dataset assertions."""

    def getNext(self, dataset, requires_initialization=False):
        """A callable returning the dataset's next-element tensors (built once)."""
        if requires_initialization:
            iterator = tf.data.make_initializable_iterator(dataset)
            self.evaluate(iterator.initializer)
        else:
            iterator = tf.data.make_one_shot_iterator(dataset)
        get_next = iterator.get_next()
        return lambda: get_next

    def _assertElementEqual(self, expected, result):
        if type(expected).__name__ == "RaggedTensor":  # a graph tensor: evaluate it first
            expected = self.evaluate(expected)
        if hasattr(expected, "to_list"):  # RaggedTensorValue
            self.assertEqual(expected.to_list(), result.to_list())
        elif isinstance(expected, dict):
            self.assertEqual(sorted(expected), sorted(result))
            for key in expected:
                self._assertElementEqual(expected[key], result[key])
        elif isinstance(expected, tuple):
            self.assertEqual(len(expected), len(result))
            for part, value in zip(expected, result):
                self._assertElementEqual(part, value)
        else:
            expected = np.asarray(expected)
            if expected.dtype.kind in "SUO":
                self.assertEqual([bytes(x, "utf-8") if isinstance(x, str) else x for x in expected.ravel()],
                                 list(np.asarray(result).ravel()))
            else:
                self.assertAllEqual(expected, result)

    def assertDatasetProduces(self, dataset, expected_output=None, expected_error=None,
                              requires_initialization=False, num_test_iterations=1, assert_items_equal=False,
                              expected_shapes=None):
        """The dataset yields ``expected_output`` in order (or raises ``expected_error``), then ends."""
        if expected_error is not None:
            error_class, pattern = expected_error
            with self.assertRaisesRegex(error_class, pattern):
                get_next = self.getNext(dataset, requires_initialization)
                self.evaluate(get_next())
            return
        if expected_shapes is not None:
            self.assertEqual(expected_shapes, tf.data.get_output_shapes(dataset))
        for _ in range(num_test_iterations):
            get_next = self.getNext(dataset, requires_initialization)
            results = [self.evaluate(get_next()) for _ in range(len(expected_output))]
            if assert_items_equal:
                self.assertCountEqual([np.asarray(r).tolist() for r in results],
                                      [np.asarray(e).tolist() for e in expected_output])
            else:
                for expected, result in zip(expected_output, results):
                    self._assertElementEqual(expected, result)
            with self.assertRaises(tf.errors.OutOfRangeError):
                self.evaluate(get_next())
