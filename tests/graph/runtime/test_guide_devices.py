"""The TF1 variables guide's device examples, run in sessions on both backends: same placements, same errors.

The guide pins variables to "/cpu:0", "/gpu:0" and "/job:ps/task:7", and places them with
``replica_device_setter`` over a ps/worker cluster.  A local Session refuses what it has no device for;
soft placement moves the GPU variable to the CPU but never a job's; a cluster of in-process servers
(real gRPC servers in TensorFlow) runs the replica_device_setter example and logs where each op went.
"""

import socket

import pytest

import graph.compat.v1 as ours
from tests.graph.test_guide import DEVICE_PLACEMENT

REPLICA_DEVICE_SETTER = '''
with tf.device(tf.train.replica_device_setter(cluster=cluster_spec)):
  v = tf.get_variable("v", shape=[20, 20])  # this variable is placed
                                            # in the parameter server
                                            # by the replica_device_setter
  w = tf.get_variable("w", shape=[20, 20])
  y = tf.matmul(v, w, name="y")
'''


def _run_snippet(tf, snippet, config, target="", extra=None, capfd=None):
    namespace = {"tf": tf, **(extra or {})}
    with tf.Graph().as_default():
        exec(snippet, namespace)  # noqa: S102 - the guide's code
        fetch = [v.initializer for v in tf.global_variables()]
        if capfd is not None:
            capfd.readouterr()
        try:
            with tf.Session(target, config=tf.ConfigProto(**config)) as sess:
                sess.run(fetch)
                result = ("ran", [v.device for v in tf.global_variables()])
        except tf.errors.OpError as error:
            result = (type(error).__name__, [line for line in error.message.split("\n")
                                             if line.startswith("Cannot assign")])
    return result, capfd.readouterr().out if capfd is not None else None


@pytest.mark.tf
@pytest.mark.parametrize("config", [{}, {"allow_soft_placement": True}, {"device_count": {"CPU": 2}}],
                         ids=["local", "soft", "two_cpus"])
def test_guide_pins_in_a_local_session_as_tensorflow(tf_module, config):
    assert _run_snippet(ours, DEVICE_PLACEMENT, config) == _run_snippet(tf_module, DEVICE_PLACEMENT, config)


@pytest.mark.tf
def test_guide_pins_cpu_only_run_locally(tf_module):
    snippet = DEVICE_PLACEMENT.split("# Pin a variable to GPU.")[0]
    expected = _run_snippet(tf_module, snippet, {})
    assert expected == (("ran", ["/device:CPU:0"]), None)
    assert _run_snippet(ours, snippet, {}) == expected


def _ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("localhost", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def _cluster_run(tf, capfd):
    ports = iter(_ports(5))
    cluster_spec = {"ps": [f"localhost:{next(ports)}" for _ in range(2)],
                    "worker": [f"localhost:{next(ports)}" for _ in range(3)]}
    servers = [tf.train.Server(cluster_spec, job_name=job, task_index=index)
               for job in ("ps", "worker") for index in range(len(cluster_spec[job]))]
    worker0 = servers[2]
    result, log = _run_snippet(tf, REPLICA_DEVICE_SETTER, {"log_device_placement": True}, worker0.target,
                               {"cluster_spec": cluster_spec}, capfd)
    return result, log


@pytest.mark.tf
def test_guide_replica_device_setter_on_a_cluster_as_tensorflow(tf_module, capfd):
    expected = _cluster_run(tf_module, capfd)
    actual = _cluster_run(ours, capfd)
    assert actual == expected
    assert expected[0] == ("ran", ["/job:ps/task:0", "/job:ps/task:1"])
    assert "v: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0\n" in actual[1]
