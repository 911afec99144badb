"""Tests for graph/train/proximal_gradient_descent.py against TensorFlow.

ProximalGradientDescentOptimizer: ApplyProximalGradientDescent with l1/l2.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.ProximalGradientDescentOptimizer(0.1),
                 id="plain"),
    pytest.param(lambda tf, step: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.02),
                 id="l1_l2"),
]


@pytest.mark.tf
@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_matches_tensorflow(tf1, make, sparse):
    oracle.check_against_tf(tf1, make, sparse)


@pytest.mark.tf
@pytest.mark.parametrize("make", CASES[-1:])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_checkpoints_cross_restore(tf1, tmp_path, make, sparse):
    oracle.check_checkpoints(tf1, make, tmp_path, sparse)
