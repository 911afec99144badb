"""TensorFlow's framework/device suite (merge_device, canonical_name, check_valid), on both backends.

Port of tensorflow/python/framework/device_test.py (tensorflow/tensorflow at 01de70430566): the same test methods
and expectations, rewritten against ``harness.tf``.  ``testMerge`` is parametrized over DeviceSpecV1/V2 in
TensorFlow (``_v1`` / ``_v2`` here).  The module's functions, which compat.v1 does not export, come through
``harness.private``.  The original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License,
Version 2.0.
"""

from tests.tf_suites.harness import TestCase, private, tf


def _device(name):
    return private("tensorflow.python.framework.device:" + name, "graph.core.device:" + name)


class DeviceTest(TestCase):

    def _check_merge(self, spec_type):
        d = spec_type.from_string("/job:muu/task:1/device:MyFunnyDevice:2")
        self.assertEqual("/job:muu/task:1/device:MyFunnyDevice:2", d.to_string())
        merge_device = _device("merge_device")
        with tf.device(merge_device("/device:GPU:0")):
            var1 = tf.Variable(1.0)
            self.assertEqual("/device:GPU:0", var1.device)
            with tf.device(merge_device("/job:worker")):
                var2 = tf.Variable(1.0)
                self.assertEqual("/job:worker/device:GPU:0", var2.device)
                with tf.device(merge_device("/device:CPU:0")):
                    var3 = tf.Variable(1.0)
                    self.assertEqual("/job:worker/device:CPU:0", var3.device)
                    with tf.device(merge_device("/job:ps")):
                        var4 = tf.Variable(1.0)
                        self.assertEqual("/job:ps/device:CPU:0", var4.device)

    def testMerge_v1(self):
        self._check_merge(tf.DeviceSpec)

    def testMerge_v2(self):
        self._check_merge(private("tensorflow.python.framework.device_spec:DeviceSpecV2",
                                  "graph.core.device_spec:DeviceSpecV2"))

    def testCanonicalName(self):
        canonical_name = _device("canonical_name")
        for expected, given in (
                ("/job:foo/replica:0", "/job:foo/replica:0"), ("/job:foo/replica:0", "/replica:0/job:foo"),
                ("/job:foo/replica:0/task:0", "/job:foo/replica:0/task:0"),
                ("/job:foo/replica:0/task:0", "/job:foo/task:0/replica:0"),
                ("/device:CPU:0", "/device:CPU:0"), ("/device:GPU:2", "/device:GPU:2"),
                ("/job:foo/replica:0/task:0/device:GPU:0", "/job:foo/replica:0/task:0/device:GPU:0"),
                ("/job:foo/replica:0/task:0/device:GPU:0", "/device:GPU:0/task:0/replica:0/job:foo")):
            self.assertEqual(expected, canonical_name(given))

    def testCheckValid(self):
        check_valid = _device("check_valid")
        check_valid("/job:foo/replica:0")
        with self.assertRaisesRegex(ValueError, "invalid literal for int"):
            check_valid("/job:j/replica:foo")
        with self.assertRaisesRegex(ValueError, "invalid literal for int"):
            check_valid("/job:j/task:bar")
        # TF 2.21 words it "Unknown attribute 'barcpugpu' is encountered ..." (the stored source: "Unknown
        # attribute: 'barcpugpu'"); matched as 2.21 words it.
        with self.assertRaisesRegex(ValueError, "Unknown attribute 'barcpugpu'"):
            check_valid("/barcpugpu:muu/baz:2")
        # TF 2.21: "Multiple device types are not allowed ..." (stored source: "Cannot specify multiple device")
        with self.assertRaisesRegex(ValueError, "Multiple device types are not allowed"):
            check_valid("/cpu:0/device:GPU:2")
