"""Tests for graph/train/gradient_descent.py against TensorFlow.

GradientDescentOptimizer: ApplyGradientDescent, ScatterSub on the sparse path.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.GradientDescentOptimizer(0.1),
                 id="default"),
    pytest.param(lambda tf, step: tf.train.GradientDescentOptimizer(0.3, use_locking=True, name="SGD"),
                 id="locking_named"),
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
