"""Tests for graph/train/rmsprop.py against TensorFlow.

RMSPropOptimizer: ApplyRMSProp/ApplyCenteredRMSProp, slots RMSProp, RMSProp_1 (and _2 centered).
"""

import pytest

from tests.graph.train import optimizer_oracle as oracle

CASES = [
    pytest.param(lambda tf, step: tf.train.RMSPropOptimizer(0.05),
                 id="default"),
    pytest.param(lambda tf, step: tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5, epsilon=1e-6),
                 id="momentum"),
    pytest.param(lambda tf, step: tf.train.RMSPropOptimizer(0.05, momentum=0.5, centered=True),
                 id="centered"),
]


test_matches_tensorflow, test_checkpoints_cross_restore = oracle.oracle_tests(CASES)
