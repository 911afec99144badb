"""Summary ops: TF's graph op for op, serialized Summary outputs byte for byte (images' PNGs too), errors."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.core import graph as graph_lib
from graph.gradients import gradients_impl, registry  # noqa: F401  (gradients_impl fills the registry)
from graph.ops.summary_histogram import DEFAULT_BUCKET_LIMITS
from graph.platform.png import decode_png
from graph.proto.framework import GraphDef
from graph.proto.summary import Summary
from tests.graph.graph_oracle import describe_placed

ATTRS = ("T", "N", "max_images", "dtype")


def _build_all(tf, x):
    tf.summary.scalar("loss", tf.reduce_mean(x))
    tf.summary.histogram("hist", x)
    tf.summary.histogram("ints", tf.cast(x * 10, tf.int32), collections=["custom"])
    tf.summary.image("img", tf.reshape(x[:12], [1, 2, 2, 3]), max_outputs=2)
    tf.summary.image("one", tf.reshape(x[:8], [2, 2, 2, 1]), max_outputs=1)
    tf.summary.text("txt", tf.constant(["hello", "wörld"]))
    tf.summary.tensor_summary("raw", tf.reshape(x[:6], [2, 3]), summary_description="six values")
    with tf.name_scope("outer"):
        tf.summary.scalar("a b", x[0], family="F")
    tf.summary.scalar("loss", x[1])  # a second "loss": scope and tag become loss_1
    return tf.summary.merge_all(), tf.summary.merge(tf.get_collection("custom"), name="custom_merge")


def _run_both(tf1, build, feed):
    ours = graph_lib.Graph()
    with ours.as_default():
        x = ours_tf.placeholder(ours_tf.float32, [None], name="x")
        fetches = build(ours_tf, x)
        with ours_tf.Session() as sess:
            mine = sess.run(fetches, {x: feed})
    x = tf1.placeholder(tf1.float32, [None], name="x")
    fetches = build(tf1, x)
    with tf1.Session() as sess:
        real = sess.run(fetches, {x: feed})
    return ours, tf1.get_default_graph(), mine, real


def _sorted_graph_def(data: bytes) -> bytes:
    return GraphDef.from_bytes(data).to_bytes(deterministic=True)


def _assert_same_summary(mine: bytes, real: bytes):
    """Byte equality, value by value; an image's pixels are compared first, for a clearer failure."""
    ours_summary, tf_summary = Summary.from_bytes(mine), Summary.from_bytes(real)
    assert [v.tag for v in ours_summary.value] == [v.tag for v in tf_summary.value]
    for a, b in zip(ours_summary.value, tf_summary.value):
        if a.HasField("image"):
            np.testing.assert_array_equal(decode_png(a.image.encoded_image_string),
                                          decode_png(b.image.encoded_image_string))
        assert a.to_bytes() == b.to_bytes(), a.tag


@pytest.mark.tf
def test_graph_and_outputs_match_tensorflow(tf1):
    feed = np.concatenate([np.linspace(-3, 5, 20), [0.0, 1e-13, -7e30, 2.5e21]]).astype(np.float32)
    ours, theirs, mine, real = _run_both(tf1, _build_all, feed)
    assert describe_placed(ours, ATTRS) == describe_placed(theirs, ATTRS)
    # node by node, attrs sorted (TF's attr maps have no order): checks bad_color and the metadata constants
    assert _sorted_graph_def(ours.as_graph_def().to_bytes()) == _sorted_graph_def(
        theirs.as_graph_def().SerializeToString())
    assert [t.name for t in ours.get_collection("summaries")] == [t.name for t in theirs.get_collection("summaries")]
    for a, b in zip(mine, real):
        _assert_same_summary(a, b)


@pytest.mark.tf
def test_histograms_match_tensorflow_on_random_and_integer_data(tf1):
    rng = np.random.default_rng(7)
    cases = {"normal": rng.normal(0, 3, 1000).astype(np.float32), "empty": np.zeros(0, np.float32),
             "wide": (rng.standard_cauchy(500) * 1e6).astype(np.float32), "zeros": np.zeros(9, np.float32)}
    for name, values in cases.items():
        def build(tf, x):
            return [tf.summary.histogram("h", x), tf.summary.histogram("d", tf.cast(x, tf.float64)),
                    tf.summary.histogram("i", tf.cast(x, tf.int64))]
        with tf1.Graph().as_default():
            _, _, mine, real = _run_both(tf1, build, values)
        assert mine == real, name


