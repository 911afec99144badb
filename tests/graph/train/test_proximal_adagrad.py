"""Tests for graph/train/proximal_adagrad.py against TensorFlow.

ProximalAdagradOptimizer: ApplyProximalAdagrad with l1/l2, slot ProximalAdagrad.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.ProximalAdagradOptimizer(0.3),
                 id="plain"),
    pytest.param(lambda tf, step: tf.train.ProximalAdagradOptimizer(
        0.3, l1_regularization_strength=0.05, l2_regularization_strength=0.02),
                 id="l1_l2"),
]


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
