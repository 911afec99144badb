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


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
