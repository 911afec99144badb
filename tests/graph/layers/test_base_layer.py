"""Tests for graph/layers/base_layer.py: names, scopes, reuse, weights, losses and updates of tf.layers.Layer."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.layers import base_layer
from tests.graph.graph_oracle import assert_same_graph_v1, run


def _my_dense_class(tf_module):
    """The same small Layer subclass written against ``tf_module`` (ours or TF's)."""

    class MyDense(tf_module.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.input_spec = tf_module.layers.InputSpec(min_ndim=2)

        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", [input_shape[-1], self.units],
                                          regularizer=lambda w: tf_module.reduce_sum(w))
            self.bias = self.add_weight("bias", [self.units], initializer=tf_module.zeros_initializer())
            self.counter = self.add_weight("counter", [], dtype=tf_module.int32, trainable=False)
            self.add_update(tf_module.assign_add(self.counter, 1))
            self.input_spec = tf_module.layers.InputSpec(min_ndim=2, axes={-1: input_shape[-1]})
            self.built = True

        def call(self, inputs):
            return tf_module.matmul(inputs, self.kernel) + self.bias

    return MyDense


def _build(tf_module):
    my_dense = _my_dense_class(tf_module)
    x = tf_module.placeholder(tf_module.float32, [None, 3], name="x")
    first, second = my_dense(4), my_dense(2, name="named")
    y = first(x)
    first(x)  # a second call reuses the weights; its ops are first's scope with a suffix
    second(y)
    with tf_module.variable_scope("outer"):
        third = my_dense(2)
        third(y)
        third_again = my_dense(2, name="my_dense")  # an explicit name still gets a unique scope
        third_again(y)
    layers = (first, second, third, third_again)
    return {
        "names": [layer.name for layer in layers],
        "scopes": [layer.scope_name for layer in layers],
        "variables": [[v.name for v in layer.variables] for layer in layers],
        "trainable": [[v.name for v in layer.trainable_variables] for layer in layers],
        "non_trainable": [[v.name for v in layer.non_trainable_variables] for layer in layers],
        "updates": [[op.name for op in layer.updates] for layer in layers],
        "update_ops": [op.name for op in tf_module.get_collection(tf_module.GraphKeys.UPDATE_OPS)],
        "reg_losses": [t.name for t in tf_module.get_collection(tf_module.GraphKeys.REGULARIZATION_LOSSES)],
        "dtype": first.dtype,
    }


@pytest.mark.tf
def test_layer_names_scopes_weights_and_collections_match_tensorflow(tf1):
    (_, ours), (_, theirs) = assert_same_graph_v1(tf1, _build)
    assert ours == theirs
    assert ours["names"][:2] == ["my_dense_1", "named"] and ours["scopes"][0] == "my_dense"


@pytest.mark.tf
def test_frozen_layer_and_reuse_flag_match_tensorflow(tf1):
    def build(tf_module):
        my_dense = _my_dense_class(tf_module)
        x = tf_module.placeholder(tf_module.float32, [None, 3], name="x")
        frozen = my_dense(2, trainable=False)
        frozen(x)
        shared = my_dense(2, name="shared")
        shared(x)
        again = my_dense(2, name="shared", _reuse=True)  # TF's _reuse: the same scope and variables
        again(x)
        return ([v.name for v in frozen.trainable_variables], [v.name for v in frozen.non_trainable_variables],
                frozen.updates, again.scope_name, [v.name for v in again.variables],
                [v.name for v in tf_module.trainable_variables()])
    (_, ours), (_, theirs) = assert_same_graph_v1(tf1, build)
    assert ours == theirs


def test_values_and_update_run(g):
    layer = _my_dense_class(tf)(2)
    y = layer(np.ones((1, 3), np.float32))  # numpy inputs become constants
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel = sess.run(layer.kernel)
        np.testing.assert_allclose(sess.run(y), np.ones((1, 3)) @ kernel, rtol=1e-6)
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        assert sess.run(layer.counter) == 1
    assert abs(kernel).max() <= np.sqrt(6 / 5)  # glorot_uniform's limit for fans 3 and 2


def test_input_spec_and_errors(g):
    layer = _my_dense_class(tf)(2)
    with pytest.raises(ValueError, match='Input 0 of layer "my_dense_1" is incompatible with the layer: '
                                         r"expected min_ndim=2, found ndim=1. Full shape received: \(Dimension\(3\),\)"):
        layer(tf.placeholder(tf.float32, [3]))
    with pytest.raises(ValueError, match="has not been used yet"):
        _my_dense_class(tf)(2).scope_name
    with pytest.raises(TypeError, match="Keyword argument not understood: units_typo"):
        base_layer.Layer(units_typo=3)
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(tf.placeholder(tf.float32, [None, 3]))
        layer(tf.placeholder(tf.float32, [None, 5]))
    assert base_layer.Layer().add_weight("s", [], dtype=tf.string).name == "layer/s:0"  # TF accepts it too


def test_unique_names_are_per_graph_and_one_based(g):
    assert [base_layer.Layer().name for _ in range(2)] == ["layer_1", "layer_2"]
    with tf.Graph().as_default():
        assert base_layer.Layer().name == "layer_1"
    assert base_layer.to_snake_case("BatchNormalization") == "batch_normalization"
    assert base_layer.to_snake_case("Conv2DTranspose") == "conv2d_transpose"
    assert base_layer.to_snake_case("MaxPooling2D") == "max_pooling2d"


def test_call_receives_scope_and_training(g):
    seen = {}

    class Probe(base_layer.Layer):
        def call(self, inputs, training=False, scope=None):
            seen.update(training=training, scope=scope.name)
            return tf.identity(inputs)

    probe = Probe(name="probe")
    out = probe(tf.constant([1.0]), training=True)
    assert seen == {"training": True, "scope": "probe"} and out.name == "probe/Identity:0"
    assert run(out).tolist() == [1.0]
