"""graph/platform/jpeg_decoder.py (with jpeg_markers, jpeg_entropy, jpeg_idct, jpeg_sampling, jpeg_color):
pixels compared with TensorFlow's DecodeJpeg / DecodeAndCropJpeg for every attr combination, on JPEGs that
TensorFlow writes and on ones Pillow's libjpeg writes (restart markers, 4:2:2, 4:1:1, progressive with
restarts), and on truncated and damaged streams."""

import io
import itertools

import numpy as np
import pytest

from graph.platform import jpeg_decoder, jpeg_markers

DECODE_ATTRS = list(itertools.product((0, 1, 3), (1, 2, 4, 8), (True, False), ("", "INTEGER_ACCURATE")))


def _image(height, width, channels, seed):
    """A smooth pattern with noise: both flat and busy blocks, so every coefficient range is exercised."""
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:height, 0:width]
    pattern = np.stack([128 + 110 * np.sin(x / 6.0 + k) * np.cos(y / 9.0 - k) for k in range(channels)], -1)
    return np.clip(pattern + rng.randint(-40, 41, pattern.shape), 0, 255).astype(np.uint8)


def _pillow(image, **options):
    image_module = pytest.importorskip("PIL.Image")
    buffer = io.BytesIO()
    mode = {1: "L", 3: "RGB", 4: "CMYK"}[image.shape[2]]
    image_module.fromarray(image[..., 0] if image.shape[2] == 1 else image, mode).save(buffer, "JPEG", **options)
    return buffer.getvalue()


def _tensorflow_encoded(tf, images_and_options):
    with tf.Graph().as_default(), tf.Session() as sess:
        return [sess.run(tf.image.encode_jpeg(image, **options)) for image, options in images_and_options]


def _tensorflow_decodes(tf, contents, attrs=DECODE_ATTRS, **extra):
    """TF's pixels (or the error class name) for each attr combination of each JPEG, one run per JPEG."""
    with tf.Graph().as_default(), tf.Session() as sess:
        data = tf.placeholder(tf.string, [])
        fetches = {a: tf.image.decode_jpeg(data, channels=a[0], ratio=a[1], fancy_upscaling=a[2], dct_method=a[3],
                                           **extra) for a in attrs}
        results = []
        for blob in contents:
            try:
                results.append(sess.run(fetches, {data: blob}))
            except tf.errors.OpError as error:
                results.append(type(error).__name__)
        return results


@pytest.mark.tf
def test_cmyk_and_ycck_decode_to_tensorflows_rgb(tf_module):
    """Four-component JPEGs: Adobe CMYK, and the same bytes marked YCCK (transform 2), made RGB by TF's rule;
    a grey output of them is libjpeg's error."""
    cmyk = _pillow(_image(19, 27, 4, 8), quality=80)
    adobe = cmyk.index(b"Adobe")
    ycck = cmyk[:adobe + 11] + b"\x02" + cmyk[adobe + 12:]
    attrs = [a for a in DECODE_ATTRS if a[0] != 1 and a[1] in (1, 2)]
    contents = [cmyk, ycck]
    _assert_all_equal(contents, _tensorflow_decodes(tf_module, contents, attrs))
    assert _tensorflow_decodes(tf_module, contents, [(1, 1, True, "")]) == ["InvalidArgumentError"] * 2
    for blob in contents:
        with pytest.raises(jpeg_decoder.JpegError, match="grayscale"):
            jpeg_decoder.decode_jpeg(blob, channels=1)
        assert jpeg_decoder.jpeg_shape(blob) == (19, 27, 4)


def _ours(blob, attrs, **extra):
    channels, ratio, fancy, dct = attrs
    return jpeg_decoder.decode_jpeg(blob, channels, ratio, fancy, dct != "INTEGER_ACCURATE", **extra)


