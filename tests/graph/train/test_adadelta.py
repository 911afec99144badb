"""Tests for graph/train/adadelta.py against TensorFlow.

AdadeltaOptimizer: ApplyAdadelta/SparseApplyAdadelta, slots Adadelta, Adadelta_1.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.AdadeltaOptimizer(1.0),
                 id="default"),
    pytest.param(lambda tf, step: tf.train.AdadeltaOptimizer(0.5, rho=0.9, epsilon=1e-4),
                 id="rho_epsilon"),
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
