"""graph.ops.losses: every tf.losses function's graph op by op, values per weighting and reduction, collections,
against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core import graph as graph_lib
from graph.core.graph import GraphKeys
from graph.ops import losses
from graph.runtime import session
from tests.graph.graph_oracle import describe_ours, describe_tf

RNG = np.random.RandomState(0)
LABELS = (RNG.rand(4, 3) > 0.5).astype(np.float32)
PREDICTIONS = RNG.rand(4, 3).astype(np.float32) * 0.9 + 0.05
LOGITS = RNG.randn(4, 3).astype(np.float32)
SPARSE = np.array([0, 2, 1, 2], np.int32)
UNIT_A = PREDICTIONS / np.linalg.norm(PREDICTIONS, axis=1, keepdims=True)
UNIT_B = LOGITS / np.linalg.norm(LOGITS, axis=1, keepdims=True)

WEIGHTS = {
    "default": None,
    "scalar": 2.0,
    "per_sample": np.array([[1.0], [0.0], [2.0], [0.5]], np.float32),
    "full": np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3.0, 1.0, 1.0], [0.5, 0.5, 0.0]], np.float32),
    "broadcast_row": np.array([[1.0, 0.0, 2.0]], np.float32),
}
REDUCTIONS = ["NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE", "SUM_BY_NONZERO_WEIGHTS"]

# name -> build(losses namespace, placeholders, weight kwargs, reduction kwargs)
LOSSES = {
    "mean_squared_error": lambda l, p, w, r: l.mean_squared_error(p["labels"], p["predictions"], **w, **r),
    "absolute_difference": lambda l, p, w, r: l.absolute_difference(p["labels"], p["predictions"], **w, **r),
    "log_loss": lambda l, p, w, r: l.log_loss(p["labels"], p["predictions"], **w, **r),
    "hinge_loss": lambda l, p, w, r: l.hinge_loss(p["labels"], p["logits"], **w, **r),
    "huber_loss": lambda l, p, w, r: l.huber_loss(p["labels"], p["logits"], delta=0.5, **w, **r),
    "sigmoid_cross_entropy": lambda l, p, w, r: l.sigmoid_cross_entropy(p["labels"], p["logits"], **w, **r),
    "sigmoid_smoothed": lambda l, p, w, r: l.sigmoid_cross_entropy(p["labels"], p["logits"], label_smoothing=0.2,
                                                                   **w, **r),
    "softmax_cross_entropy": lambda l, p, w, r: l.softmax_cross_entropy(p["labels"], p["logits"], **w, **r),
    "softmax_smoothed": lambda l, p, w, r: l.softmax_cross_entropy(p["labels"], p["logits"], label_smoothing=0.1,
                                                                   **w, **r),
    "cosine_distance": lambda l, p, w, r: l.cosine_distance(p["unit_a"], p["unit_b"], axis=1, **w, **r),
}
# Losses whose per-element values have another shape than [4, 3]: only the weights fitting them.
SPARSE_WEIGHTS = {"default": None, "scalar": 2.0, "per_sample": np.array([1.0, 0.0, 2.0, 0.5], np.float32),
                  "per_sample_column": np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)}


def _placeholders(tf):
    return {"labels": tf.placeholder(tf.float32, [4, 3], name="labels"),
            "predictions": tf.placeholder(tf.float32, [4, 3], name="predictions"),
            "logits": tf.placeholder(tf.float32, [4, 3], name="logits"),
            "sparse": tf.placeholder(tf.int32, [4], name="sparse"),
            "unit_a": tf.constant(UNIT_A, name="unit_a"), "unit_b": tf.constant(UNIT_B, name="unit_b")}


def _feed(p):
    return {p["labels"]: LABELS, p["predictions"]: PREDICTIONS, p["logits"]: LOGITS, p["sparse"]: SPARSE}



def _names(result):
    return [t.name for t in result] if isinstance(result, list) else result.name


def _compare(tf1, build):
    """Builds with our losses and TF's, compares graphs, values and the LOSSES collection (or the errors)."""
    tf_p = _placeholders(tf1)
    try:
        tf_loss = build(tf1.losses, tf_p)
    except ValueError as error:  # weights that do not broadcast: the same message up to the tensors' reprs
        with graph_lib.Graph().as_default(), pytest.raises(ValueError) as ours:
            build(losses, _placeholders(ours_tf))
        assert str(ours.value).split("Received")[0] == str(error).split("Received")[0]
        return
    with graph_lib.Graph().as_default() as graph:
        p = _placeholders(ours_tf)
        loss = build(losses, p)
        mine = session.Session(graph=graph).run(loss, _feed(p))
        rows = describe_ours(graph)
        collection = [t.name for t in graph.get_collection(GraphKeys.LOSSES)]
    with tf1.Session() as sess:
        real = sess.run(tf_loss, _feed(tf_p))
    tf_rows = describe_tf(tf1.get_default_graph())
    for index, (a, b) in enumerate(zip(rows, tf_rows)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(rows) == len(tf_rows)
    assert _names(loss) == _names(tf_loss)
    assert collection == [t.name for t in tf1.get_collection(tf1.GraphKeys.LOSSES)]
    np.testing.assert_allclose(mine, real, rtol=2e-6, atol=1e-7)


@pytest.mark.tf
@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_loss_matches_tensorflow_per_weighting(tf1, loss, weights):
    w = {} if WEIGHTS[weights] is None else {"weights": WEIGHTS[weights]}
    _compare(tf1, lambda l, p: LOSSES[loss](l, p, w, {}))


@pytest.mark.tf
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("loss", ["mean_squared_error", "softmax_cross_entropy", "cosine_distance"])
def test_loss_matches_tensorflow_per_reduction(tf1, loss, reduction):
    def build(l, p):
        return LOSSES[loss](l, p, {"weights": WEIGHTS["per_sample"]}, {"reduction": getattr(l.Reduction, reduction)})
    _compare(tf1, build)


@pytest.mark.tf
@pytest.mark.parametrize("weights", sorted(SPARSE_WEIGHTS))
def test_sparse_softmax_cross_entropy_matches_tensorflow(tf1, weights):
    w = {} if SPARSE_WEIGHTS[weights] is None else {"weights": SPARSE_WEIGHTS[weights]}
    _compare(tf1, lambda l, p: l.sparse_softmax_cross_entropy(p["sparse"], p["logits"], **w))


@pytest.mark.tf
@pytest.mark.parametrize("weights", ["default", "scalar", "per_sample"])
def test_mean_pairwise_squared_error_matches_tensorflow(tf1, weights):
    w = {} if WEIGHTS[weights] is None else {"weights": WEIGHTS[weights]}
    _compare(tf1, lambda l, p: l.mean_pairwise_squared_error(p["labels"], p["predictions"], **w))


@pytest.mark.tf
def test_compute_weighted_loss_scope_collection_and_total_loss(tf1):
    def build(l, p):
        first = l.compute_weighted_loss(p["predictions"] * 2.0, weights=WEIGHTS["per_sample"], scope="mine",
                                        reduction=l.Reduction.SUM)
        l.compute_weighted_loss(p["logits"], loss_collection=None)
        l.add_loss(p["labels"][0, 0] * 0.0 + 1.5)
        return [first, l.get_total_loss(), l.get_regularization_loss()] + l.get_losses()
    _compare(tf1, build)


def test_errors(g):
    labels = ours_tf.placeholder(ours_tf.float32, [4, 3])
    with pytest.raises(ValueError, match="Invalid Reduction Key bogus"):
        losses.compute_weighted_loss(labels, reduction="bogus")
    with pytest.raises(ValueError, match="Argument `predictions` must not be None."):
        losses.mean_squared_error(labels, None)
    with pytest.raises(ValueError, match="You must specify argument `axis`."):
        losses.cosine_distance(labels, labels)
    with pytest.raises(ValueError, match="weights can not be broadcast to values. Mismatch at dim 1"):
        losses.mean_squared_error(labels, labels, weights=np.ones([4, 2], np.float32))
    with pytest.raises(ValueError, match="weights can not be broadcast to values. values.rank=2. weights.rank=1"):
        losses.mean_squared_error(labels, labels, weights=np.ones([4], np.float32))
    assert losses.get_regularization_losses() == [] and losses.get_losses() == []
    with pytest.raises(ValueError, match="inputs must be an iterable"):
        losses.get_total_loss()


@pytest.mark.tf
def test_regularizers_fill_the_regularization_losses_as_tensorflow(tf1):
    def build(tf):
        l2 = lambda w: 0.01 * tf.nn.l2_loss(w)  # noqa: E731 - the TF1 idiom for a regularizer
        tf.get_variable("w1", initializer=np.array([[1.0, -2.0], [3.0, 0.5]], np.float32), regularizer=l2)
        with tf.variable_scope("layer", regularizer=lambda w: tf.reduce_sum(tf.abs(w)) * 0.5):
            w2 = tf.get_variable("w2", initializer=np.array([1.0, -4.0], np.float32))
            tf.get_variable("b", initializer=np.zeros(2, np.float32), regularizer=lambda w: None)
        tf.get_variable("free", initializer=np.ones(3, np.float32))
        data = tf.losses.mean_squared_error(tf.constant([1.0, 2.0]), w2)
        return [tf.losses.get_regularization_loss(), tf.losses.get_total_loss(),
                tf.losses.get_total_loss(add_regularization_losses=False), data] + tf.losses.get_regularization_losses()

    def run(tf, graph, fetches):
        sess = session.Session(graph=graph) if tf is ours_tf else tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)

    with graph_lib.Graph().as_default() as graph:
        mine = build(ours_tf)
        mine_values = run(ours_tf, graph, mine)
        rows = describe_ours(graph)
    theirs = build(tf1)
    tf_graph = tf1.get_default_graph()
    tf_values = run(tf1, tf_graph, theirs)
    tf_rows = describe_tf(tf_graph)
    assert [t.name for t in mine] == [t.name for t in theirs]
    for a, b in zip(mine_values, tf_values):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # TF keeps each regularization loss as a _LazyEvalTensor that rebuilds its ops at every use (add_n here):
    # the graphs agree up to those rebuilt copies.
    assert [row[0] for row in rows] == [row[0] for row in tf_rows if not _rebuilt(row[0])]


def _rebuilt(name):
    """True for the ops TF's lazy regularization tensors add when read again (``w1/Regularizer/L2Loss_1`` ...)."""
    scope, _, last = name.partition("/Regularizer/")
    return bool(last) and any(part.rsplit("_", 1)[-1].isdigit() for part in last.split("/"))
