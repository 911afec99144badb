"""TensorFlow's DeviceSpec suite, on both backends.

Port of tensorflow/python/framework/device_spec_test.py (tensorflow/tensorflow at 609ec267e358): the same
test methods and expectations, rewritten against ``harness.tf``.  TensorFlow parametrizes most methods over
DeviceSpecV1 and DeviceSpecV2; here each pair is two methods (``_v1`` / ``_v2`` suffixes, as
absl's named_parameters names them).  DeviceSpecV1 is ``tf.DeviceSpec`` of compat.v1; DeviceSpecV2 is reached
through ``harness.private`` (compat.v1 does not export it).  The original is Copyright 2019 The TensorFlow
Authors, licensed under the Apache License, Version 2.0.
"""

from tests.tf_suites.harness import TestCase, private, tf

def _spec_type(version):
    if version == "v1":
        return tf.DeviceSpec
    return private("tensorflow.python.framework.device_spec:DeviceSpecV2", "graph.core.device_spec:DeviceSpecV2")

class DeviceSpecTest(TestCase):

    def _check_empty(self, spec_type):
        d = spec_type()
        self.assertEqual("", d.to_string())
        d.parse_from_string("")
        self.assertEqual("", d.to_string())

    def test_empty_v1(self):
        self._check_empty(_spec_type("v1"))

    def test_empty_v2(self):
        self._check_empty(_spec_type("v2"))

    def _check_constructor(self, spec_type):
        d = spec_type(job="j", replica=0, task=1, device_type="CPU", device_index=2)
        self.assertEqual("j", d.job)
        self.assertEqual(0, d.replica)
        self.assertEqual(1, d.task)
        self.assertEqual("CPU", d.device_type)
        self.assertEqual(2, d.device_index)
        self.assertEqual("/job:j/replica:0/task:1/device:CPU:2", d.to_string())
        d = spec_type(device_type="GPU", device_index=0)
        self.assertEqual("/device:GPU:0", d.to_string())

    def test_constructor_v1(self):
        self._check_constructor(_spec_type("v1"))

    def test_constructor_v2(self):
        self._check_constructor(_spec_type("v2"))

    def testto_string_legacy(self):
        d = tf.DeviceSpec()  # V1: its fields may be set in place
        d.job = "foo"
        self.assertEqual("/job:foo", d.to_string())
        d.task = 3
        self.assertEqual("/job:foo/task:3", d.to_string())
        d.device_type = "CPU"
        d.device_index = 0
        self.assertEqual("/job:foo/task:3/device:CPU:0", d.to_string())
        d.task = None
        d.replica = 12
        self.assertEqual("/job:foo/replica:12/device:CPU:0", d.to_string())
        d.device_type = "GPU"
        d.device_index = 2
        self.assertEqual("/job:foo/replica:12/device:GPU:2", d.to_string())
        d.device_type = "CPU"
        d.device_index = 1
        self.assertEqual("/job:foo/replica:12/device:CPU:1", d.to_string())
        d.device_type = None
        d.device_index = None
        self.assertEqual("/job:foo/replica:12", d.to_string())
        d = tf.DeviceSpec(job="foo", replica=12, task=3, device_type="GPU")
        self.assertEqual("/job:foo/replica:12/task:3/device:GPU:*", d.to_string())

    def _check_replace(self, spec_type):
        d = spec_type()
        d = d.replace(job="foo")
        self.assertEqual("/job:foo", d.to_string())
        d = d.replace(task=3)
        self.assertEqual("/job:foo/task:3", d.to_string())
        d = d.replace(device_type="CPU", device_index=0)
        self.assertEqual("/job:foo/task:3/device:CPU:0", d.to_string())
        d = d.replace(task=None, replica=12)
        self.assertEqual("/job:foo/replica:12/device:CPU:0", d.to_string())
        d = d.replace(device_type="GPU", device_index=2)
        self.assertEqual("/job:foo/replica:12/device:GPU:2", d.to_string())
        d = d.replace(device_type="CPU", device_index=1)
        self.assertEqual("/job:foo/replica:12/device:CPU:1", d.to_string())
        d = d.replace(device_type=None, device_index=None)
        self.assertEqual("/job:foo/replica:12", d.to_string())
        d = tf.DeviceSpec(job="foo", replica=12, task=3, device_type="GPU")
        self.assertEqual("/job:foo/replica:12/task:3/device:GPU:*", d.to_string())

    def test_replace_v1(self):
        self._check_replace(_spec_type("v1"))

    def test_replace_v2(self):
        self._check_replace(_spec_type("v2"))

    def _check_to_string(self, spec_type):
        cases = [
            (dict(job="foo"), "/job:foo"),
            (dict(job="foo", task=3), "/job:foo/task:3"),
            (dict(job="foo", task=3, device_type="cpu", device_index=0), "/job:foo/task:3/device:CPU:0"),
            (dict(job="foo", replica=12, device_type="cpu", device_index=0), "/job:foo/replica:12/device:CPU:0"),
            (dict(job="foo", replica=12, device_type="gpu", device_index=2), "/job:foo/replica:12/device:GPU:2"),
            (dict(job="foo", replica=12), "/job:foo/replica:12"),
            (dict(job="foo", replica=12, task=3, device_type="GPU"), "/job:foo/replica:12/task:3/device:GPU:*"),
        ]
        for kwargs, expected in cases:
            self.assertEqual(expected, spec_type(**kwargs).to_string())

    def testto_string_v1(self):
        self._check_to_string(_spec_type("v1"))

    def testto_string_v2(self):
        self._check_to_string(_spec_type("v2"))

    def test_parse_legacy(self):
        d = tf.DeviceSpec()
        d.parse_from_string("/job:foo/replica:0")
        self.assertEqual("/job:foo/replica:0", d.to_string())
        d.parse_from_string("/replica:1/task:0/cpu:0")
        self.assertEqual("/replica:1/task:0/device:CPU:0", d.to_string())
        d.parse_from_string("/replica:1/task:0/device:CPU:0")
        self.assertEqual("/replica:1/task:0/device:CPU:0", d.to_string())
        d.parse_from_string("/job:muu/device:GPU:2")
        self.assertEqual("/job:muu/device:GPU:2", d.to_string())
        with self.assertRaisesRegex(ValueError, "Multiple device types are not allowed"):
            d.parse_from_string("/job:muu/device:GPU:2/cpu:0")

    def _check_to_from_string(self, spec_type):
        d = spec_type.from_string("/job:foo/replica:0")
        self.assertEqual("/job:foo/replica:0", d.to_string())
        self.assertEqual(0, d.replica)
        for text in ("/replica:1/task:0/cpu:0", "/replica:1/task:0/device:CPU:0"):
            d = spec_type.from_string(text)
            self.assertEqual("/replica:1/task:0/device:CPU:0", d.to_string())
            self.assertAllEqual([1, 0, "CPU", 0], [d.replica, d.task, d.device_type, d.device_index])
        d = spec_type.from_string("/job:muu/device:GPU:2")
        self.assertEqual("/job:muu/device:GPU:2", d.to_string())
        self.assertAllEqual(["muu", "GPU", 2], [d.job, d.device_type, d.device_index])
        with self.assertRaisesRegex(ValueError, "Multiple device types are not allowed"):
            d.parse_from_string("/job:muu/device:GPU:2/cpu:0")

    def test_to_from_string_v1(self):
        self._check_to_from_string(_spec_type("v1"))

    def test_to_from_string_v2(self):
        self._check_to_from_string(_spec_type("v2"))

    def test_merge_legacy(self):
        d = tf.DeviceSpec.from_string("/job:foo/replica:0")
        self.assertEqual("/job:foo/replica:0", d.to_string())
        d.merge_from(tf.DeviceSpec.from_string("/task:1/device:GPU:2"))
        self.assertEqual("/job:foo/replica:0/task:1/device:GPU:2", d.to_string())
        d = tf.DeviceSpec()
        d.merge_from(tf.DeviceSpec.from_string("/task:1/cpu:0"))
        self.assertEqual("/task:1/device:CPU:0", d.to_string())
        d.merge_from(tf.DeviceSpec.from_string("/job:boo/device:GPU:0"))
        self.assertEqual("/job:boo/task:1/device:GPU:0", d.to_string())
        d.merge_from(tf.DeviceSpec.from_string("/job:muu/cpu:2"))
        self.assertEqual("/job:muu/task:1/device:CPU:2", d.to_string())
        d.merge_from(tf.DeviceSpec.from_string("/job:muu/device:MyFunnyDevice:2"))
        self.assertEqual("/job:muu/task:1/device:MyFunnyDevice:2", d.to_string())

    def test_merge_removed(self):
        spec_type = _spec_type("v2")
        with self.assertRaises(AttributeError):
            d = spec_type()
            d.merge_from(spec_type.from_string("/task:1/cpu:0"))

    def _check_combine(self, spec_type):
        d = spec_type.from_string("/job:foo/replica:0")
        self.assertEqual("/job:foo/replica:0", d.to_string())
        d = d.make_merged_spec(spec_type.from_string("/task:1/device:GPU:2"))
        self.assertEqual("/job:foo/replica:0/task:1/device:GPU:2", d.to_string())
        d = spec_type()
        d = d.make_merged_spec(spec_type.from_string("/task:1/cpu:0"))
        self.assertEqual("/task:1/device:CPU:0", d.to_string())
        d = d.make_merged_spec(spec_type.from_string("/job:boo/device:GPU:0"))
        self.assertEqual("/job:boo/task:1/device:GPU:0", d.to_string())
        d = d.make_merged_spec(spec_type.from_string("/job:muu/cpu:2"))
        self.assertEqual("/job:muu/task:1/device:CPU:2", d.to_string())
        d = d.make_merged_spec(spec_type.from_string("/job:muu/device:MyFunnyDevice:2"))
        self.assertEqual("/job:muu/task:1/device:MyFunnyDevice:2", d.to_string())

    def test_combine_v1(self):
        self._check_combine(_spec_type("v1"))

    def test_combine_v2(self):
        self._check_combine(_spec_type("v2"))