def test_bucket_limits_are_tensorflows():
    middle = DEFAULT_BUCKET_LIMITS.size // 2  # 775 positive limits, their negations and 0
    assert DEFAULT_BUCKET_LIMITS.size == 1551 and DEFAULT_BUCKET_LIMITS[middle] == 0.0
    assert DEFAULT_BUCKET_LIMITS[middle + 1] == 1e-12 and DEFAULT_BUCKET_LIMITS[-1] == np.finfo(np.float64).max
    np.testing.assert_array_equal(DEFAULT_BUCKET_LIMITS[:middle], -DEFAULT_BUCKET_LIMITS[:middle:-1])
    assert (np.diff(DEFAULT_BUCKET_LIMITS) > 0).all()


@pytest.mark.tf
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "float16"])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_images_match_tensorflow_pixel_for_pixel(tf1, dtype, channels):
    rng = np.random.default_rng(channels)
    if dtype == "uint8":
        batch = rng.integers(0, 256, (3, 5, 4, channels)).astype(np.uint8)
    else:
        batch = rng.normal(0, 2, (3, 5, 4, channels)).astype(dtype)
        batch[1] = np.abs(batch[1])  # all >= 0: the 255 / max branch
        batch[2, 1, 2, 0] = np.nan  # bad_color for that pixel
        batch[2, 3, 0, -1] = np.inf

    def build(tf, x):
        del x
        return [tf.summary.image("im", tf.constant(batch), max_outputs=3)]

    _, _, mine, real = _run_both(tf1, build, np.zeros(1, np.float32))
    _assert_same_summary(mine[0], real[0])


@pytest.mark.tf
def test_tensor_summaries_of_several_dtypes_match_tensorflow(tf1):
    def build(tf, x):
        return [tf.summary.tensor_summary("f", x), tf.summary.tensor_summary("i", tf.cast(x, tf.int64)),
                tf.summary.tensor_summary("b", x > 1), tf.summary.tensor_summary("s", tf.constant("one"),
                                                                                  display_name="shown")]
    _, _, mine, real = _run_both(tf1, build, np.array([0.5, 1.5, 2.5], np.float32))
    assert mine == real


@pytest.mark.tf
def test_errors_match_tensorflow(tf1):
    cases = {
        "nan": (lambda tf, x: tf.summary.histogram("h", x), np.array([1, np.nan], np.float32),
                "Nan in summary histogram for: h"),
        "inf": (lambda tf, x: tf.summary.histogram("h", x), np.array([np.inf], np.float32),
                "Infinity in Histogram for: h"),
        "duplicate": (lambda tf, x: tf.summary.merge([tf.summary.merge([tf.summary.scalar("s", x[0])])] * 2),
                      np.ones(2, np.float32), "Duplicate tag s found in summary inputs"),
        "shape": (lambda tf, x: tf.summary.image("im", tf.reshape(x, [1, 1, 1, 2])), np.ones(2, np.float32),
                  "Tensor must be 4-D with last dim 1, 3, or 4, not [1,1,1,2]"),
    }
    for name, (build, feed, message) in cases.items():
        ours = graph_lib.Graph()
        with ours.as_default():
            x = ours_tf.placeholder(ours_tf.float32, [None])
            with ours_tf.Session() as sess, pytest.raises(errors.InvalidArgumentError) as mine:
                sess.run(build(ours_tf, x), {x: feed})
        with tf1.Graph().as_default():
            x = tf1.placeholder(tf1.float32, [None])
            with tf1.Session() as sess, pytest.raises(tf1.errors.InvalidArgumentError) as real:
                sess.run(build(tf1, x), {x: feed})
        assert message in real.value.message and message in mine.value.message, (name, real.value.message)


def test_scalar_tags_and_values_must_have_one_shape():
    with graph_lib.Graph().as_default():
        summary = ours_tf.summary.scalar("s", ours_tf.constant([1.0, 2.0]))
        with ours_tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                                      match=r"tags and values are not the same shape: \[\] != \[2\] "
                                                            r"\(tag 's'\)"):
            sess.run(summary)


def test_build_time_type_errors():
    with graph_lib.Graph().as_default():
        with pytest.raises(TypeError, match="parameter 'values' has DataType string"):
            ours_tf.summary.scalar("s", ours_tf.constant("x"))
        with pytest.raises(TypeError, match="parameter 'tensor' has DataType int32"):
            ours_tf.summary.image("i", ours_tf.zeros([1, 2, 2, 1], ours_tf.int32))
        with pytest.raises(ValueError, match="to have dtype string"):
            ours_tf.summary.text("t", ours_tf.constant(1.0))
        assert ours_tf.summary.merge_all() is None
        assert ours_tf.summary.merge_all("nothing here") is None


def test_summary_ops_are_not_differentiable():
    for op_type in ("ScalarSummary", "HistogramSummary", "ImageSummary", "TensorSummaryV2", "MergeSummary"):
        assert registry.is_registered(op_type) and op_type in registry.not_differentiable_types()
