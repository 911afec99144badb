"""Tests for graph/variable_scope.py and graph/partitioning.py: get_variable, scopes, reuse, partitions."""

import types

import numpy as np
import pytest

from graph.proto.framework import SaveSliceInfoDef
from graph.base import dtypes
from graph.ops import math_ops
from graph.ops import constant_ops as ops
from graph.ops import reduction_ops
from graph.core import graph as graph_lib
from graph.variables import initializers as init_ops
from graph.variables import partitioned_variables
from graph.variables import partitioning
from graph.runtime import session as session_lib
from graph.variables import variable_scope as vs
from graph.variables import variables
from graph.variables import variable_collections
from graph.core.graph import GraphKeys
from tests.graph.graph_oracle import describe_placed

_ATTRS = ("dtype", "T", "seed", "seed2", "validate_shape", "use_locking", "N", "_class", "container",
          "shared_name")


def describe(graph) -> list:
    """Ops as comparable rows, with the attrs in ``_ATTRS`` (see graph_oracle.describe_placed)."""
    return describe_placed(graph, _ATTRS)


# The names the scripts below use, backed by this package; each script runs against it and real TensorFlow.
ours = types.SimpleNamespace(
    Graph=graph_lib.Graph, Session=session_lib.Session, GraphKeys=GraphKeys, constant=ops.constant,
    get_variable=vs.get_variable, get_local_variable=vs.get_local_variable, variable_scope=vs.variable_scope,
    get_variable_scope=vs.get_variable_scope, AUTO_REUSE=vs.AUTO_REUSE, name_scope=graph_lib.name_scope,
    device=graph_lib.device, convert_to_tensor=graph_lib.convert_to_tensor, float32=dtypes.float32,
    float64=dtypes.float64, int32=dtypes.int32, complex64=dtypes.complex64, string=dtypes.string,
    zeros_initializer=init_ops.zeros_initializer, ones_initializer=init_ops.ones_initializer,
    constant_initializer=init_ops.constant_initializer,
    truncated_normal_initializer=init_ops.truncated_normal_initializer,
    fixed_size_partitioner=partitioning.fixed_size_partitioner,
    variable_axis_size_partitioner=partitioning.variable_axis_size_partitioner,
    min_max_variable_partitioner=partitioning.min_max_variable_partitioner,
    global_variables=variable_collections.global_variables, trainable_variables=variable_collections.trainable_variables,
    local_variables=variable_collections.local_variables, get_collection=graph_lib.get_collection,
    global_variables_initializer=variable_collections.global_variables_initializer, Variable=variables.Variable)


@pytest.fixture
def graph():
    with graph_lib.Graph().as_default() as g:
        yield g


def run(graph, fetches):
    with session_lib.Session(graph=graph) as sess:
        sess.run(variable_collections.global_variables_initializer())
        return sess.run(fetches)


# ----------------------------------------------------------------- get_variable and reuse
def test_default_initializers(graph):
    w = vs.get_variable("w", [3, 2])
    assert graph.get_operation_by_name("w/Initializer/random_uniform").type == "AddV2"
    assert w.initial_value.name == "w/Initializer/random_uniform:0"
    n = vs.get_variable("n", [2], dtype=dtypes.int32)
    assert graph.get_operation_by_name("n/Initializer/zeros").type == "Const"
    values = run(graph, [w, n])
    assert np.abs(values[0]).max() <= np.sqrt(6.0 / 5.0) and values[1].tolist() == [0, 0]
    with pytest.raises(ValueError, match="An initializer for variable c of <dtype: 'complex64'> is required"):
        vs.get_variable("c", [2], dtype=dtypes.complex64)
    with pytest.raises(ValueError, match="Variable x did not get an initializer, so its `shape` argument must be "
                                         "specified."):
        vs.get_variable("x")


