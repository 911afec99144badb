"""TensorFlow's replica_device_setter suite, on both backends.

Port of tensorflow/python/training/device_setter_test.py (tensorflow/tensorflow at 22a71154e0d6): the same
test methods and expectations, rewritten against ``harness.tf``.  The original is Copyright 2015 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

from tests.tf_suites.harness import TestCase, tf

_CLUSTER = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]}
_SUN_MOON = {"sun": ["sun0:2222", "sun1:2222", "sun2:2222"], "moon": ["moon0:2222", "moon1:2222"]}


class DeviceSetterTest(TestCase):

    def setUp(self):
        self._cluster_spec = tf.train.ClusterSpec(_CLUSTER)

    def _check_two_ps_tasks(self, setter, ps="/job:ps", worker="/job:worker"):
        with tf.device(setter):
            v = tf.Variable([1, 2])
            w = tf.Variable([2, 1])
            a = v + w
            self.assertDeviceEqual(ps + "/task:0", v.device)
            self.assertDeviceEqual(ps + "/task:0", v.initializer.device)
            self.assertDeviceEqual(ps + "/task:1", w.device)
            self.assertDeviceEqual(ps + "/task:1", w.initializer.device)
            self.assertDeviceEqual(worker, a.device)

    def testCPUOverride(self):
        with tf.device(tf.train.replica_device_setter(cluster=self._cluster_spec)):
            with tf.device("/cpu:0"):
                v = tf.Variable([1, 2])
            w = tf.Variable([2, 1])
            with tf.device("/cpu:0"):
                a = v + w
            self.assertDeviceEqual("/job:ps/task:0/cpu:0", v.device)
            self.assertDeviceEqual("/job:ps/task:0/cpu:0", v.initializer.device)
            self.assertDeviceEqual("/job:ps/task:1", w.device)
            self.assertDeviceEqual("/job:ps/task:1", w.initializer.device)
            self.assertDeviceEqual("/job:worker/cpu:0", a.device)

    def testResource(self):
        with tf.device(tf.train.replica_device_setter(cluster=self._cluster_spec)):
            v = tf.Variable([1, 2], use_resource=True)  # TF builds resource_variable_ops.ResourceVariable
            self.assertDeviceEqual("/job:ps/task:0", v.device)

    def testPS2TasksWithClusterSpecClass(self):
        self._check_two_ps_tasks(tf.train.replica_device_setter(cluster=self._cluster_spec))

    def testPS2TasksPinVariableToJob(self):
        with tf.device(tf.train.replica_device_setter(cluster=self._cluster_spec)):
            v = tf.Variable([1, 2])
            with tf.device("/job:moon"):
                w = tf.Variable([2, 1])
                with tf.device("/job:ps"):  # an explicit ps job still gets its task
                    x = tf.Variable([0, 1])
            a = v + w + x
            self.assertDeviceEqual("/job:ps/task:0", v.device)
            self.assertDeviceEqual("/job:ps/task:0", v.initializer.device)
            self.assertDeviceEqual("/job:moon", w.device)
            self.assertDeviceEqual("/job:moon", w.initializer.device)
            self.assertDeviceEqual("/job:ps/task:1", x.device)
            self.assertDeviceEqual("/job:ps/task:1", x.initializer.device)
            self.assertDeviceEqual("/job:worker", a.device)

    def testPS2TasksUseCpuForPS(self):
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, ps_device="/cpu:0")):
            v = tf.Variable([1, 2])
            with tf.device("/job:moon"):
                w = tf.Variable([2, 1])
            a = v + w
            self.assertDeviceEqual("/cpu:0", v.device)
            self.assertDeviceEqual("/cpu:0", v.initializer.device)
            self.assertDeviceEqual("/job:moon/cpu:0", w.device)
            self.assertDeviceEqual("/job:moon/cpu:0", w.initializer.device)
            self.assertDeviceEqual("/job:worker", a.device)

    def testPS2TasksNoMerging(self):
        with tf.device(tf.train.replica_device_setter(cluster=self._cluster_spec, merge_devices=False)):
            v = tf.Variable([1, 2])
            with tf.device("/job:ps"):  # without merging no task is assigned
                w = tf.Variable([2, 1])
            a = v + w
            self.assertDeviceEqual("/job:ps/task:0", v.device)
            self.assertDeviceEqual("/job:ps/task:0", v.initializer.device)
            self.assertDeviceEqual("/job:ps", w.device)
            self.assertDeviceEqual("/job:ps", w.initializer.device)
            self.assertDeviceEqual("/job:worker", a.device)

    def testPS2TasksWithClusterSpecDict(self):
        self._check_two_ps_tasks(tf.train.replica_device_setter(cluster=self._cluster_spec.as_dict()))

    def testPS2TasksWithClusterDef(self):
        self._check_two_ps_tasks(tf.train.replica_device_setter(cluster=self._cluster_spec.as_cluster_def()))

    def testPS2TasksWithDevice(self):
        cluster_spec = tf.train.ClusterSpec(_SUN_MOON)
        setter = tf.train.replica_device_setter(ps_device="/job:moon", worker_device="/job:sun",
                                                cluster=cluster_spec.as_cluster_def())
        self._check_two_ps_tasks(setter, ps="/job:moon", worker="/job:sun")

    def testPS2TasksWithCPUConstraint(self):
        cluster_spec = tf.train.ClusterSpec(_SUN_MOON)
        with tf.device(tf.train.replica_device_setter(ps_device="/job:moon/cpu:0", worker_device="/job:sun",
                                                      cluster=cluster_spec.as_cluster_def())):
            v = tf.Variable([1, 2])
            w = tf.Variable([2, 1])
            a = v + w
            self.assertDeviceEqual("/job:moon/task:0/cpu:0", v.device)
            self.assertDeviceEqual("/job:moon/task:0/cpu:0", v.initializer.device)
            self.assertDeviceEqual("/job:moon/task:1/cpu:0", w.device)
            self.assertDeviceEqual("/job:moon/task:1/cpu:0", w.initializer.device)
            self.assertDeviceEqual("/job:sun", a.device)
