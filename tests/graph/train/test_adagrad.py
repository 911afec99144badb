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
