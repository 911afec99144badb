"""Tests for graph/testing/testcase.py: one TF1-style test class, written once, run under both frameworks.

The sources below are what a TF1 codebase's test file holds (their ``tf`` bound by dual_run to graph.compat.v1 or
to tensorflow.compat.v1).  Each method passes or fails on purpose; both runs must agree on every outcome and on
every failure message, whole, except where the message quotes a kernel error (TF adds its node trace there):
those must carry the same key content.
"""

import unittest

import pytest

import graph.compat.v1 as tf
from tests.graph.testing import dual_run

SESSIONS_SOURCE = '''
import collections
import os

import numpy as np

Pair = collections.namedtuple("Pair", ["first", "second"])


class SessionsTest(tf.test.TestCase):

    def testFreshSeededGraphPerTest(self):
        self.assertEqual(tf.get_default_graph().get_operations(), [])
        self.assertEqual(tf.get_default_graph().seed, 87654321)
        self.assertAllClose(np.random.rand(), np.random.RandomState(87654321).rand())
        tf.constant(1.0, name="left_behind")

    def testFreshSeededGraphPerTestAgain(self):
        self.assertEqual([op.name for op in tf.get_default_graph().get_operations()], [])

    def testCachedSessionIsReused(self):
        variable = tf.Variable(3.0)
        with self.cached_session() as first:
            first.run(variable.initializer)
            self.assertIs(tf.get_default_session(), first)
        with self.cached_session() as second:
            self.assertIs(first, second)
        self.assertEqual(self.evaluate(variable), 3.0)  # no default session: evaluate takes the cached one
        with self.test_session() as third:
            self.assertIs(third, first)

    def testSessionIsNewEachTime(self):
        variable = tf.Variable(3.0)
        with self.session() as first:
            first.run(variable.initializer)
            self.assertEqual(variable.eval(), 3.0)
        with self.session() as second:
            self.assertIsNot(first, second)
            with self.assertRaisesOpError("uninitialized"):
                second.run(variable)

    def testCachedSessionRefusesAnotherGraph(self):
        with self.cached_session():
            pass
        with self.cached_session(graph=tf.Graph()):
            pass

    def testCachedSessionRefusesAnotherConfig(self):
        with self.cached_session():
            pass
        with self.cached_session(config=tf.ConfigProto()):
            pass

    def testTestSessionAcceptsOtherArguments(self):
        with self.cached_session() as cached:
            pass
        with self.test_session(config=tf.ConfigProto(), force_gpu=False) as again:
            self.assertIs(again, cached)

    def testSessionOnAGraph(self):
        graph = tf.Graph()
        with graph.as_default():
            value = tf.constant(7)
        with self.session(graph=graph) as sess:
            self.assertIs(sess.graph, graph)
            self.assertIs(tf.get_default_graph(), graph)
            self.assertEqual(self.evaluate(value), 7)
        with self.test_session(graph=graph) as sess:
            self.assertIs(sess.graph, graph)

    def testUseGpuFalsePinsTheCpu(self):
        with self.session(use_gpu=False):
            value = tf.constant(1.0)
        self.assertEqual(value.device, "/device:CPU:0")
        with self.session(use_gpu=True):
            self.assertEqual(tf.constant(1.0).device, "")

    def testForceGpuFailsWithoutAGpu(self):
        self.assertEqual(tf.test.gpu_device_name(), "")
        with self.session(force_gpu=True):
            value = tf.constant(1.0)
            self.assertEqual(value.device, "/device:GPU:0")
            value.eval()

    def testConfigGetsTestSettings(self):
        config = tf.ConfigProto(log_device_placement=False)
        with self.session(config=config):
            pass
        self.assertEqual(config.graph_options.optimizer_options.opt_level, -1)
        self.assertEqual(config.graph_options.rewrite_options.constant_folding, 2)

    def testEvaluateNestedStructures(self):
        a = tf.constant([1.0, 2.0])
        sparse = tf.SparseTensor([[0, 1]], [5.0], [2, 3])
        slices = tf.IndexedSlices(tf.constant([[1, 2]]), tf.constant([1]), tf.constant([3, 2]))
        values = self.evaluate({"z": (a, [a * 2]), "a": Pair(a, {"k": a + 1}), "s": sparse, "i": slices})
        self.assertEqual(sorted(values), ["a", "i", "s", "z"])
        self.assertIsInstance(values["z"], tuple)
        self.assertIsInstance(values["z"][1], list)
        self.assertIsInstance(values["a"], Pair)
        self.assertAllEqual(values["a"].second["k"], [2.0, 3.0])
        self.assertEqual(type(values["s"]).__name__, "SparseTensorValue")
        self.assertAllEqual(values["s"].indices, [[0, 1]])
        self.assertAllEqual(values["s"].dense_shape, [2, 3])
        self.assertEqual(type(values["i"]).__name__, "IndexedSlicesValue")
        self.assertAllEqual(values["i"].values, [[1, 2]])
        self.assertAllEqual(values["i"].indices, [1])

    def testGetTempDir(self):
        first = self.get_temp_dir()
        self.assertEqual(first, self.get_temp_dir())
        self.assertTrue(os.path.isdir(first))
        self.assertEqual(os.path.dirname(first), tf.test.get_temp_dir())
        self.assertEqual(tf.test.get_temp_dir(), tf.test.get_temp_dir())

    def testCheckedThreadRaises(self):
        def boom():
            raise ValueError("boom")
        thread = self.checkedThread(target=boom)
        thread.start()
        thread.join()

    def testCheckedThreadRuns(self):
        results = []
        threads = [self.checkedThread(target=results.append, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
            self.assertFalse(thread.is_alive())
        self.assertCountEqual(results, [0, 1, 2])

    def testCheckedThreadNotJoined(self):
        self.checkedThread(target=lambda: None).start()
'''

