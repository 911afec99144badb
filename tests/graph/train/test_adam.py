"""Tests for graph/train/adam.py against TensorFlow: graph, slots, beta powers, values, checkpoints."""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.AdamOptimizer(0.1), id="default"),
    pytest.param(lambda tf, step: tf.train.AdamOptimizer(0.05, beta1=0.8, beta2=0.99, epsilon=1e-6,
                                                         use_locking=True, name="MyAdam"), id="named"),
]


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES, CASES[:1])
