"""Tests for graph/train/adagrad_da.py against TensorFlow.

AdagradDAOptimizer: ApplyAdagradDA reading global_step + 1, slots AdagradDA, AdagradDA_1.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.AdagradDAOptimizer(0.3, step),
                 id="plain"),
    pytest.param(lambda tf, step: tf.train.AdagradDAOptimizer(
        0.3, step, initial_gradient_squared_accumulator_value=0.5, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02),
                 id="l1_l2"),
]


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
