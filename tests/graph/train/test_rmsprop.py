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


@pytest.mark.tf
@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_matches_tensorflow(tf1, make, sparse):
    oracle.check_against_tf(tf1, make, sparse)


@pytest.mark.tf
@pytest.mark.parametrize("make", CASES[-1:])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_checkpoints_cross_restore(tf1, tmp_path, make, sparse):
    oracle.check_checkpoints(tf1, make, tmp_path, sparse)