# method: (outcome, substrings its message holds under both frameworks)
SESSIONS_EXPECTED = {
    "testFreshSeededGraphPerTest": ("pass", []),
    "testFreshSeededGraphPerTestAgain": ("pass", []),
    "testCachedSessionIsReused": ("pass", []),
    "testSessionIsNewEachTime": ("pass", []),
    "testCachedSessionRefusesAnotherGraph": ("error", [
        "ValueError: The graph used to get the cached session is different than the one that was used to create "
        "the session. Maybe create a new session with self.session()"]),
    "testCachedSessionRefusesAnotherConfig": ("error", ["ValueError: The config used to get the cached session"]),
    "testTestSessionAcceptsOtherArguments": ("pass", []),
    "testSessionOnAGraph": ("pass", []),
    "testUseGpuFalsePinsTheCpu": ("pass", []),
    "testForceGpuFailsWithoutAGpu": ("error", [
        "InvalidArgumentError", "Cannot assign a device for operation Const: ",
        "was explicitly assigned to /device:GPU:0 but available devices are "
        "[ /job:localhost/replica:0/task:0/device:CPU:0 ]"]),
    "testConfigGetsTestSettings": ("pass", []),
    "testEvaluateNestedStructures": ("pass", []),
    "testGetTempDir": ("pass", []),
    "testCheckedThreadRaises": ("fail", ["Error in checkedThread: boom"]),
    "testCheckedThreadRuns": ("pass", []),
    "testCheckedThreadNotJoined": ("fail", ["A checked thread was not joined."]),
    "test_session": ("skip", ["Not a test."]),
}

