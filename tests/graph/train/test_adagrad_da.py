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