def test_reuse_modes_and_messages(graph):
    with vs.variable_scope("s"):
        v = vs.get_variable("v", [1])
    with vs.variable_scope("s", reuse=True):
        assert vs.get_variable("v", [1]) is v and vs.get_variable("v") is v
    with vs.variable_scope("s") as scope:
        scope.reuse_variables()
        assert vs.get_variable("v") is v
    with vs.variable_scope("s", reuse=vs.AUTO_REUSE):
        assert vs.get_variable("v", [1]) is v
        assert vs.get_variable("fresh", [2]).name == "s/fresh:0"
    with pytest.raises(ValueError, match=r"^Variable s/v already exists, disallowed. Did you mean to set "
                                         r"reuse=True or reuse=tf.AUTO_REUSE in VarScope\? Originally defined at:"
                                         r"\n\n.*test_variable_scope.py"):
        with vs.variable_scope("s"):
            vs.get_variable("v", [1])
    with pytest.raises(ValueError, match=r"^Variable s/u does not exist, or was not created with "
                                         r"tf.get_variable\(\). Did you mean to set reuse=tf.AUTO_REUSE in "
                                         r"VarScope\?$"):
        with vs.variable_scope("s", reuse=True):
            vs.get_variable("u", [1])
    with pytest.raises(ValueError, match=r"Trying to share variable s/v, but specified shape \(2,\) and found "
                                         r"shape \(1,\)."):
        with vs.variable_scope("s", reuse=True):
            vs.get_variable("v", [2])
    with pytest.raises(ValueError, match="Trying to share variable s/v, but specified dtype float64 and found "
                                         "dtype float32_ref."):
        with vs.variable_scope("s", reuse=True):
            vs.get_variable("v", dtype=dtypes.float64)


def test_reuse_is_inherited_and_false_means_inherit(graph):
    with vs.variable_scope("a"):
        with vs.variable_scope("b"):
            w = vs.get_variable("w", [1])
    with vs.variable_scope("a", reuse=True):
        with vs.variable_scope("b", reuse=False):
            assert vs.get_variable_scope().reuse is True
            assert vs.get_variable("w") is w
    with pytest.raises(ValueError, match="The reuse parameter must be True or False or None."):
        vs.variable_scope("a", reuse="yes")
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with vs.variable_scope(None, default_name="d", reuse=True):
            pass
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is required"):
        vs.variable_scope(None)


def test_name_scopes_are_uniquified_but_variables_shared(graph):
    with vs.variable_scope("layer") as scope:
        w = vs.get_variable("w", [1])
        first = ops.constant(1.0)
    with vs.variable_scope("layer", reuse=True):
        assert vs.get_variable("w") is w
        second = ops.constant(1.0)
    with vs.variable_scope(scope, reuse=True):
        third = ops.constant(1.0)
    with graph_lib.name_scope("ns"):
        with vs.variable_scope("inner"):
            x = vs.get_variable("x", [1])
            fourth = ops.constant(1.0)
    assert [first.name, second.name, third.name, fourth.name] == ["layer/Const:0", "layer_1/Const:0",
                                                                  "layer_2/Const:0", "ns/inner/Const:0"]
    assert x.name == "inner/x:0" and scope.original_name_scope == "layer/"
    with vs.variable_scope(None, default_name="block") as one:
        pass
    with vs.variable_scope(None, default_name="block") as two:
        pass
    assert (one.name, two.name) == ("block", "block_1")
    with vs.variable_scope("outer", auxiliary_name_scope=False) as outer:
        assert ops.constant(0).name == "Const:0" and outer.original_name_scope == ""


def test_scope_defaults_are_inherited(graph):
    regularized = []

    def regularizer(variable):
        regularized.append(variable.op.name)
        return reduction_ops.reduce_sum(variable)

    with vs.variable_scope("s", initializer=init_ops.constant_initializer(2.0), dtype=dtypes.float64,
                           regularizer=regularizer, caching_device="/cpu:0"):  # a device the local session has
        with vs.variable_scope("t"):
            w = vs.get_variable("w", [2])
            y = vs.get_variable("y", initializer=ops.constant([1, 2]))
    assert (w.dtype, y.dtype) == (dtypes.float64_ref, dtypes.int32_ref)
    assert w.value().device == "/device:CPU:0"
    losses = graph_lib.get_collection(GraphKeys.REGULARIZATION_LOSSES)
    assert [loss.op.name for loss in losses] == ["s/t/w/Regularizer/Sum", "s/t/y/Regularizer/Sum"]
    assert run(graph, [w, losses[0]])[0].tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape."):
        vs.get_variable("z", [2], initializer=ops.constant([1.0, 2.0]))


