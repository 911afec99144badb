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


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