ASSERTIONS_SOURCE = '''
import collections

import numpy as np

Pair = collections.namedtuple("Pair", ["first", "second"])


class AssertionsTest(tf.test.TestCase):

    def testAllCloseNested(self):
        t = tf.constant([1.0, 2.0])
        self.assertAllClose({"a": t, "b": [Pair(t, {"c": 3.0})]},
                            {"a": [1.0, 2.0], "b": [Pair(np.array([1.0, 2.0]), {"c": 3.0 + 1e-7})]})

    def testAllCloseNestedMismatch(self):
        self.assertAllClose({"a": [1.0], "b": [Pair([1.0, 2.0], {"c": [[3.0, 4.0]]})]},
                            {"a": [1.0], "b": [Pair([1.0, 2.0], {"c": [[3.0, 4.5]]})]}, msg="custom")

    def testAllCloseTensorMismatch(self):
        self.assertAllClose(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [[1.0, 2.0], [3.1, 4.0]])

    def testAllCloseScalarMismatch(self):
        self.assertAllClose(1.0, 1.5)

    def testAllCloseKeysMismatch(self):
        self.assertAllClose({"a": 1.0, "b": 2.0}, {"a": 1.0, "c": 2.0})

    def testAllCloseDictAgainstList(self):
        self.assertAllClose({"a": 1.0}, [1.0])

    def testAllCloseRaggedLengths(self):
        self.assertAllClose([[1.0], [1.0, 2.0]], [[1.0], [1.0, 2.0], [3.0]])

    def testAllCloseRaggedElements(self):
        self.assertAllClose([[1.0], [1.0, 2.0]], [[1.0], [1.0, 2.5]])

    def testAllCloseRaggedMatch(self):
        self.assertAllClose([[1.0], [1.0, 2.0]], ([1.0], np.array([1.0, 2.0])))

    def testAllCloseShapeMismatch(self):
        self.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])

    def testAllCloseNaNMismatch(self):
        self.assertAllClose([np.nan, 1.0], [1.0, 1.0])

    def testAllCloseNaNsMatch(self):
        self.assertAllClose([np.nan, 1.0], [np.nan, 1.0])

    def testAllCloseToleranceArguments(self):
        self.assertAllClose([1.0], [1.01], rtol=0.0, atol=0.02)

    def testAllCloseAccordingToTypeHalf(self):
        self.assertAllCloseAccordingToType(np.array([1.0], np.float16), np.array([1.0005], np.float16))

    def testAllCloseAccordingToTypeFloat32(self):
        self.assertAllCloseAccordingToType(np.array([1.0], np.float32), np.array([1.0005], np.float32))

    def testAllCloseAccordingToTypeTensor(self):
        self.assertAllCloseAccordingToType(tf.constant([1.0], tf.float16), np.array([1.0005], np.float16))

    def testNotAllClose(self):
        self.assertNotAllClose([1.0, 2.0], [1.0, 2.5])

    def testNotAllCloseButClose(self):
        self.assertNotAllClose([1.0, 2.0], [1.0, 2.0], msg="custom")

    def testAllEqual(self):
        self.assertAllEqual(tf.constant([[1, 2], [3, 4]]), [[1, 2], [3, 4]])
        self.assertAllEqual([b"abc", b"d"], ["abc", "d"])
        self.assertAllEqual(tf.constant(["x", "y"]), [b"x", b"y"])
        self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])

    def testAllEqualMismatch(self):
        self.assertAllEqual([[1, 2], [3, 4]], tf.constant([[1, 2], [3, 5]]), msg="custom")

    def testAllEqualShapeMismatch(self):
        self.assertAllEqual([1, 2], [1, 2, 3])

    def testAllEqualStringMismatch(self):
        self.assertAllEqual(tf.constant(["x", "y"]), ["x", "z"])

    def testNotAllEqualButEqual(self):
        self.assertNotAllEqual([1, 2], [1, 2], msg="custom")

    def testOrderings(self):
        x = tf.constant([1, 2, 3])
        self.assertAllGreater(x, 0)
        self.assertAllGreaterEqual(x, 1)
        self.assertAllLess(x, 4)
        self.assertAllLessEqual(x, 3)

    def testAllGreaterFails(self):
        self.assertAllGreater([1, 2, 3], 1)

    def testAllLessEqualFails(self):
        self.assertAllLessEqual(tf.constant([1.5, 2.5]), 2.0)

    def testAllInRange(self):
        self.assertAllInRange(tf.constant([0.0, 0.5, 1.0]), 0.0, 1.0)
        self.assertAllInRange([1, 2], 0, 3, open_lower_bound=True, open_upper_bound=True)

    def testAllInRangeOutside(self):
        self.assertAllInRange(np.arange(20).reshape(4, 5), 2, 10, open_upper_bound=True)

    def testAllInRangeNaN(self):
        self.assertAllInRange([0.5, np.nan], 0.0, 1.0)

    def testAllInRangeNotNumeric(self):
        self.assertAllInRange(["a"], 0, 1)

    def testAllInSet(self):
        self.assertAllInSet(tf.constant([1, 2, 2]), {1, 2})

    def testAllInSetMissing(self):
        self.assertAllInSet([1, 2, 5, 7], [1, 2])

    def testNearAndArrayNear(self):
        self.assertNear(1.0, 1.05, 0.1)
        self.assertArrayNear([1.0, 2.0], [1.05, 2.05], 0.1)
        self.assertNDArrayNear(np.array([1.0, 2.0]), np.array([1.0, 2.01]), 0.1)

    def testNearFails(self):
        self.assertNear(1.0, 1.5, 0.1, msg="custom")

    def testArrayNearFails(self):
        self.assertArrayNear([1.0, 2.0], [1.0, 2.5], 0.1)

    def testNDArrayNearFails(self):
        self.assertNDArrayNear(np.array([1.0, 2.0]), np.array([1.0, 3.0]), 0.1)

    def testShapeEqual(self):
        self.assertShapeEqual(np.zeros([2, 3]), tf.zeros([2, 3]))
        self.assertShapeEqual(np.float32(1.0), tf.constant(2.0))

    def testShapeEqualMismatch(self):
        self.assertShapeEqual(np.zeros([2, 3]), tf.zeros([3, 2]))

    def testShapeEqualRejectsLists(self):
        self.assertShapeEqual([1, 2], tf.zeros([2]))

    def testDeviceEqual(self):
        self.assertDeviceEqual("/cpu:0", "/device:CPU:0")
        self.assertDeviceEqual(tf.DeviceSpec(job="ps", task=1), "/job:ps/task:1")

    def testDeviceEqualFails(self):
        self.assertDeviceEqual("/cpu:0", "/gpu:0")

    def testDTypeEqual(self):
        self.assertDTypeEqual(tf.constant([1.0]), np.float32)

    def testDTypeEqualFails(self):
        self.assertDTypeEqual(np.array([1, 2], np.int64), np.int32)

    def testDictEqualOfArrays(self):
        self.assertDictEqual({"a": np.array([1.0, 2.0]), "b": 3}, {"a": np.array([1.0, 2.0]), "b": 3})

    def testRaisesOpError(self):
        with self.assertRaisesOpError("You must feed a value for placeholder tensor 'p'"):
            self.evaluate(tf.placeholder(tf.float32, name="p"))

    def testRaisesOpErrorNamesTheOp(self):
        with self.assertRaisesOpError("Caused by: p_named"):
            self.evaluate(tf.placeholder(tf.float32, name="p_named"))

    def testRaisesOpErrorOtherMessage(self):
        with self.assertRaisesOpError("not this message"):
            self.evaluate(tf.placeholder(tf.float32, name="p"))

    def testRaisesOpErrorNothingRaised(self):
        with self.assertRaisesOpError("anything"):
            self.evaluate(tf.constant(1))

    def testRaisesWithPredicateMatch(self):
        with self.assertRaisesWithPredicateMatch(ValueError, lambda error: "bad" in str(error)):
            raise ValueError("a bad value")

    def testRaisesWithPredicateMatchWrongType(self):
        with self.assertRaisesWithPredicateMatch(TypeError, "bad"):
            raise ValueError("a bad value")

    def testRaisesIncompatibleShapes(self):
        with self.assertRaisesIncompatibleShapesError(ValueError):
            tf.add(tf.zeros([2, 3]), tf.zeros([4, 5]))

    def testStartsWith(self):
        self.assertStartsWith("prefix and more", "prefix")

    def testStartsWithFails(self):
        self.assertStartsWith("abc", "x", msg="custom")

    def testItemsEqual(self):
        self.assertItemsEqual([1, 2, 2, 3], [3, 2, 1, 2])
        self.assertCountEqual(["a", "b"], ["b", "a"])

    def testItemsEqualFails(self):
        self.assertItemsEqual([1, 2, 2], [1, 2])

    def testAbslAssertions(self):
        self.assertLen([1, 2], 2)
        self.assertEmpty([])
        self.assertNotEmpty([0])
        self.assertSameElements([1, 2, 2], [2, 1])
        self.assertContainsSubset([1], [1, 2])
        self.assertBetween(2, 1, 3)

    def testProtoEqualsText(self):
        node = tf.constant(1.0, name="one").op.node_def
        self.assertProtoEquals("""
            name: "one" op: "Const"
            attr { key: "dtype" value { type: DT_FLOAT } }
            attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1.0 } } }""", node)

    def testProtoEqualsMessage(self):
        graph_def = tf.get_default_graph().as_graph_def()
        tf.constant(2, name="two")
        same = tf.get_default_graph().as_graph_def()
        self.assertProtoEquals(same, tf.get_default_graph().as_graph_def())
        self.assertProtoEquals("", tf.GraphDef())
        self.assertProtoEquals(graph_def, graph_def)

    def testProtoEqualsVersion(self):
        tf.constant(2, name="two")
        self.assertProtoEqualsVersion("""
            node { name: "two" op: "Const"
                   attr { key: "dtype" value { type: DT_INT32 } }
                   attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 2 } } } }""",
                                      tf.get_default_graph().as_graph_def(), min_consumer=0)
'''

