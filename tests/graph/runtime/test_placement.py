"""Placement against a session's devices (graph/runtime/placement.py): TF's errors, soft placement, logging.

Each case runs on both backends: the run's value or the error's class and message must be TensorFlow's.
"""

import numpy as np
import pytest

import graph.compat.v1 as ours


def _pinned(device):
    def build(tf):
        with tf.device(device):
            return tf.add(tf.constant(1.0), 1.0, name="add")
    return build


def _unfetched_bad_op(tf):
    with tf.device("/job:ps/task:7"):
        tf.add(tf.constant(1.0), 1.0, name="bad")  # never fetched: TF places the whole graph
    return tf.constant(1.0) + 1.0


def _variable_on_ps(tf):
    with tf.device("/job:ps/task:7"):
        return tf.Variable(1.0, name="v").initializer


def _colocated_with_bad(tf):
    with tf.device("/job:ps/task:7"):
        a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        return tf.add(a, 1.0, name="b")


def _full_local_name(tf):
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        a = tf.constant(2.0)
    with tf.device("/job:localhost"):
        return a * 3.0


SOFT = {"allow_soft_placement": True}
TWO_CPUS = {"device_count": {"CPU": 2}}
CASES = {
    "ps_task": (_pinned("/job:ps/task:7"), {}),
    "ps_task_soft": (_pinned("/job:ps/task:7"), SOFT),  # soft placement never changes the task
    "cpu1": (_pinned("/device:CPU:1"), {}),
    "cpu1_soft": (_pinned("/device:CPU:1"), SOFT),
    "cpu1_two_cpus": (_pinned("/cpu:1"), TWO_CPUS),
    "cpu0": (_pinned("/cpu:0"), {}),
    "gpu": (_pinned("/device:GPU:0"), {}),
    "gpu_soft": (_pinned("/gpu:0"), SOFT),
    "task1_soft": (_pinned("/job:localhost/task:1"), SOFT),
    "replica1": (_pinned("/replica:1"), {}),
    "xla_cpu": (_pinned("/job:localhost/replica:0/task:0/device:XLA_CPU:0"), {}),
    "two_cpus_listed": (_pinned("/job:ps/task:7"), TWO_CPUS),
    "unfetched": (_unfetched_bad_op, {}),
    "variable": (_variable_on_ps, {}),
    "colocated": (_colocated_with_bad, {}),
    "full_local_name": (_full_local_name, {}),
}


def _outcome(tf, build, config):
    with tf.Graph().as_default():
        fetch = build(tf)
        try:
            with tf.Session(config=tf.ConfigProto(**config)) as sess:
                return "value", sess.run(fetch)
        except tf.errors.OpError as error:
            lines = [line for line in error.message.split("\n") if line.startswith("Cannot assign")]
            return type(error).__name__, lines[-1]


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_placement_matches_tensorflow(tf_module, name):
    build, config = CASES[name]
    assert _outcome(ours, build, config) == _outcome(tf_module, build, config)


def _logged(tf, capsys):
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        with tf.device("/cpu:0"):
            y = tf.multiply(v, 2.0, name="y")
        z = tf.add(y, 1.0, name="z")
        chunks = []
        with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
            for fetch in (v.initializer, z, "new"):
                if fetch == "new":
                    fetch = tf.identity(z, name="w")
                capsys.readouterr()
                sess.run(fetch)
                chunks.append(capsys.readouterr().out)
    return chunks


@pytest.mark.tf
def test_log_device_placement_prints_tensorflows_lines(tf_module, capfd):
    # TF's placer prints with printf: read file descriptor 1 for both
    expected = _logged(tf_module, capfd)
    actual = _logged(ours, capfd)
    assert actual == expected
    assert actual[1] == "" and actual[0].startswith("v: (VariableV2): /job:localhost/replica:0/task:0/device:CPU:0\n")


def test_placement_is_checked_once_per_graph_change():
    with ours.Graph().as_default() as graph:
        x = ours.constant(1.0) + 1.0
        with ours.Session() as sess:
            sess.run(x)
            placed = sess._placed_count
            assert placed == len(graph.get_operations())
            sess.run(x)
            assert sess._placed_count == placed
            with ours.device("/job:nowhere"):
                bad = ours.identity(x, name="bad")
            for _ in range(2):  # the failure stays until the graph is valid, as TF's
                with pytest.raises(ours.errors.InvalidArgumentError, match="operation bad: .* /job:nowhere but"):
                    sess.run(x)
            bad.op._set_device("")
            np.testing.assert_array_equal(sess.run(bad), 2.0)
