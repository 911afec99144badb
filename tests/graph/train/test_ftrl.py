"""Tests for graph/train/ftrl.py against TensorFlow.

FtrlOptimizer: ApplyFtrl/ApplyFtrlV2 (l2 shrinkage), lr_power, beta, slots Ftrl, Ftrl_1.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.FtrlOptimizer(0.3),
                 id="default"),
    pytest.param(lambda tf, step: tf.train.FtrlOptimizer(
        0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
                 id="l1_l2"),
    pytest.param(lambda tf, step: tf.train.FtrlOptimizer(
        0.3, learning_rate_power=-0.7, initial_accumulator_value=0.5, l1_regularization_strength=0.05),
                 id="lr_power"),
    pytest.param(lambda tf, step: tf.train.FtrlOptimizer(
        0.3, l2_shrinkage_regularization_strength=0.05, beta=0.1, accum_name="acc", linear_name="lin"),
                 id="shrinkage_beta"),
]


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