ASSERTIONS_EXPECTED = {
    "testAllCloseNested": ("pass", []),
    "testAllCloseNestedMismatch": ("fail", [
        "Mismatched value: a[b][0][second][c] is different from b[b][0][second][c]. custom",
        "not close where = (array([0]), array([1]))"]),
    "testAllCloseTensorMismatch": ("fail", ["not close lhs = [3.]", "dtype = float32, shape = (2, 2)"]),
    "testAllCloseScalarMismatch": ("fail", ["not close lhs = 1.0", "not close rhs = 1.5"]),
    "testAllCloseKeysMismatch": ("fail", ["mismatched keys: a has keys dict_keys(['a', 'b']), but b has keys "
                                          "dict_keys(['a', 'c'])."]),
    "testAllCloseDictAgainstList": ("error", ["ValueError: Can't compare dict to non-dict, a vs b. "]),
    "testAllCloseRaggedLengths": ("fail", ["Shape mismatch: expected (2,), got (3,) with contents [list([1.0]) "
                                           "list([1.0, 2.0]) list([3.0])]."]),
    "testAllCloseRaggedElements": ("fail", ["Mismatched value: a[1] is different from b[1]."]),
    "testAllCloseRaggedMatch": ("pass", []),
    "testAllCloseShapeMismatch": ("fail", ["Shape mismatch: expected (2,), got (3,) with contents [1. 2. 3.]."]),
    "testAllCloseNaNMismatch": ("fail", ["not close where = (array([0]),)"]),
    "testAllCloseNaNsMatch": ("pass", []),
    "testAllCloseToleranceArguments": ("pass", []),
    "testAllCloseAccordingToTypeHalf": ("pass", []),
    "testAllCloseAccordingToTypeFloat32": ("fail", ["rtol=1e-06, atol=1e-06"]),
    "testAllCloseAccordingToTypeTensor": ("pass", []),
    "testNotAllClose": ("pass", []),
    "testNotAllCloseButClose": ("fail", ["The two values are close at all elements. custom"]),
    "testAllEqual": ("pass", []),
    "testAllEqualMismatch": ("fail", ["not equal where = (array([1]), array([1]))", "not equal lhs = array([4])",
                                      "not equal rhs = array([5], dtype=int32)", "custom"]),
    "testAllEqualShapeMismatch": ("fail", ["Shape mismatch: expected (2,), got (3,). Contents: array([1, 2, 3])."]),
    # TF compares bytes with str element-wise first (all differ), then reports the bytes-converted arrays.
    "testAllEqualStringMismatch": ("fail", ["not equal lhs = array([b'x', b'y'], dtype=object)",
                                            "not equal rhs = array(['x', 'z'], dtype='<U1')",
                                            " ACTUAL: array([b'x', b'y'], dtype='|S1')"]),
    "testNotAllEqualButEqual": ("fail", ["The two values are equal at all elements. custom"]),
    "testOrderings": ("pass", []),
    "testAllGreaterFails": ("fail", ["not greater than 1"]),
    "testAllLessEqualFails": ("fail", ["not less than or equal to 2.0"]),
    "testAllInRange": ("pass", []),
    "testAllInRangeOutside": ("fail", [
        "12 of the 20 element(s) are outside the range [2, 10). Subscript(s) and value(s) of the offending "
        "elements:\n  [0 0] : 0\n  [0 1] : 1\n  [2 0] : 10\n", "  [3 2] : 17\n  ..."]),
    "testAllInRangeNaN": ("fail", ["1 of the 2 element(s) are NaN. Subscripts(s) and value(s) of the NaN element(s):"
                                   "\n  [1] : nan"]),
    "testAllInRangeNotNumeric": ("fail", ["does not have an ordered numeric type, instead it has type: <U1"]),
    "testAllInSet": ("pass", []),
    "testAllInSetMissing": ("fail", ["2 unique element(s) are not in the set [1, 2]: [5 7]"]),
    "testNearAndArrayNear": ("pass", []),
    "testNearFails": ("fail", ["1.000000 != 1.500000 +/- 0.100000 (difference: 0.5) (custom)"]),
    "testArrayNearFails": ("fail", ["2.000000 != 2.500000 +/- 0.100000 (difference: 0.5)"]),
    "testNDArrayNearFails": ("fail", ["np.False_ is not true"]),
    "testShapeEqual": ("pass", []),
    "testShapeEqualMismatch": ("fail", ["not equal where = (array([0, 1]),)"]),
    "testShapeEqualRejectsLists": ("error", [
        "TypeError: input_a must be a Numpy ndarray, Numpy scalar, or a Tensor.Instead received <class 'list'>"]),
    "testDeviceEqual": ("pass", []),
    "testDeviceEqualFails": ("fail", ["Devices /device:CPU:0 and /device:GPU:0 are not equal. None"]),
    "testDTypeEqual": ("pass", []),
    "testDTypeEqualFails": ("fail", ["dtype('int64') != <class 'numpy.int32'>"]),
    "testDictEqualOfArrays": ("pass", []),
    "testRaisesOpError": ("pass", []),
    "testRaisesOpErrorNamesTheOp": ("pass", []),
    "testRaisesOpErrorOtherMessage": ("fail", [
        "Exception of type <class '", "InvalidArgumentError'>: ",
        "You must feed a value for placeholder tensor 'p' with dtype float"]),
    "testRaisesOpErrorNothingRaised": ("fail", ["Exception of type <class 'AssertionError'>: OpError not raised"]),
    "testRaisesWithPredicateMatch": ("pass", []),
    "testRaisesWithPredicateMatchWrongType": ("fail", ["Exception of type <class 'ValueError'>: a bad value"]),
    "testRaisesIncompatibleShapes": ("pass", []),
    "testStartsWith": ("pass", []),
    "testStartsWithFails": ("fail", ["'abc' does not start with 'x' : 'custom'"]),
    "testItemsEqual": ("pass", []),
    "testItemsEqualFails": ("fail", ["Element counts were not equal:\nFirst has 2, Second has 1:  2"]),
    "testAbslAssertions": ("pass", []),
    "testProtoEqualsText": ("pass", []),
    "testProtoEqualsMessage": ("pass", []),
    "testProtoEqualsVersion": ("pass", []),
    "test_session": ("skip", ["Not a test."]),
}

