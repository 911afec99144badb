"""Tests for graph/train/adam.py against TensorFlow: graph, slots, beta powers, values, checkpoints."""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.AdamOptimizer(0.1), id="default"),
    pytest.param(lambda tf, step: tf.train.AdamOptimizer(0.05, beta1=0.8, beta2=0.99, epsilon=1e-6,
                                                         use_locking=True, name="MyAdam"), id="named"),
]


@pytest.mark.tf
@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_matches_tensorflow(tf1, make, sparse):
    oracle.check_against_tf(tf1, make, sparse)


@pytest.mark.tf
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_checkpoints_cross_restore(tf1, tmp_path, sparse):
    oracle.check_checkpoints(tf1, CASES[0].values[0], tmp_path, sparse)
