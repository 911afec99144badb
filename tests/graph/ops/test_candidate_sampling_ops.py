"""graph.ops.candidate_sampling_ops: TF's exact samples and expected counts for fixed seeds, accidental hits."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.runtime import session
from tests.graph.graph_oracle import assert_same_graph_v1 as assert_same_graph, fetch_named_result

TRUE_CLASSES = np.array([[1, 2], [3, 15], [0, 19]], np.int64)


def _samplers(tf, graph_seed):
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    outputs = []
    for seed in (1, 7, None):
        for unique in (True, False):
            outputs.append(tf.nn.log_uniform_candidate_sampler(TRUE_CLASSES, 2, 8, unique, 60, seed=seed))
            outputs.append(tf.nn.uniform_candidate_sampler(TRUE_CLASSES, 2, 8, unique, 20, seed=seed))
            outputs.append(tf.random.log_uniform_candidate_sampler(TRUE_CLASSES, 2, 40, unique, 10000, seed=seed))
    # unique with num_sampled == range_max: the rejection loop must find every class.
    outputs.append(tf.nn.uniform_candidate_sampler(TRUE_CLASSES, 2, 20, True, 20, seed=3, name="all"))
    return [list(o) for o in outputs]


@pytest.mark.tf
@pytest.mark.parametrize("graph_seed", [None, 42])
def test_samples_and_expected_counts_equal_tensorflow_run_after_run(tf1, graph_seed):
    if graph_seed is None:  # seedless ops would draw from the OS: keep only the seeded ones
        build = lambda tf: [o for o in _samplers(tf, None) if o[0].op.get_attr("seed2") != 0]  # noqa: E731
    else:
        build = lambda tf: _samplers(tf, graph_seed)  # noqa: E731
    (ours, outputs), (theirs, t_outputs) = assert_same_graph(tf1, build)
    sess = session.Session(graph=ours)
    with tf1.Session(graph=theirs) as tsess:
        for _ in range(3):  # each run continues the op's Philox stream
            mine, real = sess.run(outputs), tsess.run(t_outputs)
            for (sampled, true_count, sampled_count), (t_sampled, t_true, t_sampled_count) in zip(mine, real):
                np.testing.assert_array_equal(sampled, t_sampled)
                assert sampled.dtype == np.int64 and true_count.dtype == np.float32
                # unique: glibc's expm1f/log1pf against float64 rounded, equal to within an ulp
                np.testing.assert_allclose(true_count, t_true, rtol=2e-7)
                np.testing.assert_allclose(sampled_count, t_sampled_count, rtol=2e-7)


@pytest.mark.tf
def test_learned_unigram_samples_follow_the_counts_of_the_true_classes_fed_so_far(tf1):
    def build(tf):
        classes = tf.placeholder(tf.int64, [None, 2], name="classes")
        outputs = [list(tf.nn.learned_unigram_candidate_sampler(classes, 2, num, unique, range_max, seed=seed))
                   for seed in (1, 7) for unique in (True, False) for num, range_max in ((5, 8), (6, 16))]
        return classes, outputs

    (ours, (classes, outputs)), (theirs, (t_classes, t_outputs)) = assert_same_graph(tf1, build)
    sess = session.Session(graph=ours)
    rng = np.random.RandomState(0)
    with tf1.Session(graph=theirs) as tsess:
        for _ in range(4):  # the counts grow run by run: the draws follow them
            batch = rng.randint(0, 3, size=(3, 2))
            mine, real = sess.run(outputs, {classes: batch}), tsess.run(t_outputs, {t_classes: batch})
            for (sampled, true_count, sampled_count), (t_sampled, t_true, t_sampled_count) in zip(mine, real):
                np.testing.assert_array_equal(sampled, t_sampled)
                np.testing.assert_allclose(true_count, t_true, rtol=2e-7)
                np.testing.assert_allclose(sampled_count, t_sampled_count, rtol=2e-7)


@pytest.mark.tf
def test_accidental_hits_match_tensorflow(tf1):
    sampled = np.array([3, 2, 9, 1, 2, 19], np.int64)  # 2 appears twice: its last position counts

    def build(tf):
        return list(tf.nn.compute_accidental_hits(TRUE_CLASSES, sampled, 2))

    (ours, outputs), (theirs, t_outputs) = assert_same_graph(tf1, build)
    mine = session.Session(graph=ours).run(outputs)
    with tf1.Session(graph=theirs) as tsess:
        real = tsess.run(t_outputs)
    for a, b in zip(mine, real):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


def test_unique_needs_a_range_as_large_as_the_sample():
    with ours_tf.Graph().as_default() as g:
        sampled = ours_tf.nn.uniform_candidate_sampler(TRUE_CLASSES, 2, 21, True, 20, seed=1)
        with pytest.raises(errors.InvalidArgumentError, match="Sampler's range is too small"):
            session.Session(graph=g).run(sampled.sampled_candidates)


def test_true_classes_out_of_range_are_rejected():
    with ours_tf.Graph().as_default() as g:
        with pytest.raises(errors.InvalidArgumentError, match=r"out of range \[0, 10\), received 15"):
            ours_tf.nn.log_uniform_candidate_sampler(TRUE_CLASSES, 2, 3, True, 10, seed=1)
        classes = ours_tf.placeholder(ours_tf.int64, [None, 2])
        sampled = ours_tf.nn.log_uniform_candidate_sampler(classes, 2, 3, True, 10, seed=1)
        with pytest.raises(errors.InvalidArgumentError, match=r"received 15"):
            session.Session(graph=g).run(sampled, {classes: TRUE_CLASSES})


@pytest.mark.tf
@pytest.mark.parametrize("sampler", ["uniform_candidate_sampler", "log_uniform_candidate_sampler",
                                     "learned_unigram_candidate_sampler"])
def test_sampler_result_is_tfs_named_tuple_and_fetches_as_one(tf1, sampler):
    def build(tf):
        return getattr(tf.nn, sampler)(tf.constant([[1, 2]], tf.int64), 2, 3, True, 6, seed=4)

    mine, real = fetch_named_result(tf1, build)
    np.testing.assert_array_equal(mine.sampled_candidates, real.sampled_candidates)
    np.testing.assert_allclose(mine.true_expected_count, real.true_expected_count, rtol=1e-6)
