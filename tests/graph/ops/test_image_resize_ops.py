"""Tests for graph/ops/image_resize_ops.py and graph/gradients/image_grad.py: values, shapes, errors vs TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from tests.graph.graph_oracle import assert_same_graph_v1

RNG = np.random.RandomState(3)
SIZES = [(4, 6, 7, 3), (5, 5, 2, 9), (3, 4, 3, 4), (8, 8, 3, 5), (2, 3, 1, 1)]
FLAGS = [(False, False), (True, False), (False, True)]
METHODS = ["resize_bilinear", "resize_nearest_neighbor", "resize_bicubic", "resize_area"]


def _run(tf, build, feed_value):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.as_dtype(feed_value.dtype), feed_value.shape)
        result = build(tf, x)
        with tf.Session() as sess:
            return sess.run(result, {x: feed_value}), result


@pytest.mark.tf
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("flags", FLAGS, ids=["legacy", "align", "half"])
@pytest.mark.parametrize("sizes", SIZES, ids=[str(s) for s in SIZES])
def test_resize_values_match_tensorflow(tf_module, method, flags, sizes):
    in_h, in_w, out_h, out_w = sizes
    align, half = flags
    if method == "resize_area" and half:
        pytest.skip("ResizeArea has no half_pixel_centers")
    kwargs = {"align_corners": align} if method == "resize_area" else {"align_corners": align, "half_pixel_centers": half}
    image = RNG.uniform(-3, 3, (2, in_h, in_w, 3)).astype(np.float32)

    def build(tf, x):
        return getattr(tf.image, method)(x, [out_h, out_w], **kwargs)

    ours, ours_tensor = _run(ours_tf, build, image)
    theirs, theirs_tensor = _run(tf_module, build, image)
    assert ours_tensor.shape.as_list() == theirs_tensor.shape.as_list()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if method in ("resize_bilinear", "resize_nearest_neighbor"):
        np.testing.assert_array_equal(ours, theirs)  # same float32 operations in the same order
    else:
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=2e-6)


@pytest.mark.tf
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64"])
def test_nearest_neighbor_keeps_dtype_others_give_float32(tf_module, dtype):
    image = RNG.randint(0, 200, (1, 5, 4, 2)).astype(dtype)
    for method in METHODS:
        def build(tf, x):
            return getattr(tf.image, method)(x, [7, 3])
        ours, _ = _run(ours_tf, build, image)
        theirs, _ = _run(tf_module, build, image)
        assert ours.dtype == theirs.dtype
        # Bicubic sums four float32 products per axis in an order of its own: a few ulps of 200-sized values.
        np.testing.assert_allclose(ours, theirs, rtol=2e-5 if method == "resize_bicubic" else 1e-6)


@pytest.mark.tf
@pytest.mark.parametrize("method", [0, 1, 2, 3])
def test_resize_images_graph_matches_tensorflow(tf1, method):
    def build(tf):
        image = tf.placeholder(tf.float32, [6, 8, 3], name="image")
        batch = tf.placeholder(tf.float32, [None, 6, 8, 3], name="batch")
        return [tf.image.resize_images(image, [3, 5], method=method),
                tf.image.resize_images(batch, [12, 4], method=method, align_corners=True),
                tf.image.resize_images(image, [6, 8], method=method),  # already that size: no resize op
                tf.image.resize(image, tf.constant([4, 4]), method=method)]
    assert_same_graph_v1(tf1, build)


@pytest.mark.tf
def test_preserve_aspect_ratio_values_match_tensorflow(tf_module):
    # TF's shape refiner folds the computed size into a static shape; ours leaves height and width unknown.
    image = RNG.uniform(0, 1, (6, 8, 3)).astype(np.float32)

    def build(tf, x):
        return tf.image.resize_images(x, [12, 12], preserve_aspect_ratio=True)

    ours, _ = _run(ours_tf, build, image)
    theirs, _ = _run(tf_module, build, image)
    assert ours.shape == theirs.shape == (9, 12, 3)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.tf
@pytest.mark.parametrize("flags", FLAGS, ids=["legacy", "align", "half"])
@pytest.mark.parametrize("method", ["resize_bilinear", "resize_nearest_neighbor", "resize_bicubic"])
def test_resize_gradients_match_tensorflow(tf_module, method, flags):
    align, half = flags
    image = RNG.uniform(-1, 1, (2, 5, 4, 3)).astype(np.float32)
    weights = RNG.uniform(-1, 1, (2, 7, 3, 3)).astype(np.float32)

    def build(tf, x):
        resized = getattr(tf.image, method)(x, [7, 3], align_corners=align, half_pixel_centers=half)
        return tf.gradients(tf.reduce_sum(resized * weights), x)[0]

    ours, _ = _run(ours_tf, build, image)
    theirs, _ = _run(tf_module, build, image)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_resize_bilinear_gradient_is_the_adjoint():
    # <resize(x), g> == <x, grad(g)>: the gradient op is the transpose of the forward map.
    image = RNG.uniform(-1, 1, (1, 6, 5, 2))
    grads = RNG.uniform(-1, 1, (1, 4, 9, 2)).astype(np.float32)
    with ours_tf.Graph().as_default():
        x = ours_tf.constant(image)
        forward = ours_tf.image.resize_bilinear(x, [4, 9], half_pixel_centers=True)
        backward = ours_tf.gradients(forward, x, grad_ys=grads)[0]
        with ours_tf.Session() as sess:
            forward_value, backward_value = sess.run([forward, backward])
    np.testing.assert_allclose(np.sum(forward_value * grads), np.sum(image * backward_value), rtol=1e-5)


@pytest.mark.tf
def test_errors_match_tensorflow(tf_module):
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="must be rank 4"):
                tf.image.resize_bilinear(tf.zeros([2, 2]), [3, 3])
            with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
                tf.image.resize_images(tf.zeros([2, 2]), [3, 3])
            with pytest.raises(ValueError, match="1-D Tensor of 2 elements"):
                tf.image.resize_images(tf.zeros([2, 2, 1]), [3, 3, 3])
            size = tf.placeholder(tf.int32, [2])
            resized = tf.image.resize_bilinear(tf.zeros([1, 2, 2, 1]), size, align_corners=True, half_pixel_centers=True)
            zero = tf.image.resize_nearest_neighbor(tf.zeros([1, 2, 2, 1]), size)
            with tf.Session() as sess:
                with pytest.raises(tf.errors.InvalidArgumentError, match="half_pixel_centers is True"):
                    sess.run(resized, {size: [3, 3]})
                with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive"):
                    sess.run(zero, {size: [0, 3]})
    assert ours_tf.errors.InvalidArgumentError is errors.InvalidArgumentError
