"""graph/ops/candidate_sampling_fixed.py: FixedUnigramCandidateSampler and AllCandidateSampler against TensorFlow,
sample for sample over several runs with fixed seeds."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.runtime import session
from tests.graph.graph_oracle import assert_fails_as_tensorflow, assert_same_graph_v1, fetch_named_result

TRUE_CLASSES = np.array([[1, 2], [3, 5], [0, 6]], np.int64)
UNIGRAMS = [3.0, 1.0, 0.5, 7.0, 2.0, 2.0, 9.0, 0.25, 1.0, 4.0]
WEIGHTS_12 = [float(w) for w in np.random.RandomState(5).rand(12) * 10]


def _samplers(tf, vocab_file):
    tf.set_random_seed(11)
    outputs = []
    for seed in (1, 7):
        for unique in (True, False):
            outputs.append(tf.nn.fixed_unigram_candidate_sampler(TRUE_CLASSES, 2, 6, unique, 10, unigrams=UNIGRAMS,
                                                                 seed=seed))
            outputs.append(tf.random.fixed_unigram_candidate_sampler(
                TRUE_CLASSES, 2, 5, unique, 10, unigrams=WEIGHTS_12[:8], num_reserved_ids=2, distortion=0.75,
                seed=seed))
            outputs.append(tf.nn.fixed_unigram_candidate_sampler(
                TRUE_CLASSES[:, :1] // 2, 1, 3, unique, 4, vocab_file=vocab_file, num_shards=3, shard=1,
                seed=seed))
            outputs.append(tf.nn.all_candidate_sampler(TRUE_CLASSES, 2, 7, unique, seed=seed))
            outputs.append(tf.random.all_candidate_sampler(TRUE_CLASSES, 2, 9, unique, seed=seed))
    # 16 weights: a power of two of buckets (the low bits of one draw)
    outputs.append(tf.nn.fixed_unigram_candidate_sampler(TRUE_CLASSES, 2, 16, True, 16, unigrams=WEIGHTS_12 + [
        1.0, 2.0, 3.0, 0.5], seed=3, name="every_class"))
    return [list(o) for o in outputs]


@pytest.mark.tf
def test_samples_and_expected_counts_equal_tensorflow_run_after_run(tf1, tmp_path):
    vocab = tmp_path / "vocab.csv"
    vocab.write_text("".join(f"word{i},{w}\n" for i, w in enumerate(WEIGHTS_12)))
    (ours, outputs), (theirs, t_outputs) = assert_same_graph_v1(tf1, lambda tf: _samplers(tf, str(vocab)))
    sess = session.Session(graph=ours)
    with tf1.Session(graph=theirs) as tsess:
        for _ in range(3):  # each run continues the op's Philox stream
            mine, real = sess.run(outputs), tsess.run(t_outputs)
            for (sampled, true_count, sampled_count), (t_sampled, t_true, t_sampled_count) in zip(mine, real):
                np.testing.assert_array_equal(sampled, t_sampled)
                assert sampled.dtype == np.int64 and true_count.dtype == np.float32
                np.testing.assert_allclose(true_count, t_true, rtol=2e-7)
                np.testing.assert_allclose(sampled_count, t_sampled_count, rtol=2e-7)


@pytest.mark.tf
def test_static_shapes_match_tensorflow(tf1):
    def build(tf):
        classes = tf.placeholder(tf.int64, [None, 3], name="classes")
        return [tensor.shape.as_list() for tensor in (
            *tf.nn.fixed_unigram_candidate_sampler(classes, 3, 4, False, 3, unigrams=[1.0, 2.0, 3.0], seed=2),
            *tf.nn.all_candidate_sampler(classes, 3, 4, False, seed=2))]

    (_, ours), (_, theirs) = assert_same_graph_v1(tf1, build)
    assert ours == theirs


def _fixed(**kwargs):
    settings = {"true_classes": [[1]], "num_true": 1, "num_sampled": 2, "unique": False, "range_max": 3,
                "unigrams": [1.0, 2.0, 3.0], "seed": 1}
    settings.update(kwargs)
    return lambda tf: tf.nn.fixed_unigram_candidate_sampler(**settings).sampled_candidates


ERRORS = {
    "no weights": _fixed(unigrams=()),
    "both weights": _fixed(vocab_file="weights.csv"),
    "range": _fixed(range_max=4),
    "missing vocab": _fixed(unigrams=(), vocab_file="/nonexistent/vocab.csv"),
    "class out of range": _fixed(true_classes=[[3]]),
    "unique range": _fixed(unique=True, num_sampled=4),
    "columns": _fixed(num_true=2),
    "all out of range": lambda tf: tf.nn.all_candidate_sampler([[4]], 1, 3, False, seed=1).sampled_candidates,
    "all rank": lambda tf: tf.nn.all_candidate_sampler([1, 2], 1, 3, False, seed=1).sampled_candidates,
    "shards": _fixed(num_shards=0),
    "num sampled": lambda tf: tf.nn.all_candidate_sampler([[1]], 1, 0, False).sampled_candidates,
}


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tensorflow(tf1, case):
    assert_fails_as_tensorflow(tf1, ERRORS[case])


@pytest.mark.tf
@pytest.mark.parametrize("sampler", ["fixed_unigram_candidate_sampler", "all_candidate_sampler"])
def test_sampler_result_is_tfs_named_tuple_and_fetches_as_one(tf1, sampler):
    def build(tf):
        classes = tf.constant([[1, 2]], tf.int64)
        if sampler == "all_candidate_sampler":
            return tf.nn.all_candidate_sampler(classes, 2, 3, True, seed=4)
        return tf.nn.fixed_unigram_candidate_sampler(classes, 2, 3, True, 4, unigrams=[1., 2., 3., 4.], seed=4)

    mine, real = fetch_named_result(tf1, build)
    np.testing.assert_array_equal(mine.sampled_candidates, real.sampled_candidates)
    np.testing.assert_allclose(mine.sampled_expected_count, real.sampled_expected_count, rtol=1e-6)
