"""Tests for graph/ops/nn_grad_ops.py: ReluGrad and Relu6Grad values, non-finite gradients included, against TF."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.ops import nn_grad_ops

FEATURES = np.float32([[-1.0, 0.0, 2.0, 7.0, 6.0, -0.0], [3.0, -2.0, 5.5, 0.5, np.nan, 1.0]])
GRADIENTS = np.float32([[np.inf, np.nan, 1.5, -np.inf, 2.0, -np.inf], [np.nan, 4.0, -3.0, np.inf, 1.0, -2.5]])


@pytest.mark.tf
@pytest.mark.parametrize("op_name", ["relu_grad", "relu6_grad"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_masked_gradients_match_tensorflow(tf1, op_name, dtype):
    # TF multiplies the gradient by the mask: inf or NaN where the mask is 0 gives NaN, not 0.
    from tensorflow.python.ops import gen_nn_ops
    gradients, features = GRADIENTS.astype(dtype), FEATURES.astype(dtype)
    with ours_tf.Graph().as_default():
        ours = getattr(nn_grad_ops, op_name)(gradients, features)
        mine = ours_tf.Session().run(ours)
    with tf1.Session() as sess:
        theirs = sess.run(getattr(gen_nn_ops, op_name)(gradients, features))
    assert mine.dtype == theirs.dtype == dtype
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
    np.testing.assert_array_equal(mine, theirs)
