"""Tests for graph/train/adagrad.py against TensorFlow.

AdagradOptimizer: ApplyAdagrad/SparseApplyAdagrad, slot <var>/Adagrad.
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.AdagradOptimizer(0.3),
                 id="default"),
    pytest.param(lambda tf, step: tf.train.AdagradOptimizer(0.5, initial_accumulator_value=2.0, name="Ada"),
                 id="initial_value"),
]


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
