"""Tests for graph/train/momentum.py against TensorFlow.

MomentumOptimizer: ApplyMomentum/SparseApplyMomentum, slot <var>/Momentum, Nesterov.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.MomentumOptimizer(0.1, 0.9),
                 id="default"),
    pytest.param(lambda tf, step: tf.train.MomentumOptimizer(0.05, 0.5, use_nesterov=True, use_locking=True),
                 id="nesterov"),
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
