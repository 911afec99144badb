"""Tests for graph/testing/local_cluster.py: tf.test.create_local_cluster's servers share one cluster's variables."""

import graph.compat.v1 as tf


def test_workers_and_ps_form_one_cluster():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    assert len(workers) == 2 and len(ps_servers) == 1
    ports = [int(server.target.rsplit(":", 1)[1]) for server in workers + ps_servers]
    assert len(set(ports)) == 3 and all(port > 10000 for port in ports)
    assert [server.server_def.job_name for server in workers + ps_servers] == ["worker", "worker", "ps"]
    assert [server.server_def.task_index for server in workers + ps_servers] == [0, 1, 0]
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            counter = tf.Variable(0, name="counter")
        with tf.device("/job:worker/task:1"):
            increment = tf.assign_add(counter, 1)
        first = tf.Session(workers[0].target)
        second = tf.Session(workers[1].target)
        first.run(counter.initializer)
        first.run(increment)
        assert second.run(increment) == 2  # the variable lives on the ps task, shared by the workers' sessions
        assert {device.name for device in second.list_devices()} == {
            "/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:1/device:CPU:0",
            "/job:ps/replica:0/task:0/device:CPU:0"}


def test_configs_reach_the_servers():
    workers, ps_servers = tf.test.create_local_cluster(
        1, 1, worker_config=tf.ConfigProto(allow_soft_placement=True),
        ps_config=tf.ConfigProto(log_device_placement=False, isolate_session_state=True))
    assert workers[0].server_def.default_session_config.allow_soft_placement
    assert ps_servers[0].server_def.default_session_config.isolate_session_state
    assert workers[0].server_def.protocol == "grpc"
