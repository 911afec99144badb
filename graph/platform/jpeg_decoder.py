"""JPEG decoding to pixels, pixel for pixel as TensorFlow's ``jpeg::Uncompress`` (core/lib/jpeg/jpeg_mem.cc)
over libjpeg-turbo 2.1.4.

The stages, each in its module: markers (`jpeg_markers`) -> Huffman-coded coefficients (`jpeg_entropy`, with
`jpeg_truncation` for a stream cut under try_recover_truncated) -> block smoothing of unrefined progressive
coefficients (`jpeg_smoothing`) -> dequantization and inverse DCT per component (`jpeg_idct`) -> chroma
upsampling (`jpeg_sampling`) -> colour conversion (`jpeg_color`).  The choices that make the pixels
TensorFlow's (jdmaster.c, jdsample.c, jdapistd.c):

* ``ratio`` r scales the output to ceil(size / r) by shrinking the IDCT to 8/r; a subsampled chroma component
  is decoded with a larger IDCT (up to 8x8) where that makes it full size, so only ratio 1 upsamples 4:2:0.
* Fancy upsampling needs ratio < 8 and a plane over 2 samples wide; otherwise samples are repeated (which is
  also what libjpeg's merged upsampler computes).
* A crop (DecodeAndCropJpeg) decodes from the iMCU column at or left of its x to exactly its right edge, so
  fancy upsampling treats those columns as the image's edges; rows are exact.
* A grey output of a YCbCr image is its Y plane; a grey image in RGB repeats it.
* CMYK (and Adobe's YCCK) images decode to libjpeg's CMYK, which TensorFlow turns into RGB itself.
"""

from __future__ import annotations

import numpy as np

from graph.platform import jpeg_color, jpeg_entropy, jpeg_idct, jpeg_markers, jpeg_sampling, jpeg_smoothing
from graph.platform.jpeg_markers import JpegError, JpegUnsupported

__all__ = ["decode_jpeg", "jpeg_shape", "JpegError", "JpegUnsupported"]

_GRAY, _YCBCR, _RGB, _CMYK, _YCCK = "grayscale", "YCbCr", "RGB", "CMYK", "YCCK"
_RGB_IDS, _JFIF_IDS = (82, 71, 66), (1, 2, 3)  # component ids 'R', 'G', 'B' and 1, 2, 3 (jdapimin.c)
_MAX_TOTAL_SIZE = 1 << 29  # jpeg_mem.cc refuses images of this many samples or more


def _color_space(jpeg) -> str:
    """libjpeg's guess of the stored colour space (jdapimin.c default_decompress_parms)."""
    components = jpeg.frame.components
    if len(components) == 1:
        return _GRAY
    if len(components) == 3:
        if jpeg.saw_jfif:
            return _YCBCR
        if jpeg.adobe_transform is not None:
            return _RGB if jpeg.adobe_transform == 0 else _YCBCR
        return _RGB if tuple(c.ident for c in components) == _RGB_IDS else _YCBCR
    if len(components) == 4:
        if jpeg.adobe_transform is None:
            return _CMYK
        return _CMYK if jpeg.adobe_transform == 0 else _YCCK
    raise JpegError(f"Bogus color space: {len(components)} components")


def _scaled_sizes(frame, ratio: int) -> list:
    """Each component's IDCT output size: chroma grows towards full size by powers of two (jdmaster.c)."""
    smallest = 8 // ratio
    sizes = []
    for component in frame.components:
        size = smallest
        while (size < 8 and (frame.max_h * smallest) % (component.h * size * 2) == 0
               and (frame.max_v * smallest) % (component.v * size * 2) == 0):
            size *= 2
        sizes.append(size)
    return sizes


