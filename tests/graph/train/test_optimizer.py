"""Tests for graph/train/optimizer.py and slot_creator.py: minimize with real gradients, errors, slots,
devices, partitioned and unknown-shape variables, all against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.core.indexed_slices import IndexedSlices
from graph.train import optimizer as optimizer_lib
from saver import Saver
from tests.graph.train import optimizer_oracle as oracle

X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.25], [2.0, 1.0]], np.float32)
Y = np.array([[1.0], [-0.5], [0.75], [2.0]], np.float32)
IDS = np.array([1, 3, 1, 0], np.int32)


def _linear(tf, make_optimizer, sparse=False):
    """A linear model trained by minimize(); with ``sparse``, rows of an embedding are gathered (IndexedSlices)."""
    with tf.variable_scope("layer1"):
        w = tf.get_variable("weights", initializer=np.array([[0.1], [-0.2]], np.float32))
        b = tf.get_variable("bias", initializer=np.zeros([1], np.float32))
    step = tf.train.get_or_create_global_step()
    inputs = tf.constant(X, name="x")
    if sparse:
        table = tf.get_variable("embedding", initializer=np.arange(8, dtype=np.float32).reshape(4, 2) / 4)
        inputs = inputs * tf.gather(table, tf.constant(IDS, name="ids"))
    loss = tf.reduce_mean(tf.square(tf.matmul(inputs, w) + b - tf.constant(Y, name="y")))
    optimizer = make_optimizer(tf)
    train = optimizer.minimize(loss, global_step=step)
    return {"loss": loss, "train": train, "step": step, "optimizer": optimizer}


MINIMIZE = [
    pytest.param(lambda tf: tf.train.GradientDescentOptimizer(0.1), id="sgd"),
    pytest.param(lambda tf: tf.train.AdamOptimizer(0.05), id="adam"),
    pytest.param(lambda tf: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True), id="nesterov"),
    pytest.param(lambda tf: tf.train.RMSPropOptimizer(0.01, momentum=0.2, centered=True), id="rmsprop"),
    pytest.param(lambda tf: tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.001), id="ftrl"),
]


@pytest.mark.tf
@pytest.mark.parametrize("make", MINIMIZE)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "gather"])
def test_minimize_matches_tensorflow(tf1, make, sparse):
    theirs = _linear(tf1, make, sparse)
    with ours.Graph().as_default() as graph:
        mine = _linear(ours, make, sparse)
        our_variables = ours.global_variables()
    tf_graph = tf1.get_default_graph()
    # The optimizer's part of the graph (everything past the gradients) is TF's, op for op.
    ops = [row for row in oracle.op_rows(graph, oracle.our_class) if not row[0].startswith("gradients/")]
    tf_ops = [row for row in oracle.op_rows(tf_graph, oracle.tf_class) if not row[0].startswith("gradients/")]
    assert ops == tf_ops
    assert oracle.variable_rows(our_variables) == oracle.variable_rows(tf1.global_variables())
    with tf1.Session(graph=tf_graph) as tf_sess, ours.Session(graph=graph) as sess:
        tf_sess.run(tf1.global_variables_initializer())
        with graph.as_default():
            sess.run(ours.global_variables_initializer())
        np.testing.assert_allclose(oracle.train(sess, mine, 5), oracle.train(tf_sess, theirs, 5), rtol=1e-5)
        oracle.assert_same_values(oracle.values(sess, our_variables), oracle.values(tf_sess, tf1.global_variables()))


def _message(build, tf):
    with pytest.raises(Exception) as caught:
        build(tf)
    return type(caught.value).__name__, str(caught.value)


@pytest.mark.tf
@pytest.mark.parametrize("build", [
    pytest.param(lambda tf: tf.train.GradientDescentOptimizer(0.1).apply_gradients([]), id="no_pairs"),
    pytest.param(lambda tf: tf.train.GradientDescentOptimizer(0.1).apply_gradients(
        [(None, tf.Variable([1.0], name="w"))]), id="no_gradient"),
    pytest.param(lambda tf: tf.train.AdamOptimizer(0.1).minimize(
        tf.constant(1.0) + 0 * tf.cast(tf.Variable(1, name="i"), tf.float32), var_list=[tf.Variable(2.0)]),
        id="unconnected_loss"),
    pytest.param(lambda tf: tf.train.AdamOptimizer(0.1).compute_gradients(tf.constant(1.0), var_list=[]),
                 id="no_variables"),
    pytest.param(lambda tf: tf.train.AdamOptimizer(0.1).compute_gradients(tf.constant(1.0), gate_gradients=5),
                 id="bad_gate"),
    pytest.param(lambda tf: tf.train.Optimizer(False, ""), id="no_name"),
    pytest.param(lambda tf: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0), id="adagrad_init"),
    pytest.param(lambda tf: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5), id="ftrl_power"),
])
def test_errors_match_tensorflow(tf1, build):
    with ours.Graph().as_default():
        assert _message(build, ours) == _message(build, tf1)


@pytest.mark.tf
def test_invalid_dtype_is_named(tf1):
    def build(tf):
        return tf.train.AdamOptimizer(0.1).compute_gradients(tf.constant(1, name="count"), var_list=[tf.Variable(2.0)])
    with ours.Graph().as_default():
        kind, message = _message(build, ours)
    tf_kind, tf_message = _message(build, tf1)
    assert kind == tf_kind == "ValueError"
    # TF lists its valid dtypes in set order; the part before the list is what identifies the fault.
    assert message.split("expected:")[0] == tf_message.split("expected:")[0] == "Invalid type tf.int32 for count:0, "


def _slots_and_devices(tf):
    with tf.device("/job:ps/task:1"):
        z = tf.Variable([1.0, 2.0], name="z")
    with tf.device("/job:ps/task:0"):
        a = tf.Variable([[3.0]], name="a")
        unknown = tf.Variable(tf.zeros([2, 3]), validate_shape=False, name="unknown")
    with tf.device("/job:worker"):
        optimizer = tf.train.AdamOptimizer(0.1)
        train = optimizer.apply_gradients([(tf.constant([0.5, 0.5]), z), (tf.constant([[1.0]]), a),
                                           (tf.ones([2, 3]), unknown)], name="step")
    return optimizer, train, (z, a, unknown)


@pytest.mark.tf
def test_slots_devices_and_unknown_shapes_match_tensorflow(tf1):
    tf_optimizer, tf_train, tf_vars = _slots_and_devices(tf1)
    with ours.Graph().as_default() as graph:
        optimizer, train, variables = _slots_and_devices(ours)
        names = [v.name for v in optimizer.variables()]
    rows = [(op.name, op.type, op.device, oracle.our_class(op)) for op in graph.get_operations()]
    tf_rows = [(op.name, op.type, op.device, oracle.tf_class(op)) for op in tf1.get_default_graph().get_operations()]
    assert rows == tf_rows
    # beta powers sit with 'a', the first variable by name, though 'z' was created first.
    assert names == [v.name for v in tf_optimizer.variables()]
    assert optimizer.get_slot_names() == tf_optimizer.get_slot_names() == ["m", "v"]
    assert optimizer.get_slot(variables[0], "m").name == tf_optimizer.get_slot(tf_vars[0], "m").name == "z/Adam:0"
    assert optimizer.get_slot(variables[0], "nope") is None
    assert optimizer.get_slot(variables[2], "v").shape.ndims is None
    assert optimizer.get_name() == "Adam" and train.name == tf_train.name == "step"
    # the ps tasks exist only in a cluster (a local session refuses them, as TF's): an in-process one
    worker = ours.train.Server({"ps": ["localhost:0", "localhost:0"], "worker": ["localhost:0"]}, job_name="worker",
                               task_index=0)
    with ours.Session(worker.target, graph=graph) as sess:
        with graph.as_default():
            sess.run(ours.global_variables_initializer())
        sess.run(train)
        assert sess.run(optimizer.get_slot(variables[2], "m")).shape == (2, 3)


def _partitioned(tf):
    with tf.variable_scope("linear"):
        table = tf.get_variable("weights", shape=[6, 2], partitioner=tf.fixed_size_partitioner(2),
                                initializer=tf.constant_initializer(0.5))
    pairs = [(tf.ones_like(part), part) for part in table]
    return tf.train.FtrlOptimizer(0.1).apply_gradients(pairs)


@pytest.mark.tf
def test_partitioned_slots_save_as_slices_of_the_whole(tf1, tmp_path):
    train = _partitioned(tf1)
    tf_saver = tf1.train.Saver()
    with ours.Graph().as_default() as graph:
        our_train = _partitioned(ours)
        saver = Saver()
        init = ours.global_variables_initializer()
    with tf1.Session() as tf_sess, ours.Session(graph=graph) as sess:
        tf_sess.run(tf1.global_variables_initializer())
        tf_sess.run(train)
        sess.run(init)
        sess.run(our_train)
        tf_path = tf_saver.save(tf_sess, str(tmp_path / "tf"))
        path = saver.save(sess, str(tmp_path / "ours"))
    assert tf1.train.list_variables(path) == tf1.train.list_variables(tf_path)
    reader, tf_reader = tf1.train.load_checkpoint(path), tf1.train.load_checkpoint(tf_path)
    for key, _ in tf1.train.list_variables(tf_path):
        np.testing.assert_allclose(reader.get_tensor(key), tf_reader.get_tensor(key), rtol=1e-6)


def _gated(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    return optimizer.compute_gradients(loss, gate_gradients=optimizer.GATE_GRAPH)


@pytest.mark.tf
def test_gate_graph_groups_the_gradients(tf1):
    tf_pairs = _gated(tf1)
    with ours.Graph().as_default() as graph:
        pairs = _gated(ours)
    assert [(g.name, v.name) for g, v in pairs] == [(g.name, v.name) for g, v in tf_pairs]
    assert [op.name for op in graph.get_operations() if op.name.startswith("tuple")] == \
        [op.name for op in tf1.get_default_graph().get_operations() if op.name.startswith("tuple")]


def test_sparse_gradient_with_a_constraint_is_refused():
    with ours.Graph().as_default():
        w = ours.Variable([[1.0], [2.0]], name="w", constraint=lambda v: v)
        grad = IndexedSlices(ours.constant([[1.0]]), ours.constant([0]), ours.constant([2, 1]))
        with pytest.raises(RuntimeError, match="^Cannot use a constraint function on a sparse variable.$"):
            ours.train.AdamOptimizer(0.1).apply_gradients([(grad, w)])


def test_a_tensor_cannot_be_updated():
    with ours.Graph().as_default():
        x = ours.constant([1.0])
        with pytest.raises(NotImplementedError, match="Trying to update a Tensor"):
            ours.train.GradientDescentOptimizer(0.1).apply_gradients([(ours.constant([1.0]), x)])
        with pytest.raises(NotImplementedError, match="Trying to optimize unsupported type"):
            optimizer_lib._get_processor("w")


def test_train_op_collection_and_optimizer_variables_per_graph():
    optimizer = ours.train.AdamOptimizer(0.1)
    trains = []
    for _ in range(2):
        with ours.Graph().as_default() as graph:
            w = ours.Variable([1.0], name="w")
            trains.append(optimizer.minimize(ours.reduce_sum(w * w)))
            assert graph.get_collection("train_op") == [trains[-1]]
            assert [v.name for v in optimizer.variables()] == ["beta1_power:0", "beta2_power:0", "w/Adam:0",
                                                               "w/Adam_1:0"]
    assert trains[0].graph is not trains[1].graph


def _under_control_dependencies(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    gate = tf.no_op(name="gate")
    with tf.control_dependencies([gate]):
        return tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w), name="train")


@pytest.mark.tf
def test_slots_escape_control_dependencies(tf1):
    """Slots and accumulators are made as in TF's init_scope: their initializers depend on nothing."""
    _under_control_dependencies(tf1)
    with ours.Graph().as_default() as graph:
        _under_control_dependencies(ours)
    rows = [(op.name, sorted(c.name for c in op.control_inputs)) for op in graph.get_operations()]
    assert rows == [(op.name, sorted(c.name for c in op.control_inputs))
                    for op in tf1.get_default_graph().get_operations()]
