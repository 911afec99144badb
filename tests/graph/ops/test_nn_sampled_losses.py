"""graph.ops.nn_sampled_losses: nce_loss and sampled_softmax_loss op by op, values and gradients, against TF."""

import numpy as np
import pytest

from graph.runtime import session
from tests.graph.ops.structure_oracle import assert_same_structure as assert_same_graph

RNG = np.random.RandomState(11)
CLASSES, DIM, BATCH = 30, 4, 5
WEIGHTS = RNG.randn(CLASSES, DIM).astype(np.float32) * 0.5
BIASES = RNG.randn(CLASSES).astype(np.float32) * 0.1
INPUTS = RNG.randn(BATCH, DIM).astype(np.float32)
LABELS1 = np.array([[0], [1], [2], [3], [29]], np.int64)
LABELS2 = np.array([[0, 5], [1, 1], [2, 8], [3, 0], [29, 4]], np.int64)


def _weights(tf, shards):
    if shards == 0:
        return tf.Variable(WEIGHTS, name="w")
    if shards == "partitioned":
        with tf.variable_scope("nce", partitioner=tf.fixed_size_partitioner(3)):
            return tf.get_variable("w", initializer=tf.constant(WEIGHTS))
    return [tf.Variable(WEIGHTS[p::shards], name=f"w{p}") for p in range(shards)]


# name -> (loss function name, shards, keyword arguments, labels)
CASES = {
    "nce": ("nce_loss", 0, {}, LABELS1),
    "nce_hits_removed_num_true_2": ("nce_loss", 0, {"remove_accidental_hits": True, "num_true": 2}, LABELS2),
    "nce_mod_shards": ("nce_loss", 3, {"num_true": 2}, LABELS2),
    "nce_partitioned_div": ("nce_loss", "partitioned", {"partition_strategy": "div"}, LABELS1),
    "softmax": ("sampled_softmax_loss", 0, {"seed": 5}, LABELS1),
    "softmax_keep_hits_num_true_2": ("sampled_softmax_loss", 0,
                                     {"remove_accidental_hits": False, "num_true": 2, "name": "ssl"}, LABELS2),
    "softmax_mod_shards": ("sampled_softmax_loss", 2, {}, LABELS1),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_graph_values_and_gradients_match_tensorflow(tf1, name):
    function, shards, kwargs, labels = CASES[name]

    def build(tf):
        tf.set_random_seed(1234)  # nce_loss takes no seed: the graph seed fixes its sampler's
        weights = _weights(tf, shards)
        biases = tf.Variable(BIASES, name="b")
        inputs = tf.placeholder(tf.float32, [None, DIM], name="inputs")
        loss = getattr(tf.nn, function)(weights, biases, labels, inputs, num_sampled=12, num_classes=CLASSES,
                                        **kwargs)
        variables = list(weights) if isinstance(weights, list) or shards == "partitioned" else [weights]
        grads = tf.gradients(tf.reduce_mean(loss), [inputs, biases] + variables)
        return inputs, loss, grads, tf.global_variables_initializer()

    (ours, (inputs, loss, grads, init)), (theirs, (t_inputs, t_loss, t_grads, t_init)) = assert_same_graph(tf1, build)
    sess = session.Session(graph=ours)
    sess.run(init)
    with tf1.Session(graph=theirs) as tsess:
        tsess.run(t_init)
        for _ in range(2):  # a new sample each run
            mine = sess.run([loss] + grads, {inputs: INPUTS})
            real = tsess.run([t_loss] + t_grads, {t_inputs: INPUTS})
            np.testing.assert_allclose(mine[0], real[0], rtol=1e-5)
            np.testing.assert_allclose(mine[1], real[1], rtol=1e-5, atol=1e-6)
            for grad, reference in zip(mine[2:], real[2:]):
                assert type(grad).__name__ == type(reference).__name__ == "IndexedSlicesValue"
                np.testing.assert_array_equal(grad.indices, reference.indices)
                np.testing.assert_allclose(grad.values, reference.values, rtol=1e-5, atol=1e-6)


@pytest.mark.tf
def test_given_sampled_values_are_used_as_they_are(tf1):
    def build(tf):
        sampled = tf.nn.uniform_candidate_sampler(LABELS1, 1, 6, True, CLASSES, seed=9)
        loss = tf.nn.nce_loss(tf.constant(WEIGHTS), tf.constant(BIASES), LABELS1, tf.constant(INPUTS), 6, CLASSES,
                              sampled_values=sampled)
        return loss

    (ours, loss), (theirs, t_loss) = assert_same_graph(tf1, build)
    with tf1.Session(graph=theirs) as tsess:
        np.testing.assert_allclose(session.Session(graph=ours).run(loss), tsess.run(t_loss), rtol=1e-5)