# Failures whose text quotes a kernel error: TF words it "Graph execution error: ... Detected at node ..." with
# stack traces, ours as the error alone; the key content (class, TF's sentence) is checked in both above.  Every
# other failure message is compared whole.
KERNEL_ERROR_MESSAGES = {"SessionsTest.testForceGpuFailsWithoutAGpu", "AssertionsTest.testRaisesOpErrorOtherMessage"}


def _same_messages(ours, theirs):
    assert {name: outcome for name, (outcome, _) in ours.items()} == \
        {name: outcome for name, (outcome, _) in theirs.items()}
    for name in ours:
        if name not in KERNEL_ERROR_MESSAGES:
            assert ours[name][1] == theirs[name][1], name


def _check(outcomes, expected, class_name):
    assert sorted(outcomes) == sorted(f"{class_name}.{name}" for name in expected)
    for name, (outcome, substrings) in expected.items():
        got, message = outcomes[f"{class_name}.{name}"]
        assert got == outcome, (name, got, message)
        for substring in substrings:
            assert substring in message, (name, substring, message)


def test_sessions_under_graph_compat_v1():
    _check(dual_run.run_source(SESSIONS_SOURCE, tf), SESSIONS_EXPECTED, "SessionsTest")


def test_assertions_under_graph_compat_v1():
    _check(dual_run.run_source(ASSERTIONS_SOURCE, tf), ASSERTIONS_EXPECTED, "AssertionsTest")


