"""tf.is_tensor (graph/core/tensor.py): what TensorFlow counts as a tensor, and what it does not."""

import numpy as np
import pytest

import graph.compat.v1 as ours


def _verdicts(tf):
    with tf.Graph().as_default():
        variable = tf.Variable(1.0)
        resource = tf.get_variable("r", [], use_resource=True)
        values = {"tensor": tf.constant(1.0), "ref variable": variable, "resource variable": resource,
                  "sparse tensor": tf.SparseTensor([[0]], [1.0], [2]),
                  "indexed slices": tf.IndexedSlices(tf.ones([1]), tf.constant([0])),
                  "operation": variable.op, "numpy": np.ones(2), "python": 1.0, "list": [tf.constant(1.0)],
                  "sparse value": tf.SparseTensorValue([[0]], [1.0], [2])}
        return {name: bool(tf.is_tensor(value)) for name, value in values.items()}


@pytest.mark.tf
def test_is_tensor_agrees_with_tensorflow(tf_module):
    assert _verdicts(ours) == _verdicts(tf_module)
