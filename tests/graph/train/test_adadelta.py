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


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
