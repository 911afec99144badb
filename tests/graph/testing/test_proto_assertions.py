"""Tests for graph/testing/proto_assertions.py: assertProtoEquals on this package's messages, against TF's."""

import pytest

import graph.compat.v1 as tf
from tests.graph.testing import dual_run

SOURCE = '''
import numpy as np


class ProtoTest(tf.test.TestCase):

    def testNodeDefText(self):
        node = tf.constant(1.0, name="one").op.node_def
        self.assertProtoEquals("""
            name: "one" op: "Const"
            attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1.0 } } }
            attr { key: "dtype" value { type: DT_FLOAT } }""", node)

    def testGraphDefMessageAndText(self):
        tf.placeholder(tf.int32, [None, 2], name="x")
        graph_def = tf.get_default_graph().as_graph_def()
        self.assertProtoEquals(graph_def, tf.get_default_graph().as_graph_def())
        self.assertProtoEqualsVersion("""
            node { name: "x" op: "Placeholder"
                   attr { key: "dtype" value { type: DT_INT32 } }
                   attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }""", graph_def)

    def testConfigProtoWithMaps(self):
        config = tf.ConfigProto(device_count={"CPU": 2, "GPU": 0}, allow_soft_placement=True)
        config.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
        self.assertProtoEquals("""
            device_count { key: "GPU" value: 0 } device_count { key: "CPU" value: 2 }
            allow_soft_placement: true graph_options { optimizer_options { opt_level: L0 } }""", config)

    def testNotEqual(self):
        self.assertProtoEquals("name: 'two' op: 'Const'", tf.constant(1.0, name="one").op.node_def)
'''


def test_equal_messages_pass_and_a_mismatch_shows_the_text_diff():
    outcomes = dual_run.run_source(SOURCE + '''
    def testMismatchMessage(self):
        self.assertProtoEquals("name: 'two' op: 'Const'", tf.constant(1.0, name="one").op.node_def, msg="custom")

    def testFloatsRoundedBeforeComparing(self):
        self.assertProtoEquals("float_val: 0.1000000001 dtype: DT_FLOAT tensor_shape { }", tf.make_tensor_proto(0.1))

    def testRelativeTolerance(self):
        self.assertProtoEquals("double_val: 1.0001 dtype: DT_DOUBLE tensor_shape { }",
                               tf.make_tensor_proto(np.float64(1.0)), relative_tolerance=1e-3)

    def testOutsideTheRelativeTolerance(self):
        self.assertProtoEquals("double_val: 1.1 dtype: DT_DOUBLE tensor_shape { }",
                               tf.make_tensor_proto(np.float64(1.0)), relative_tolerance=1e-3)

    def testWrongKinds(self):
        self.assertProtoEquals(3, tf.GraphDef())
''', tf)
    for name in ("testNodeDefText", "testGraphDefMessageAndText", "testConfigProtoWithMaps",
                 "testFloatsRoundedBeforeComparing", "testRelativeTolerance"):
        assert outcomes[f"ProtoTest.{name}"] == ("pass", ""), name
    outcome, message = outcomes["ProtoTest.testMismatchMessage"]
    assert outcome == "fail" and message.startswith("custom:\n")
    assert '- name: "two"\n' in message and '+ name: "one"\n' in message and '+ attr {\n+   key: "dtype"\n' in message
    outcome, message = outcomes["ProtoTest.testOutsideTheRelativeTolerance"]
    assert outcome == "fail" and "- double_val: 1.1\n" in message and "+ double_val: 1.0\n" in message
    assert outcomes["ProtoTest.testWrongKinds"] == (
        "fail", "Can't compare protos of type <class 'int'> and <class 'graph.proto.framework.GraphDef'>.")


def test_the_messages_compared_are_left_unchanged():
    source = '''
class KeepTest(tf.test.TestCase):

    def testKept(self):
        expected = tf.make_tensor_proto(np.float32(0.1000001))
        actual = tf.make_tensor_proto(np.float32(0.1))
        before = (expected.SerializeToString(), actual.SerializeToString())
        self.assertProtoEquals(expected, actual)
        self.assertEqual((expected.SerializeToString(), actual.SerializeToString()), before)
'''
    assert dual_run.run_source("import numpy as np\n" + source, tf)["KeepTest.testKept"] == ("pass", "")


@pytest.mark.tf
def test_outcomes_agree_with_tensorflow(tf_module):
    """TF 2.21 under protobuf 7 cannot word a mismatch (its NormalizeNumberFields reads the removed
    ``FieldDescriptor.label``: an AttributeError); equal messages pass on both, and a mismatch fails on both."""
    ours, theirs = dual_run.run_both(SOURCE, tf_module)
    assert {name: result[0] for name, result in ours.items() if name != "ProtoTest.testNotEqual"} == \
        {name: result[0] for name, result in theirs.items() if name != "ProtoTest.testNotEqual"}
    assert ours["ProtoTest.testNotEqual"][0] == "fail"
    assert theirs["ProtoTest.testNotEqual"][0] == "error" and "label" in theirs["ProtoTest.testNotEqual"][1]