def _assert_all_equal(contents, theirs, **extra):
    for index, (blob, expected) in enumerate(zip(contents, theirs)):
        if isinstance(expected, str):  # TF failed: so must we
            with pytest.raises(jpeg_decoder.JpegError):
                _ours(blob, DECODE_ATTRS[0], **extra)
            continue
        for attrs, pixels in expected.items():
            ours = _ours(blob, attrs, **extra)
            assert ours.shape == pixels.shape and ours.dtype == np.uint8, (index, attrs)
            np.testing.assert_array_equal(ours, pixels, err_msg=f"JPEG #{index}, attrs {attrs}")


@pytest.mark.tf
def test_tensorflow_written_jpegs_decode_to_tensorflows_pixels(tf_module):
    """Baseline and progressive, grey and colour, 4:2:0 and 4:4:4, odd sizes (1x1 up), several qualities."""
    options = [{"quality": 95}, {"quality": 75, "chroma_downsampling": False}, {"quality": 50, "progressive": True},
               {"quality": 90, "chroma_downsampling": False, "progressive": True}, {"quality": 8}]
    shapes = [(1, 1), (2, 3), (17, 23), (40, 17), (33, 50)]
    jobs = [(_image(h, w, c, seed), options[seed % len(options)])
            for seed, ((h, w), c) in enumerate(itertools.product(shapes, (1, 3)))]
    contents = _tensorflow_encoded(tf_module, jobs)
    _assert_all_equal(contents, _tensorflow_decodes(tf_module, contents))


@pytest.mark.tf
def test_libjpeg_variants_decode_to_tensorflows_pixels(tf_module):
    """What other encoders write: restart intervals, 4:2:2 and 4:1:1 chroma, progressive with restarts."""
    colour, grey = _image(37, 61, 3, 1), _image(26, 45, 1, 2)
    contents = [_pillow(colour, quality=80, restart_marker_blocks=3),
                _pillow(colour, quality=60, restart_marker_rows=1, subsampling="4:2:2"),
                _pillow(colour, quality=85, subsampling="4:1:1"),
                _pillow(colour, quality=70, progressive=True, restart_marker_blocks=2),
                _pillow(colour, quality=90, progressive=True, subsampling="4:2:0", optimize=True),
                _pillow(grey, quality=75, restart_marker_blocks=2), _pillow(grey, quality=75, progressive=True)]
    _assert_all_equal(contents, _tensorflow_decodes(tf_module, contents))


@pytest.mark.tf
def test_other_chroma_layouts_decode_to_tensorflows_pixels(tf_module):
    """4:2:2 and 4:4:0 (a 4:2:2 image turned losslessly): libjpeg's h2v1 and h1v2 fancy upsampling."""
    from graph.platform import jpeg_encoder
    contents = [jpeg_encoder.encode_jpeg(_image(h, w, 3, h), quality=q, luma_sampling=sampling)
                for (h, w), q, sampling in [((19, 33), 90, (2, 1)), ((33, 19), 80, (1, 2)), ((8, 3), 70, (1, 2))]]
    contents.append(jpeg_encoder.encode_jpeg(_image(30, 26, 3, 4), progressive=True, luma_sampling=(1, 2)))
    _assert_all_equal(contents, _tensorflow_decodes(tf_module, contents))


@pytest.mark.tf
def test_crops_match_tensorflows(tf_module):
    """DecodeAndCropJpeg: fancy upsampling treats the decoded columns' ends as edges, so crops differ from a
    full decode sliced; ours follow TF's."""
    image = _image(70, 90, 3, 3)
    contents = _tensorflow_encoded(tf_module, [(image, {}), (image, {"progressive": True}),
                                               (image, {"chroma_downsampling": False})])
    windows = [(0, 0, 70, 90), (5, 7, 20, 30), (17, 33, 10, 9), (0, 16, 70, 16), (1, 1, 69, 89), (31, 0, 8, 90),
               (3, 3, 2, 2), (2, 1, 30, 40)]
    with tf_module.Graph().as_default(), tf_module.Session() as sess:
        data, window = tf_module.placeholder(tf_module.string, []), tf_module.placeholder(tf_module.int32, [4])
        fetches = {(ratio, fancy): tf_module.image.decode_and_crop_jpeg(data, window, ratio=ratio,
                                                                       fancy_upscaling=fancy)
                   for ratio in (1, 2) for fancy in (True, False)}
        for blob, crop in itertools.product(contents, windows):
            fits = {1: True, 2: crop[0] + crop[2] <= 35 and crop[1] + crop[3] <= 45}  # the half-size image
            theirs = sess.run({k: v for k, v in fetches.items() if fits[k[0]]}, {data: blob, window: crop})
            for (ratio, fancy), pixels in theirs.items():
                ours = jpeg_decoder.decode_jpeg(blob, 0, ratio, fancy, crop=crop)
                np.testing.assert_array_equal(ours, pixels, err_msg=f"crop {crop} ratio {ratio} fancy {fancy}")