@pytest.mark.tf
def test_sessions_agree_with_tensorflow(tf_module):
    ours, theirs = dual_run.run_both(SESSIONS_SOURCE, tf_module)
    _check(theirs, SESSIONS_EXPECTED, "SessionsTest")
    _same_messages(ours, theirs)


@pytest.mark.tf
def test_assertions_agree_with_tensorflow(tf_module):
    ours, theirs = dual_run.run_both(ASSERTIONS_SOURCE, tf_module)
    _check(theirs, ASSERTIONS_EXPECTED, "AssertionsTest")
    _same_messages(ours, theirs)


def test_a_failing_run_is_logged_as_tensorflow_logs_it(caplog):
    """The test sessions log a failed run's error (TF's ErrorLoggingSession); an OutOfRangeError is not logged."""
    source = '''
class LoggingTest(tf.test.TestCase):

    def testLogged(self):
        with self.assertRaises(tf.errors.InvalidArgumentError):
            self.evaluate(tf.placeholder(tf.float32, name="unfed"))

    def testEndOfInputNotLogged(self):
        queue = tf.FIFOQueue(1, tf.float32)
        with self.cached_session() as sess:
            sess.run(queue.close())
            with self.assertRaises(tf.errors.OutOfRangeError):
                sess.run(queue.dequeue())
'''
    module = dual_run.load(source, tf, "logging_test")
    for name in ("testLogged", "testEndOfInputNotLogged"):
        caplog.clear()
        result = unittest.TestResult()
        module.LoggingTest(name).run(result)
        assert result.wasSuccessful(), result.failures + result.errors
        errors = [record.getMessage() for record in caplog.records if record.levelname == "ERROR"]
        if name == "testLogged":
            assert any("You must feed a value for placeholder tensor 'unfed'" in message for message in errors)
        else:
            assert errors == []


def test_setup_leaves_no_graph_context_behind():
    """A test that failed inside ``with graph.as_default()`` leaves it entered; the next setUp clears it."""
    source = '''
class LeakTest(tf.test.TestCase):

    def testA_LeavesGraphEntered(self):
        tf.Graph().as_default().__enter__()
        self.fail("left a graph entered")

    def testB_StartsClean(self):
        tf.reset_default_graph()  # raises inside a nested graph context
'''
    outcomes = dual_run.run_source(source, tf)
    assert outcomes["LeakTest.testA_LeavesGraphEntered"][0] == "fail"
    assert outcomes["LeakTest.testB_StartsClean"] == ("pass", "")