def test_custom_getters_chain(graph):
    calls = []

    def outer_getter(getter, name, *args, **kwargs):
        calls.append(("outer", name))
        return getter(name, *args, **kwargs)

    def inner_getter(getter, name, *args, **kwargs):
        calls.append(("inner", name))
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)

    with vs.variable_scope("a", custom_getter=outer_getter):
        with vs.variable_scope("b", custom_getter=inner_getter):
            v = vs.get_variable("v", [1])
    assert calls == [("inner", "a/b/v"), ("outer", "a/b/v")] and not v.trainable
    with pytest.raises(ValueError, match="Passed a custom_getter which is not callable: 3"):
        vs.get_variable("w", [1], custom_getter=3)


def test_local_variables_and_scope_collections(graph):
    with vs.variable_scope("s") as scope:
        local = vs.get_local_variable("counter", [], dtype=dtypes.int32)
        global_ = vs.get_variable("g", [1])
    assert variable_collections.local_variables() == [local] and not local.trainable
    assert scope.global_variables() == [global_] and scope.local_variables() == [local]
    assert scope.trainable_variables() == [global_]


# ----------------------------------------------------------------- partitions
def test_fixed_size_partitions_and_slice_infos(graph):
    with vs.variable_scope("scope"):
        p = vs.get_variable("w", [7, 2], partitioner=partitioning.fixed_size_partitioner(3),
                            initializer=init_ops.ones_initializer())
    assert isinstance(p, partitioning.PartitionedVariable) and (p.name, len(p)) == ("scope/w", 3)
    assert p._get_partitions() == [3, 1] and p.get_shape().as_list() == [7, 2] and p.dtype == dtypes.float32
    parts = list(p)
    assert [v.name for v in parts] == ["scope/w/part_0:0", "scope/w/part_1:0", "scope/w/part_2:0"]
    assert [v._save_slice_info.spec for v in parts] == ["7 2 0,3:0,2", "7 2 3,2:0,2", "7 2 5,2:0,2"]
    assert parts[1].to_proto().save_slice_info_def == SaveSliceInfoDef(
        full_name="scope/w", full_shape=[7, 2], var_offset=[3, 0], var_shape=[2, 2])
    assert p._get_variable_list() == parts and variable_collections.global_variables() == parts
    whole = graph_lib.convert_to_tensor(p)
    assert (whole.name, whole.op.inputs[0].op.name) == ("scope/w:0", "scope/w/ConcatPartitions/concat")
    assert run(graph, whole).tolist() == [[1.0, 1.0]] * 7
    with vs.variable_scope("scope", reuse=True):
        assert vs.get_variable("w") is p
        assert vs.get_variable("w", [7, 2], partitioner=partitioning.fixed_size_partitioner(3)) is p


