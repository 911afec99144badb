"""Tests for graph/train/device_setter.py: ClusterSpec and replica_device_setter; real TF as oracle."""

import contextlib
import logging

import pytest

from graph.core import device
from graph.core.device import apply_device_stack
from graph.train.device_setter import STANDARD_PS_OPS, ClusterSpec, replica_device_setter
from tests.graph.core.test_device import FakeOp, place


# ---------------------------------------------------------------- ClusterSpec and replica_device_setter

def test_cluster_spec():
    cluster = ClusterSpec({"worker": ["w0:1", "w1:1"], "ps": {0: "p0:1", "3": "p3:1"}, "empty": []})
    assert cluster.jobs == ["worker", "ps", "empty"]
    assert cluster.num_tasks("ps") == 2 and cluster.task_indices("ps") == [0, 3]
    assert cluster.as_dict() == {"worker": ["w0:1", "w1:1"], "ps": {0: "p0:1", 3: "p3:1"}, "empty": {}}
    assert cluster.job_tasks("ps") == ["p0:1", None, None, "p3:1"]
    assert ClusterSpec(cluster).jobs == ["empty", "ps", "worker"]
    assert ClusterSpec(cluster) == cluster and bool(cluster) and not ClusterSpec({})
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        cluster.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 1 in job 'ps'"):
        cluster.task_address("ps", 1)
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        ClusterSpec({"ps": "p0:1"})
    with pytest.raises(TypeError, match="must be a dictionary mapping"):
        ClusterSpec(["ps"])


def test_standard_ps_ops():
    assert len(STANDARD_PS_OPS) == 14
    assert {"Variable", "VariableV2", "VarHandleOp", "MutableHashTableV2", "DecisionTreeResource"} <= set(
        STANDARD_PS_OPS)


def test_replica_device_setter_round_robin():
    setter = replica_device_setter(ps_tasks=3)
    types = ["VariableV2", "Const", "VariableV2", "Identity", "VarHandleOp", "VariableV2", "Assign"]
    placed = [setter(FakeOp(f"op{i}", t)) for i, t in enumerate(types)]
    assert placed == ["/job:ps/task:0", "/job:worker", "/job:ps/task:1", "/job:worker", "/job:ps/task:2",
                      "/job:ps/task:0", "/job:worker"]


def test_replica_device_setter_merges_with_op_device():
    setter = replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:4/cpu:0")
    assert setter(FakeOp("a", "Const", "/gpu:1")) == "/job:worker/task:4/device:GPU:1"
    # An op already on ps task 5: the strategy still advances (0 is consumed), the op's task wins.
    assert setter(FakeOp("v", "VariableV2", "/job:ps/task:5")) == "/job:ps/task:5"
    assert setter(FakeOp("w", "VariableV2")) == "/job:ps/task:1"
    # Another job: no task is chosen, the ps job is overridden by the op's.
    assert setter(FakeOp("x", "VariableV2", "/job:other")) == "/job:other"
    assert setter(FakeOp("y", "VariableV2", "/cpu:0")) == "/job:ps/task:0/device:CPU:0"


def test_replica_device_setter_options(caplog):
    assert replica_device_setter() is None
    assert replica_device_setter(cluster={"worker": ["w:1"]}) is None
    assert place(["/job:a", replica_device_setter(ps_tasks=0)]) == ""   # device(None): a stack reset
    with caplog.at_level(logging.WARNING, logger=device.__name__):
        keep = replica_device_setter(ps_tasks=2, merge_devices=False)
    assert "merge_devices=true" in caplog.text
    assert keep(FakeOp("a", "VariableV2", "/gpu:0")) == "/gpu:0"
    assert keep(FakeOp("b", "VariableV2")) == "/job:ps/task:0"
    cluster = replica_device_setter(cluster={"ps": ["p0", "p1"], "worker": ["w0"]})
    assert [cluster(FakeOp(n, "VariableV2")) for n in "abc"] == ["/job:ps/task:0", "/job:ps/task:1",
                                                                 "/job:ps/task:0"]
    custom = replica_device_setter(ps_tasks=4, ps_ops=["Const"], ps_strategy=lambda op: 3,
                                   ps_device="/job:ps/device:GPU:0", worker_device="")
    assert custom(FakeOp("c", "Const")) == "/job:ps/task:3/device:GPU:0"
    assert custom(FakeOp("v", "VariableV2")) == ""
    assert replica_device_setter(ps_tasks=2, ps_device="")(FakeOp("v", "VariableV2")) == "/job:worker"
    jobless = replica_device_setter(ps_tasks=2, ps_device="/cpu:0")
    assert jobless(FakeOp("v", "VariableV2")) == "/device:CPU:0"        # no ps job: no task chosen
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_replica_device_setter_reads_node_def_op():
    class NodeDefLike:
        op, device, name = "VariableV2", "", "n"

    assert replica_device_setter(ps_tasks=1)(NodeDefLike()) == "/job:ps/task:0"



