"""graph/ops/image_jpeg_ops.py (and the JPEG path of image_codec_ops): the graphs tf.image's / tf.io's JPEG
functions build, their values and their errors, against TensorFlow."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from tests.graph.graph_oracle import assert_same_graph_v1, failure_kind, failure_text

RNG = np.random.RandomState(12)
COLOUR = RNG.randint(0, 256, (13, 21, 3)).astype(np.uint8)
GREY = RNG.randint(0, 256, (10, 9, 1)).astype(np.uint8)


def _jpeg(image, **options):
    return ours_tf.Session().run(ours_tf.image.encode_jpeg(image, **options))


def _build(tf):
    contents = tf.placeholder(tf.string, [], name="contents")
    image = tf.placeholder(tf.uint8, [None, None, 3], name="image")
    return [tf.image.decode_jpeg(contents), tf.io.decode_jpeg(contents, channels=3, ratio=2, name="small"),
            tf.image.decode_jpeg(contents, channels=1, fancy_upscaling=False, dct_method="INTEGER_ACCURATE",
                                 try_recover_truncated=True, acceptable_fraction=0.5),
            tf.image.decode_and_crop_jpeg(contents, [1, 2, 5, 7], channels=3),
            tf.image.decode_and_crop_jpeg(contents, tf.placeholder_with_default([1, 1, 4, 4], [4]), ratio=2),
            tf.image.extract_jpeg_shape(contents), tf.io.extract_jpeg_shape(contents, output_type=tf.int64),
            tf.image.encode_jpeg(image), tf.io.encode_jpeg(image, quality=60, progressive=True, optimize_size=True,
                                                           chroma_downsampling=False, density_unit="cm",
                                                           x_density=96, y_density=120, xmp_metadata="<x/>"),
            tf.image.is_jpeg(contents), tf.io.is_jpeg(contents, name="check"),
            tf.image.adjust_jpeg_quality(image, 40),
            tf.image.decode_image(contents, expand_animations=False),
            tf.image.decode_image(contents, dtype=tf.float32, expand_animations=False),
            tf.image.decode_png(contents, dtype=tf.uint16)]


@pytest.mark.tf
@pytest.mark.parametrize("source", ["colour", "grey", "progressive"])
def test_graphs_and_values_match_tensorflow(tf1, source):
    (ours, mine), (theirs, real) = assert_same_graph_v1(tf1, _build)
    for ours_tensor, tf_tensor in zip(mine, real):
        assert ours_tensor.shape.as_list() == tf_tensor.shape.as_list() if tf_tensor.shape.ndims is not None \
            else ours_tensor.shape.ndims is None
    contents = {"colour": _jpeg(COLOUR), "grey": _jpeg(GREY), "progressive": _jpeg(COLOUR, progressive=True)}[source]
    feeds = {"contents:0": contents, "image:0": COLOUR}
    with tf1.Session(graph=theirs) as sess:
        expected = sess.run(real, {theirs.get_tensor_by_name(k): v for k, v in feeds.items()})
    with ours_tf.Session(graph=ours) as sess:
        found = sess.run(mine, {ours.get_tensor_by_name(k): v for k, v in feeds.items()})
    for index, (value, reference) in enumerate(zip(found, expected)):
        assert np.asarray(value).dtype == np.asarray(reference).dtype, index
        np.testing.assert_array_equal(value, reference, err_msg=f"output {index}")


@pytest.mark.tf
def test_adjust_jpeg_quality_of_float_images_matches_tensorflow(tf_module):
    """The values only: our saturate_cast clamps with Maximum / Minimum where TF 2.21 has ClipByValue."""
    results = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default(), tf.Session() as sess:
            floats = tf.constant(COLOUR / np.float32(256))
            results.append(sess.run([tf.image.adjust_jpeg_quality(floats, 70, dct_method="INTEGER_ACCURATE"),
                                     tf.image.adjust_jpeg_quality(floats[..., :1], tf.constant(5))]))
    for ours, theirs in zip(*results):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.tf
def test_jpeg_files_through_read_file_and_a_dataset(tf_module, tmp_path):
    """The TF1 input pipeline: file names -> read_file -> decode_jpeg -> resize, in a tf.data map."""
    paths = []
    for index, image in enumerate((COLOUR, COLOUR[::-1], COLOUR[:, ::-1])):
        paths.append(str(tmp_path / f"{index}.jpg"))
        with open(paths[-1], "wb") as handle:
            handle.write(_jpeg(image, quality=80))
    results = []
    for tf in (ours_tf, tf_module):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.from_tensor_slices(paths).map(
                lambda path: tf.image.decode_jpeg(tf.read_file(path), channels=3))
            batch = tf.data.make_one_shot_iterator(dataset.batch(3)).get_next()
            with tf.Session() as sess:
                results.append(sess.run(batch))
    np.testing.assert_array_equal(results[0], results[1])


def _decode_case(contents, **kwargs):
    def build(tf):
        return tf.image.decode_jpeg(tf.constant(contents), **kwargs)
    return build


ERROR_CASES = {
    "not an image": _decode_case(b"abc"),
    "empty": _decode_case(b""),
    "corrupt": _decode_case(b"\xff\xd8\xff\xe0garbage"),
    "truncated": lambda tf: tf.image.decode_jpeg(tf.constant(_jpeg(COLOUR)[:300])),
    "ratio": _decode_case(b"\xff\xd8\xff", ratio=3),
    "dct method": _decode_case(b"\xff\xd8\xff", dct_method="FOO"),
    "four channels": lambda tf: tf.image.decode_jpeg(tf.constant(_jpeg(COLOUR)), channels=4),
    "crop outside": lambda tf: tf.image.decode_and_crop_jpeg(tf.constant(_jpeg(COLOUR)), [0, 0, 20, 20]),
    "crop of a png": lambda tf: tf.image.decode_and_crop_jpeg(tf.image.encode_png(GREY), [0, 0, 1, 1]),
    "shape of a png": lambda tf: tf.image.extract_jpeg_shape(tf.image.encode_png(GREY)),
    "vector contents": lambda tf: tf.image.decode_jpeg(tf.placeholder_with_default([_jpeg(GREY)], None)),
    "vector contents at build": lambda tf: tf.image.decode_jpeg(tf.constant([_jpeg(GREY)])),
    "window of three": lambda tf: tf.image.decode_and_crop_jpeg(tf.constant(_jpeg(GREY)), [0, 0, 1]),
    "quality": lambda tf: tf.image.encode_jpeg(COLOUR, quality=101),
    "format mismatch": lambda tf: tf.image.encode_jpeg(COLOUR, format="grayscale"),
    "four channel image": lambda tf: tf.image.encode_jpeg(np.zeros((2, 2, 4), np.uint8)),
    "empty image": lambda tf: tf.image.encode_jpeg(np.zeros((0, 2, 3), np.uint8)),
    "variable quality": lambda tf: tf.image.adjust_jpeg_quality(COLOUR, 120),
    "bad format attr": lambda tf: tf.image.encode_jpeg(COLOUR, format="bgr"),
    "bad density unit": lambda tf: tf.image.encode_jpeg(COLOUR, density_unit="mm"),
}


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_match_tensorflow(tf_module, case):
    build = ERROR_CASES[case]
    kind = failure_kind(tf_module, build)
    assert failure_kind(ours_tf, build) == kind != "ran"
    ours = failure_text(ours_tf, build).split("\n")[0].split(" for '")[0]  # TF names the node its own way
    assert ours and ours in failure_text(tf_module, build)


@pytest.mark.tf
def test_truncated_streams_recover_as_tensorflow(tf_module):
    """try_recover_truncated, baseline and progressive cut anywhere: TF's pixels (or TF's failure)."""
    baseline, progressive = _jpeg(COLOUR), _jpeg(COLOUR, progressive=True)
    cuts = [baseline[:-2], baseline[:-6], baseline[:len(baseline) * 3 // 4], progressive[:-40],
            progressive[:len(progressive) // 2], progressive[:len(progressive) * 3 // 4]]
    for cut in cuts:
        def build(tf, cut=cut):
            return tf.image.decode_jpeg(tf.constant(cut), try_recover_truncated=True)
        assert failure_kind(ours_tf, build) == failure_kind(tf_module, build)
        if failure_kind(tf_module, build) == "ran":
            with tf_module.Graph().as_default(), tf_module.Session() as sess:
                expected = sess.run(build(tf_module))
            with ours_tf.Graph().as_default(), ours_tf.Session() as sess:
                np.testing.assert_array_equal(sess.run(build(ours_tf)), expected)


def test_random_jpeg_quality_checks_its_range():
    with pytest.raises(ValueError, match="between 0 and 100"):
        ours_tf.image.random_jpeg_quality(COLOUR, 10, 101)
    with pytest.raises(ValueError, match="less than"):
        ours_tf.image.random_jpeg_quality(COLOUR, 50, 50)
    with ours_tf.Graph().as_default(), ours_tf.Session() as sess:
        assert sess.run(ours_tf.image.random_jpeg_quality(COLOUR, 20, 90, seed=3)).shape == COLOUR.shape