def test_partition_from_tensor_and_size_partitioners(graph):
    r = vs.get_variable("r", initializer=ops.constant([1.0, 2.0, 3.0, 4.0, 5.0]),
                        partitioner=partitioning.fixed_size_partitioner(2))
    assert [v.shape.as_list() for v in r] == [[3], [2]]
    assert graph.get_operation_by_name("r/part_1/PartitionedInitializer/Slice").type == "Slice"
    q = vs.get_variable("q", [4, 9], partitioner=partitioning.variable_axis_size_partitioner(40, axis=1))
    assert [v.shape.as_list() for v in q] == [[4, 2]] * 4 + [[4, 1]]
    m = vs.get_variable("m", [4], partitioner=partitioning.min_max_variable_partitioner(3, min_slice_size=4))
    assert [v.shape.as_list() for v in m] == [[2], [1], [1]]
    capped = vs.get_variable("capped", [2, 3], partitioner=partitioning.fixed_size_partitioner(5))
    assert len(capped) == 2
    single = vs.get_variable("single", [6], partitioner=partitioning.fixed_size_partitioner(1))
    assert graph_lib.convert_to_tensor(single).op.type == "Identity"
    scalar = vs.get_variable("scalar", [], partitioner=partitioning.fixed_size_partitioner(2))
    assert isinstance(scalar, variables.Variable)
    assert run(graph, graph_lib.convert_to_tensor(r)).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_partitioned_assign_splits_the_value(graph):
    p = vs.get_variable("p", [5], partitioner=partitioning.fixed_size_partitioner(2),
                        initializer=init_ops.zeros_initializer())
    updates = p.assign(ops.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
    with session_lib.Session(graph=graph) as sess:
        sess.run(variable_collections.global_variables_initializer())
        sess.run(updates)
        assert sess.run(graph_lib.convert_to_tensor(p)).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_partition_errors(graph):
    vs.get_variable("plain", [4])
    with pytest.raises(ValueError, match="A partitioner was provided, but an unpartitioned version of the variable "
                                         "was found: plain."):
        vs.get_variable("plain", [4], partitioner=partitioning.fixed_size_partitioner(2))
    vs.get_variable("parted", [4], partitioner=partitioning.fixed_size_partitioner(2))
    with pytest.raises(ValueError, match="No partitioner was provided, but a partitioned version of the variable "
                                         "was found: parted/part_0."):
        vs.get_variable("parted", [4])
    with pytest.raises(ValueError, match="Partitioned variable with name parted already exists."):
        vs.get_variable("parted", [4], partitioner=partitioning.fixed_size_partitioner(2))
    with pytest.raises(ValueError, match="Can only slice a variable along one dimension"):
        vs.get_variable("two_axes", [4, 4], partitioner=lambda shape, dtype: [2, 2])
    with pytest.raises(ValueError, match="Partitioner returned a partition list that does not match"):
        vs.get_variable("bad_rank", [4, 4], partitioner=lambda shape, dtype: [2])
    with pytest.raises(ValueError, match="max_shards must be positive."):
        partitioning.variable_axis_size_partitioner(10, max_shards=-1)


def test_partition_info_slice_dim():
    info = partitioning._PartitionInfo(full_shape=[10, 4], var_offset=[5, 0])
    assert info.single_slice_dim([5, 4]) == 0 and info.single_offset([5, 4]) == 5
    with pytest.raises(ValueError, match="would exceed"):
        info.single_slice_dim([6, 4])
    with pytest.raises(ValueError, match="Expected 0 <= offset < shape"):
        partitioning._PartitionInfo(full_shape=[10], var_offset=[10])


def test_create_partitioned_variables(graph):
    parts = partitioned_variables.create_partitioned_variables([4, 2], [2, 1], init_ops.ones_initializer(), name="cpv")
    assert [v.name for v in parts] == ["cpv/part_0:0", "cpv/part_1:0"]


# ----------------------------------------------------------------- against TensorFlow
def _scope_script(tf):
    with tf.device("/job:ps/task:0"):
        tf.get_variable("w", [3, 2])
    with tf.variable_scope("s", initializer=tf.constant_initializer(2.0), dtype=tf.float64):
        tf.get_variable("x", [2])
        tf.get_variable("y", initializer=tf.constant([1, 2]))
        tf.get_variable("z", [2], dtype=tf.int32, initializer=tf.zeros_initializer())
    with tf.variable_scope("s", reuse=True):
        tf.get_variable("x", dtype=tf.float64)
        tf.constant(1.0)
    with tf.variable_scope("s") as scope:
        tf.constant(1.0)
    with tf.variable_scope(scope):
        tf.constant(1.0)
    with tf.variable_scope(None, default_name="d"):
        tf.get_variable("v", [1], initializer=tf.truncated_normal_initializer(seed=4))
    with tf.variable_scope(None, default_name="d"):
        tf.constant(1)
    with tf.name_scope("ns"), tf.variable_scope("vs"):
        tf.get_local_variable("local", [2], initializer=tf.zeros_initializer())
    with tf.variable_scope("p"):
        tf.get_variable("w", [7, 2], partitioner=tf.fixed_size_partitioner(3), initializer=tf.ones_initializer())
    tf.get_variable("r", initializer=tf.constant([1.0, 2, 3, 4, 5]), partitioner=tf.fixed_size_partitioner(2))
    tf.get_variable("q", [4, 9], partitioner=tf.variable_axis_size_partitioner(40, axis=1))
    tf.get_variable("m", [4], partitioner=tf.min_max_variable_partitioner(max_partitions=3, min_slice_size=4))
    collections = {key: [v.name for v in tf.get_collection(key)] for key in
                   (tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.TRAINABLE_VARIABLES, tf.GraphKeys.LOCAL_VARIABLES)}
    specs = [v._save_slice_info.spec for v in tf.global_variables() if v._save_slice_info]
    return collections, specs


@pytest.mark.tf
def test_ops_collections_and_specs_match_tensorflow(tf_module):
    results = []
    for tf in (ours, tf_module):
        graph = tf.Graph()
        with graph.as_default():
            extra = _scope_script(tf)
        results.append((describe(graph), extra))
    assert results[0][1] == results[1][1]
    assert results[0][0] == results[1][0]


@pytest.mark.tf
def test_partition_concat_matches_tensorflow(tf_module):
    described = []
    for tf in (ours, tf_module):
        graph = tf.Graph()
        with graph.as_default():
            p = tf.get_variable("w", [5, 3], partitioner=tf.fixed_size_partitioner(2, axis=1))
            whole = tf.convert_to_tensor(p)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                shape = sess.run(whole).shape
            described.append((describe(graph), whole.name, shape, [v._save_slice_info.spec for v in p]))
    assert described[0] == described[1]


@pytest.mark.tf
def test_error_messages_match_tensorflow(tf_module):
    def attempts(tf):
        messages = []
        tf.get_variable("v", [1])
        tf.get_variable("parted", [4], partitioner=tf.fixed_size_partitioner(2))
        for build in (lambda: tf.get_variable("v", [1]),
                      lambda: tf.get_variable("x"),
                      lambda: tf.get_variable("c", [2], dtype=tf.complex64),
                      lambda: tf.get_variable("k", [2], initializer=tf.constant([1.0, 2.0])),
                      lambda: tf.get_variable("k", initializer=[1, 2], dtype=tf.float32),
                      lambda: tf.get_variable("parted", [4]),
                      lambda: tf.get_variable("v", [4], partitioner=tf.fixed_size_partitioner(2)),
                      lambda: tf.get_variable("parted", [4], partitioner=tf.fixed_size_partitioner(2)),
                      lambda: tf.get_variable("two", [4, 4], partitioner=lambda shape, dtype: [2, 2]),
                      lambda: tf.get_variable("rank", [4, 4], partitioner=lambda shape, dtype: [2]),
                      lambda: tf.get_variable("zero", [4], partitioner=lambda shape, dtype: [0]),
                      lambda: tf.variable_scope("a", reuse="yes"),
                      lambda: tf.variable_scope(None)):
            try:
                build()
            except (ValueError, TypeError) as error:
                messages.append((type(error).__name__, str(error).split(" Originally defined at:")[0]))
        with tf.variable_scope("", reuse=True):
            for build in (lambda: tf.get_variable("u", [1]), lambda: tf.get_variable("v", [2]),
                          lambda: tf.get_variable("v", [1], dtype=tf.float64),
                          lambda: tf.get_variable("p2", [4], partitioner=tf.fixed_size_partitioner(2))):
                try:
                    build()
                except (ValueError, TypeError) as error:
                    messages.append((type(error).__name__, str(error)))
        return messages
    results = []
    for tf in (ours, tf_module):
        with tf.Graph().as_default():
            results.append(attempts(tf))
    assert len(results[0]) == 17
    assert results[0] == results[1]