def _damaged(blob, rng):
    """Cuts (inside headers, inside the data, just before EOI), byte flips and a cut-out in the data."""
    n = len(blob)
    for cut in sorted(set(rng.randint(300, n - 1, 5).tolist() + [n // 2, n - 2, n - 5])):
        yield "cut", blob[:cut]
    for _ in range(3):
        flipped = bytearray(blob)
        flipped[rng.randint(n // 2, n - 2)] = rng.randint(0, 256)
        yield "flip", bytes(flipped)
    yield "cut-out", blob[:n // 2] + blob[n // 2 + 7:]


@pytest.mark.tf
def test_damaged_streams_fail_or_decode_as_tensorflow(tf_module):
    """Damaged data decodes to TF's pixels (libjpeg's zero fill, and the 16-bit wraparound of the SIMD IDCT).
    Truncated data is an error unless try_recover_truncated; then it decodes as libjpeg decodes what TF's source
    manager feeds it (the interrupted MCU's bytes again, fake EOI markers), progressive images with libjpeg's
    block smoothing of the coefficients the missing scans would have refined."""
    rng = np.random.RandomState(9)
    sources = _tensorflow_encoded(tf_module, [(_image(40, 17, 3, 4), {"quality": 90}),
                                              (_image(37, 61, 3, 5), {}), (_image(24, 40, 1, 6), {"quality": 60}),
                                              (_image(30, 70, 3, 7), {"progressive": True}),
                                              (_image(26, 33, 1, 8), {"progressive": True})])
    sources.append(_pillow(_image(41, 50, 3, 8), quality=70, restart_marker_blocks=2))
    cases = [case for blob in sources for case in _damaged(blob, rng)]
    cases += [("cut", sources[1][:n]) for n in range(len(sources[1]) - 9, len(sources[1]) - 2)]
    attrs = [(3, 1, True, ""), (3, 1, True, "INTEGER_ACCURATE"), (1, 2, True, "")]
    for recover in (False, True):
        theirs = _tensorflow_decodes(tf_module, [blob for _, blob in cases], attrs, try_recover_truncated=recover)
        for (kind, blob), expected in zip(cases, theirs):
            for attr in attrs:
                if isinstance(expected, str):
                    with pytest.raises(jpeg_decoder.JpegError):
                        _ours(blob, attr, try_recover_truncated=recover)
                    continue
                np.testing.assert_array_equal(_ours(blob, attr, try_recover_truncated=recover), expected[attr],
                                              err_msg=f"{kind} {len(blob)} {attr} recover={recover}")


@pytest.mark.tf
def test_damaged_headers_fail_or_decode_as_tensorflow(tf_module):
    """Bytes changed among the markers (fill bytes, FF 00, lengths under 2, unknown markers, bad scan
    parameters, a DHT lost): libjpeg's leniency and its errors, as TensorFlow shows them."""
    rng = np.random.RandomState(21)
    sources = _tensorflow_encoded(tf_module, [(_image(33, 47, 1, 2), {"quality": 80}),
                                              (_image(48, 40, 3, 3), {"progressive": True})])
    sources.append(_pillow(_image(41, 50, 3, 8), quality=70, restart_marker_blocks=2))
    cases = []
    for blob in sources:
        end = blob.rfind(b"\xff\xda") + 14
        for _ in range(25):
            damaged = bytearray(blob)
            damaged[rng.randint(3, end)] = rng.choice([0, 1, 0xFF, 0xC0, 0xDA, 0xD9, rng.randint(0, 256)])
            cases.append(bytes(damaged))
    attrs = [(0, 1, True, ""), (1, 2, False, "INTEGER_ACCURATE")]
    for recover in (False, True):
        _assert_all_equal(cases, _tensorflow_decodes(tf_module, cases, attrs, try_recover_truncated=recover),
                          try_recover_truncated=recover)


@pytest.mark.tf
def test_cut_photo_sized_streams_recover_as_tensorflow(tf_module):
    """A stream long enough for libjpeg's fast Huffman path, whose 6-byte refills change where TensorFlow's
    source hands back an MCU's bytes."""
    (blob,) = _tensorflow_encoded(tf_module, [(_image(120, 160, 3, 1), {"quality": 90})])
    cases = [blob[:len(blob) - back] for back in (700, 1500, 3100, 9000)]
    attrs = [(3, 1, True, "")]
    _assert_all_equal(cases, _tensorflow_decodes(tf_module, cases, attrs, try_recover_truncated=True),
                      try_recover_truncated=True)


@pytest.mark.tf
def test_progressive_streams_cut_between_and_inside_scans_are_smoothed_as_tensorflow(tf_module):
    """libjpeg's block smoothing: every scan boundary and a cut inside every scan, grey and 4:2:0 colour."""
    sources = _tensorflow_encoded(tf_module, [(_image(26, 33, 1, 2), {"progressive": True}),
                                              (_image(30, 70, 3, 3), {"progressive": True, "quality": 80})])
    cases = []
    for blob in sources:
        starts = [i for i in range(len(blob) - 1) if blob[i:i + 2] == b"\xff\xda"]
        for before, start in zip(starts, starts[1:]):
            cases += [blob[:start], blob[:(before + start) // 2]]
    attrs = [(0, 1, True, "INTEGER_ACCURATE"), (0, 2, False, "")]
    _assert_all_equal(cases, _tensorflow_decodes(tf_module, cases, attrs, try_recover_truncated=True),
                      try_recover_truncated=True)
    with tf_module.Graph().as_default(), tf_module.Session() as sess:  # a crop starts the smoothing window
        for blob, crop in ((cases[-4], (3, 17, 20, 40)), (cases[-1], (10, 33, 9, 9))):
            theirs = sess.run(tf_module.image.decode_and_crop_jpeg(blob, crop, try_recover_truncated=True))
            np.testing.assert_array_equal(jpeg_decoder.decode_jpeg(blob, crop=crop, try_recover_truncated=True),
                                          theirs)


def test_unsupported_and_malformed_streams_say_why():
    baseline = jpeg_markers.SOI + b"\xff\xc9\x00\x0b\x08\x00\x01\x00\x01\x01\x01\x11\x00"  # SOF9: arithmetic
    with pytest.raises(jpeg_decoder.JpegUnsupported, match="Arithmetic"):
        jpeg_decoder.decode_jpeg(baseline + b"\xff\xd9")
    with pytest.raises(jpeg_decoder.JpegError, match="Not a JPEG file"):
        jpeg_decoder.decode_jpeg(b"\x89PNG")
    with pytest.raises(jpeg_decoder.JpegError, match="precision 12"):
        jpeg_decoder.decode_jpeg(jpeg_markers.SOI + b"\xff\xc1\x00\x0b\x0c\x00\x01\x00\x01\x01\x01\x11\x00")
    with pytest.raises(jpeg_decoder.JpegError, match="Premature end"):
        jpeg_decoder.decode_jpeg(jpeg_markers.SOI + b"\xff\xdb\x00\x43")
    with pytest.raises(jpeg_decoder.JpegError, match="no image"):
        jpeg_decoder.decode_jpeg(jpeg_markers.SOI + b"\xff\xd9")
