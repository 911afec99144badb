"""The PNG codec: round trips, every colour type, TensorFlow's bytes (libpng's), each decoding the other's."""

import numpy as np
import pytest

from graph.platform import png


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_round_trip(channels):
    image = np.random.default_rng(channels).integers(0, 256, (7, 5, channels)).astype(np.uint8)
    data = png.encode_png(image)
    assert data.startswith(png.PNG_SIGNATURE)
    np.testing.assert_array_equal(png.decode_png(data), image)


def test_rejects_what_it_cannot_encode_and_damaged_bytes():
    with pytest.raises(ValueError, match="uint8"):
        png.encode_png(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="1-4 channels"):
        png.encode_png(np.zeros((2, 2, 5), np.uint8))
    data = bytearray(png.encode_png(np.zeros((2, 2, 1), np.uint8)))
    data[20] ^= 1  # inside IHDR
    with pytest.raises(ValueError, match="bad CRC"):
        png.decode_png(bytes(data))
    with pytest.raises(ValueError, match="signature"):
        png.decode_png(b"GIF89a")


@pytest.mark.tf
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_tensorflow_agrees(tf_module, channels):
    # smooth gradients make libpng choose Sub/Up/Average/Paeth filters, which the decoder must undo
    y, x = np.mgrid[0:33, 0:17]
    image = np.stack([(x * 7 + y * 3 + c * 50) % 256 for c in range(channels)], axis=-1).astype(np.uint8)
    with tf_module.Graph().as_default(), tf_module.Session() as sess:
        theirs = sess.run(tf_module.image.encode_png(image))
        decoded = sess.run(tf_module.image.decode_png(png.encode_png(image), channels=channels))
    np.testing.assert_array_equal(png.decode_png(theirs), image)
    np.testing.assert_array_equal(decoded, image)


def _images():
    """Shapes that rule filters out (one row, one column), a window libpng shrinks, several IDATs, rows wider
    than zlib's window (level 0 cuts them), each random, smooth (libpng filters it) and flat (long matches)."""
    rng = np.random.default_rng(5)
    for height, width, channels in [(1, 1, 4), (1, 7, 1), (7, 1, 3), (28, 28, 1), (33, 17, 2), (100, 120, 3),
                                    (3, 12000, 4)]:
        y, x = np.mgrid[0:height, 0:width]
        yield "random", rng.integers(0, 256, (height, width, channels)).astype(np.uint8)
        yield "smooth", np.stack([(x * 7 + y * 3 + c * 50) % 256 for c in range(channels)], axis=-1).astype(np.uint8)
        yield "flat", np.full((height, width, channels), 200, np.uint8)


@pytest.mark.tf
def test_bytes_are_tensorflows(tf_module):
    """What TensorFlow's libpng writes, byte for byte, at every compression level kind."""
    levels = (-1, 0, 1, 9)
    with tf_module.Graph().as_default(), tf_module.Session() as sess:
        image = tf_module.placeholder(tf_module.uint8, [None, None, None])
        encoders = [tf_module.image.encode_png(image, compression=level) for level in levels]
        for kind, pixels in _images():
            theirs = sess.run(encoders, {image: pixels})
            for level, expected in zip(levels, theirs):
                assert png.encode_png(pixels, level) == expected, (kind, pixels.shape, level)
