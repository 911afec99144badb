"""graph/ops/image_codec_ops.py: PNG decoding and encoding against TensorFlow (pixels both ways)."""

import numpy as np
import pytest

import graph.compat.v1 as ours_tf

RNG = np.random.RandomState(4)
IMAGES = {channels: RNG.randint(0, 256, (5, 7, channels)).astype(np.uint8) for channels in (1, 2, 3, 4)}


def _encoded_by(tf, image, compression=-1):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(tf.image.encode_png(tf.constant(image), compression=compression))


def _decoded_by(tf, contents, **kwargs):
    with tf.Graph().as_default(), tf.Session() as sess:
        decode = kwargs.pop("decode", "decode_png")
        tensor = getattr(tf.image, decode)(tf.constant(contents), **kwargs)
        static = tensor.shape.as_list() if tensor.shape.ndims is not None else None
        value = sess.run(tensor)
        return static, value.dtype, value.tolist()


@pytest.mark.tf
@pytest.mark.parametrize("stored", [1, 2, 3, 4])
@pytest.mark.parametrize("requested", [0, 1, 2, 3, 4])
def test_decoding_tensorflow_pngs_matches_tensorflow(tf_module, stored, requested):
    contents = _encoded_by(tf_module, IMAGES[stored], compression=9)
    if requested == 2:  # not a channel count DecodePng takes
        for tf in (ours_tf, tf_module):
            with pytest.raises(tf.errors.InvalidArgumentError, match="must be 0, 1, 3 or 4"):
                _decoded_by(tf, contents, channels=requested)
        return
    if stored in (3, 4) and requested == 1:  # colour to grey: libpng's weighting, refused here
        with pytest.raises(ours_tf.errors.UnimplementedError):
            _decoded_by(ours_tf, contents, channels=requested)
        return
    assert _decoded_by(ours_tf, contents, channels=requested) == _decoded_by(tf_module, contents, channels=requested)


@pytest.mark.tf
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32"])
def test_decode_image_dtypes_match_tensorflow(tf_module, dtype):
    contents = _encoded_by(tf_module, IMAGES[3])
    kwargs = {"decode": "decode_image", "dtype": getattr(tf_module, dtype), "expand_animations": False}
    theirs = _decoded_by(tf_module, contents, **kwargs)
    kwargs["dtype"] = getattr(ours_tf, dtype)
    assert _decoded_by(ours_tf, contents, **kwargs) == theirs


@pytest.mark.tf
@pytest.mark.parametrize("compression", [-1, 0, 9])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encoded_bytes_are_tensorflows(tf_module, channels, compression):
    assert _encoded_by(ours_tf, IMAGES[channels], compression) == _encoded_by(tf_module, IMAGES[channels], compression)


@pytest.mark.tf
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_tensorflow_decodes_our_pngs(tf_module, channels):
    contents = _encoded_by(ours_tf, IMAGES[channels])
    assert _decoded_by(tf_module, contents)[2] == IMAGES[channels].tolist()


def test_other_formats_and_bad_bytes_fail_clearly():
    for contents, error in ((b"GIF89a rest", ours_tf.errors.UnimplementedError),
                            (b"\xff\xd8\xff\xe0rest", ours_tf.errors.InvalidArgumentError),  # a damaged JPEG
                            (b"not an image", ours_tf.errors.InvalidArgumentError),
                            (b"\x89PNG\r\n\x1a\n\0\0", ours_tf.errors.InvalidArgumentError)):
        with pytest.raises(error):
            _decoded_by(ours_tf, contents, decode="decode_image")
