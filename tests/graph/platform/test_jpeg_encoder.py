"""graph/platform/jpeg_encoder.py (with jpeg_forward, jpeg_huffman_encoder, jpeg_color, jpeg_sampling): the bytes
of TensorFlow's EncodeJpeg for every attr, and the pieces' own properties."""

import itertools

import numpy as np
import pytest

from graph.platform import jpeg_decoder, jpeg_encoder, jpeg_forward, jpeg_huffman_encoder, jpeg_markers


def _image(height, width, channels, seed):
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:height, 0:width]
    pattern = np.stack([128 + 110 * np.cos(x / 5.0 - k) * np.sin(y / 8.0 + k) for k in range(channels)], -1)
    return np.clip(pattern + rng.randint(-50, 51, pattern.shape), 0, 255).astype(np.uint8)


OPTIONS = [{}, {"quality": 0}, {"quality": 1}, {"quality": 50}, {"quality": 100, "chroma_downsampling": False},
           {"optimize_size": True}, {"progressive": True}, {"progressive": True, "chroma_downsampling": False,
                                                            "quality": 30},
           {"progressive": True, "optimize_size": True, "quality": 99},
           {"density_unit": "cm", "x_density": 72, "y_density": 70000, "xmp_metadata": "<x:xmpmeta>é</x:xmpmeta>"}]
SHAPES = [(1, 1), (8, 8), (9, 17), (16, 16), (23, 40), (35, 9)]


def _ours(image, options):
    options = dict(options)
    options["density_unit"] = {"in": 1, "cm": 2}[options.get("density_unit", "in")]
    options["xmp_metadata"] = options.get("xmp_metadata", "").encode()
    return jpeg_encoder.encode_jpeg(image, **options)


@pytest.mark.tf
def test_bytes_are_tensorflows(tf_module):
    """Every option on grey and colour images of odd sizes, flat and busy: the same file, byte for byte."""
    jobs = [(_image(h, w, c, seed), OPTIONS[seed % len(OPTIONS)])
            for seed, ((h, w), c) in enumerate(itertools.product(SHAPES, (1, 3)))]
    jobs += [(np.full((12, 20, c), value, np.uint8), options) for c in (1, 3) for value in (0, 255)
             for options in (OPTIONS[0], OPTIONS[6])]
    jobs += [(_image(21, 30, 3, 99), options) for options in OPTIONS]
    with tf_module.Graph().as_default(), tf_module.Session() as sess:
        theirs = [sess.run(tf_module.image.encode_jpeg(image, **options)) for image, options in jobs]
    for (image, options), expected in zip(jobs, theirs):
        assert _ours(image, options) == expected, (image.shape, options)


@pytest.mark.tf
def test_tensorflow_decodes_ours_as_it_decodes_its_own(tf_module):
    image = _image(45, 38, 3, 7)
    data = _ours(image, {"quality": 85})
    with tf_module.Graph().as_default(), tf_module.Session() as sess:
        theirs = sess.run(tf_module.image.decode_jpeg(data))
    np.testing.assert_array_equal(jpeg_decoder.decode_jpeg(data), theirs)


def test_layout_and_round_trip():
    image = _image(19, 27, 3, 3)
    data = jpeg_encoder.encode_jpeg(image, quality=100, chroma_downsampling=False)
    parsed = jpeg_markers.parse_jpeg(data)
    assert data.startswith(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x01\x01\x2c\x01\x2c\x00\x00")
    assert data.endswith(b"\xff\xd9") and parsed.saw_jfif and not parsed.frame.progressive
    assert [(c.ident, c.h, c.v, c.quant_index) for c in parsed.frame.components] == [(1, 1, 1, 0), (2, 1, 1, 1),
                                                                                      (3, 1, 1, 1)]
    decoded = jpeg_decoder.decode_jpeg(data, fast_dct=False)
    assert np.abs(decoded.astype(int) - image).max() <= 6  # quality 100 loses only rounding
    progressive = jpeg_markers.parse_jpeg(jpeg_encoder.encode_jpeg(image, progressive=True))
    assert [(s.components, s.ss, s.se, s.ah, s.al) for s in progressive.scans][:2] == [((0, 1, 2), 0, 0, 0, 1),
                                                                                      ((0,), 1, 5, 0, 2)]


def test_refuses_what_tensorflow_cannot_encode():
    with pytest.raises(ValueError, match="1 or 3"):
        jpeg_encoder.encode_jpeg(np.zeros((2, 2, 4), np.uint8))
    with pytest.raises(ValueError, match="non-empty"):
        jpeg_encoder.encode_jpeg(np.zeros((0, 2, 3), np.uint8))
    with pytest.raises(ValueError, match="XMP"):
        jpeg_encoder.encode_jpeg(np.zeros((2, 2, 3), np.uint8), xmp_metadata=b"x" * 65536)


def test_forward_transform_and_quantization():
    flat = np.full((1, 8, 8), 200, np.uint8)
    coefficients = jpeg_forward.forward_dct(flat)
    assert coefficients[0, 0, 0] == (200 - 128) * 64 and not coefficients.reshape(-1)[1:].any()
    quantized = jpeg_forward.quantize(np.array([[[100, -100, 12, -12] + [0] * 60]]).reshape(1, 8, 8), [1] * 64)
    assert quantized.reshape(-1)[:4].tolist() == [13, -13, 2, -2]  # divide by 8, half away from zero
    luminance, chrominance = jpeg_forward.quality_tables(50)
    assert luminance[:3] == (16, 11, 10) and chrominance[-1] == 99
    assert jpeg_forward.quality_tables(100)[0] == (1,) * 64 and max(jpeg_forward.quality_tables(0)[0]) == 255


def test_optimal_tables_are_valid_prefix_codes():
    rng = np.random.RandomState(1)
    for symbols in (1, 2, 20, 256):
        counts = {s: int(rng.randint(1, 1 << rng.randint(1, 20))) for s in rng.choice(256, symbols, replace=False)}
        lengths, ordered = jpeg_huffman_encoder.optimal_table(counts)
        assert sorted(ordered) == sorted(counts) and sum(lengths) == len(counts)
        assert sum(n / 2 ** (i + 1) for i, n in enumerate(lengths)) < 1  # an all-ones code stays free
