"""The harness itself, on both backends: its assertions fail when they should, its skips name a category."""

import numpy as np

from tests.tf_suites import harness
from tests.tf_suites.harness import TestCase, skip_ours, tf


class HarnessTest(TestCase):

    def testAssertAllCloseFailsOnMismatch(self):
        with self.assertRaises(AssertionError):
            self.assertAllClose([1.0, 2.0], [1.0, 2.1])
        with self.assertRaises(AssertionError):  # shapes must match, as in TensorFlow
            self.assertAllClose([1.0, 1.0], [[1.0, 1.0]])

    def testAssertAllCloseRecursesIntoNests(self):
        self.assertAllClose({"a": [1.0, (2.0, 3.0)]}, {"a": [1.0, (2.0, 3.0)]})
        with self.assertRaises(AssertionError):
            self.assertAllClose({"a": 1.0}, {"b": 1.0})

    def testAccordingToTypeWidensOnlyForLowPrecision(self):
        near = np.array([1.0005], dtype=np.float16)
        self.assertAllCloseAccordingToType([1.0], near)  # half: 1e-3
        with self.assertRaises(AssertionError):
            self.assertAllCloseAccordingToType([1.0], np.array([1.0005], dtype=np.float32))  # float: 1e-6

    def testAssertAllEqualTreatsNanAsEqual(self):
        self.assertAllEqual([np.nan, 1.0], np.array([np.nan, 1.0]))
        with self.assertRaises(AssertionError):
            self.assertAllEqual([1, 2], [1, 3])

    def testEvaluateFetchesVariablesAndNests(self):
        v = tf.Variable([1.0, 2.0])
        self.evaluate(tf.global_variables_initializer())
        self.assertAllClose({"v": [1.0, 2.0], "sum": 3.0}, self.evaluate({"v": v, "sum": tf.reduce_sum(v)}))
        # Tensors given to assertAllClose are evaluated, as TensorFlow's does.
        self.assertAllClose(v, [1.0, 2.0])

    def testCachedSessionIsOnePerGraph(self):
        with self.cached_session() as first:
            pass
        with self.cached_session() as again:
            self.assertIs(first, again)
        with tf.Graph().as_default(), self.cached_session() as other:
            self.assertIsNot(first, other)
            self.assertIs(other.graph, tf.get_default_graph())

    def testSkipReasonsNeedACategory(self):
        with self.assertRaises(ValueError):
            skip_ours("because it fails")
        self.assertEqual({"ours": "eager: x"}, getattr(skip_ours("eager: x")(lambda: None), harness.SKIP_ATTRIBUTE))

    def testBackendIsBound(self):
        self.assertIn(tf.name, ("tf", "ours"))
        self.assertEqual(tf.name == "ours", tf.module.__name__.startswith("graph."))