def run_setter_program(mode, tf1, make_setter):
    """Builds one op sequence under replica_device_setter scopes, in TF or in emulation; returns name -> device.

    Ops that TF colocates with a variable (its Assign / read, an Assign on a ref) take no part in device
    functions and are left out of the emulation.
    """
    stack, placed = [], {}

    @contextlib.contextmanager
    def scope(entry):
        if mode == "tf":
            with tf1.device(entry):
                yield
        else:
            stack.append(entry)
            yield
            stack.pop()

    def make(kind, name):
        if mode == "tf":
            if kind == "Variable":
                tf1.Variable(1.0, name=name)
            elif kind == "Const":
                tf1.constant(1.0, name=name)
            elif kind == "Identity":
                tf1.identity(tf1.constant(1.0, name=name + "_in"), name=name)
            elif kind == "VarHandleOp":
                tf1.raw_ops.VarHandleOp(dtype=tf1.float32, shape=[], name=name)
            elif kind == "MutableHashTableV2":
                tf1.raw_ops.MutableHashTableV2(key_dtype=tf1.string, value_dtype=tf1.int64, name=name)
            elif kind == "AssignVariableOp":
                handle = tf1.raw_ops.VarHandleOp(dtype=tf1.float32, shape=[], name=name + "_h")
                tf1.raw_ops.AssignVariableOp(resource=handle, value=tf1.constant(1.0, name=name + "_v"),
                                             name=name)
            return
        ops = {"Variable": [(name + "/initial_value", "Const"), (name, "VariableV2")],
               "Identity": [(name + "_in", "Const"), (name, "Identity")],
               "AssignVariableOp": [(name + "_h", "VarHandleOp"), (name + "_v", "Const"),
                                    (name, "AssignVariableOp")]}.get(kind, [(name, kind)])
        for op_name, op_type in ops:
            op = FakeOp(op_name, op_type)
            apply_device_stack(op, stack)
            placed[op_name] = op.device

    setter = make_setter()
    with scope(setter):
        make("Variable", "v0")
        make("Const", "c0")
        make("Variable", "v1")
        make("VarHandleOp", "h0")
        make("Identity", "i0")
        with scope("/job:ps/task:5"):
            make("Variable", "v2")
        with scope("/cpu:0"):
            make("Variable", "v3")
            make("Const", "c1")
        with scope("/job:other/gpu:1"):
            make("Variable", "v4")
        make("MutableHashTableV2", "t0")
        make("AssignVariableOp", "a0")
        with scope(None):
            make("Variable", "v5")
        make("Variable", "v6")
    with scope("/job:worker/task:3"), scope(setter):
        make("Variable", "v7")
        make("Const", "c2")
    if mode == "tf":
        return {op.name: op.device for op in tf1.get_default_graph().get_operations()}
    return placed


SETTER_CONFIGS = [
    dict(ps_tasks=3),
    dict(ps_tasks=2, worker_device="/job:worker/task:1/cpu:0", ps_device="/job:ps/device:CPU:0"),
    dict(ps_tasks=2, merge_devices=False),
    dict(cluster={"ps": ["p0:1", "p1:1"], "worker": ["w0:1"]}),
    dict(ps_tasks=2, ps_ops=["Const", "VariableV2"]),
    dict(ps_tasks=2, ps_device=""),
]


@pytest.mark.tf
def test_replica_device_setter_matches_tensorflow(tf1):
    for config in SETTER_CONFIGS:
        with tf1.Graph().as_default():
            theirs = run_setter_program("tf", tf1, lambda: tf1.train.replica_device_setter(**config))
        ours = run_setter_program("ours", tf1, lambda: replica_device_setter(**config))
        assert ours == {name: theirs[name] for name in ours}, config
        assert len(ours) == 26
