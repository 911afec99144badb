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


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