def output_size(frame, ratio: int) -> tuple:
    """The decoded (height, width) at ``ratio`` (jdmaster.c jpeg_calc_output_dimensions)."""
    return -(-frame.height // ratio), -(-frame.width // ratio)


def jpeg_shape(data: bytes) -> tuple:
    """The (height, width, channels) TensorFlow's ExtractJpegShape reports: full size, 1, 3 or 4 channels.

    Raises:
        JpegError: for bytes whose header libjpeg refuses.
    """
    frame = jpeg_markers.parse_jpeg(data, headers_only=True).frame
    if len(frame.components) not in (1, 3, 4):
        raise JpegError(f"Bogus color space: {len(frame.components)} components")
    if frame.progressive:  # jpeg_start_decompress reads every scan of a progressive image
        jpeg_markers.parse_jpeg(data)
    return frame.height, frame.width, len(frame.components)


def _coefficients(jpeg, ratio: int, start: int, width: int, cropped: bool) -> list:
    """Each component's real blocks' coefficients, block-smoothed where libjpeg smooths them."""
    frame, ratio_block = jpeg.frame, 8 // ratio
    grids, last_good_row = jpeg_entropy.decode_coefficient_grids(jpeg)
    if not jpeg_smoothing.smoothing_applies(jpeg):
        return [g[:c.height_in_blocks, :c.width_in_blocks] for g, c in zip(grids, frame.components)]
    bits, previous = jpeg_smoothing.coefficient_bits(jpeg)
    smoothed = []
    for index, (grid, component) in enumerate(zip(grids, frame.components)):
        columns = None
        if cropped:  # jpeg_crop_scanline's first_MCU_col / last_MCU_col: the block columns it decodes
            single = len(frame.components) == 1
            align, factor = ratio_block * (1 if single else frame.max_h), 1 if single else component.h
            columns = (start * factor // align,
                       min(-(-(start + width) * factor // align) - 1, component.width_in_blocks - 1))
        smoothed.append(jpeg_smoothing.smooth(grid, component, component.quant, bits[index], previous[index],
                                              last_good_row, frame.mcu_rows, columns))
    return smoothed


def _component_planes(jpeg, coefficients, sizes, needed, fast: bool) -> dict:
    planes = {}
    for index in needed:
        component, size = jpeg.frame.components[index], sizes[index]
        grid = coefficients[index]
        rows, columns = grid.shape[:2]
        blocks = jpeg_idct.inverse_dct(grid.reshape(-1, 64), component.quant, size, fast)
        planes[index] = blocks.reshape(rows, columns, size, size).transpose(0, 2, 1, 3).reshape(
            rows * size, columns * size)
    return planes


def _upsampled(frame, index, plane, size, ratio, fancy, region, out_height) -> np.ndarray:
    """Component ``index``'s samples for output rows [0, out_height) and the ``region`` (start, width, cropped)
    of output columns (``start`` on an iMCU boundary)."""
    start, width, cropped = region
    component, smallest = frame.components[index], 8 // ratio
    across, down = component.h * size // smallest, component.v * size // smallest
    if frame.max_h % across or frame.max_v % down:
        raise JpegError("Fractional sampling not implemented yet")
    horizontal, vertical = frame.max_h // across, frame.max_v // down
    full_width = -(-frame.width * component.h * size // (frame.max_h * 8))  # downsampled_width
    full_height = -(-frame.height * component.v * size // (frame.max_v * 8))
    first = start * across // frame.max_h
    region_width = -(-width * component.h // frame.max_h) if cropped else full_width  # jpeg_crop_scanline's
    kind = (horizontal, vertical)
    use_fancy = fancy and ratio < 8 and (
        (kind in ((2, 1), (2, 2)) and full_width > 2 and region_width >= 2) or kind == (1, 2))
    if use_fancy and kind != (1, 2):
        source = plane[:full_height, first:first + region_width]
    else:
        source = plane[:full_height, first:first + -(-width // horizontal)]
    grown = jpeg_sampling.upsample(source, horizontal, vertical, use_fancy)
    if grown.shape[0] < out_height or grown.shape[1] < width:
        raise JpegError("Corrupt JPEG data: component planes too small")
    return grown[:out_height, :width]


def _cmyk_to_rgb(samples, ycck: bool, saw_adobe: bool) -> np.ndarray:
    """libjpeg's CMYK output (YCCK's first three made C, M, Y: 255 - the RGB of their YCbCr, jdcolor.c), then
    jpeg_mem.cc's conversion to RGB: k * c / 255 for Adobe's inverted CMYK, else (255 - k)(255 - c) / 255."""
    if ycck:
        inks = 255 - jpeg_color.ycc_to_rgb(*samples[:3]).astype(np.int64)
    else:
        inks = np.stack(samples[:3], axis=-1).astype(np.int64)
    black = samples[3].astype(np.int64)[..., None]
    rgb = black * inks // 255 if saw_adobe else (255 - black) * (255 - inks) // 255
    return rgb.astype(np.uint8)


def decode_jpeg(data: bytes, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                fast_dct: bool = True, try_recover_truncated: bool = False, crop=None) -> np.ndarray:
    """The uint8 ``[height, width, channels]`` pixels TensorFlow's DecodeJpeg gives for ``data``.

    Args:
        data: the JPEG file's bytes.
        channels: 0 (as stored: 1 or 3), 1 (grey) or 3 (RGB).
        ratio: 1, 2, 4 or 8, the downscaling factor.
        fancy_upscaling: smooth chroma upsampling (libjpeg's do_fancy_upsampling).
        fast_dct: the IFAST inverse DCT ("" and "INTEGER_FAST"); False is ISLOW ("INTEGER_ACCURATE").
        try_recover_truncated: decode a stream cut short as if zero bits and EOI followed.
        crop: ``(y, x, height, width)`` of the region to return, in output pixels, or None.

    Raises:
        JpegError: for bytes TensorFlow fails to decode or a crop outside the image; JpegUnsupported for
            valid JPEGs this codec does not decode.
    """
    jpeg = jpeg_markers.parse_jpeg(data, recover_truncated=try_recover_truncated)
    frame, space = jpeg.frame, _color_space(jpeg)
    out_height, out_width = output_size(frame, ratio)
    if out_height * out_width * len(frame.components) >= _MAX_TOTAL_SIZE:
        raise JpegError(f"Image too large: {out_height * out_width * len(frame.components)}")
    channels = channels or min(len(frame.components), 3)
    start, width = 0, out_width
    if crop is not None:
        crop_y, crop_x, crop_height, crop_width = crop
        if not (crop_width > 0 and crop_height > 0 and crop_x >= 0 and crop_y >= 0
                and crop_y + crop_height <= out_height and crop_x + crop_width <= out_width):
            raise JpegError(f"Invalid crop window: x={crop_x}, y={crop_y}, w={crop_width}, h={crop_height} for "
                            f"image_width: {out_width} and image_height: {out_height}")
        align = 8 // ratio * (1 if len(frame.components) == 1 else frame.max_h)
        start = crop_x // align * align
        width = crop_width + crop_x - start
    if channels == 1 and space in (_CMYK, _YCCK):
        raise JpegError(f"Unsupported color conversion request: {space} to grayscale")
    needed = [0] if channels == 1 and space != _RGB else list(range(len(frame.components)))
    sizes = _scaled_sizes(frame, ratio)
    coefficients = _coefficients(jpeg, ratio, start, width, crop is not None)
    planes = _component_planes(jpeg, coefficients, sizes, needed, fast_dct)
    region = (start, width, crop is not None)
    samples = [_upsampled(frame, i, planes[i], sizes[i], ratio, fancy_upscaling, region, out_height) for i in needed]
    if channels == 1:
        pixels = (samples[0].astype(np.uint8) if len(samples) == 1 else jpeg_color.rgb_to_gray(*samples))[..., None]
    elif space == _GRAY:
        pixels = np.repeat(samples[0].astype(np.uint8)[..., None], 3, axis=2)
    elif space in (_CMYK, _YCCK):
        pixels = _cmyk_to_rgb(samples, space == _YCCK, jpeg.adobe_transform is not None)
    elif space == _RGB:
        pixels = np.stack(samples, axis=-1).astype(np.uint8)
    else:
        pixels = jpeg_color.ycc_to_rgb(*samples)
    if crop is not None:
        pixels = pixels[crop_y:crop_y + crop_height, crop_x - start:crop_x - start + crop_width]
    return np.ascontiguousarray(pixels)
