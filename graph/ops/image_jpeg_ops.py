"""TensorFlow's JPEG ops: DecodeJpeg, DecodeAndCropJpeg, ExtractJpegShape, EncodeJpeg and
EncodeJpegVariableQuality, with ``tf.image.decode_jpeg`` & co., ``is_jpeg``, ``adjust_jpeg_quality`` and
``random_jpeg_quality`` built from them as TensorFlow builds them.

Pixels and bytes are libjpeg-turbo's, as TensorFlow's kernels produce them (`graph.platform.jpeg_decoder`,
`graph.platform.jpeg_encoder`); DecodeJpeg also reads PNG bytes, as TensorFlow 2.21's does.
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import constant_ops, image_adjust_ops, image_codec_ops, math_ops, random_ops, string_ops
from graph.ops.image_crop_resize_ops import with_rank, with_value
from graph.ops.op_builder import apply_op
from graph.platform import jpeg_decoder, jpeg_encoder, jpeg_markers

__all__ = ["decode_jpeg", "decode_and_crop_jpeg", "extract_jpeg_shape", "encode_jpeg", "is_jpeg",
           "adjust_jpeg_quality", "random_jpeg_quality"]

_DCT_METHODS = ("", "INTEGER_FAST", "INTEGER_ACCURATE")
_FORMATS = ("", "grayscale", "rgb")
_DENSITY_UNITS = {"in": 1, "cm": 2}  # JFIF's codes
_DECODE_DEFAULTS = {"channels": 0, "ratio": 1, "fancy_upscaling": True, "try_recover_truncated": False,
                    "acceptable_fraction": 1.0, "dct_method": ""}
_ENCODE_DEFAULTS = {"format": "", "quality": 95, "progressive": False, "optimize_size": False,
                    "chroma_downsampling": True, "density_unit": "in", "x_density": 300, "y_density": 300,
                    "xmp_metadata": ""}


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _invalid(op, message: str):
    return errors.InvalidArgumentError(None, op, message)


# ----------------------------------------------------------------- decoding
def _compute_decode(ctx, op, inputs):
    attrs = {**_DECODE_DEFAULTS, **op._attrs}
    ratio, dct_method, channels = attrs["ratio"], _text(attrs["dct_method"]), attrs["channels"]
    if ratio not in (1, 2, 4, 8):
        raise _invalid(op, f"ratio must be 1, 2, 4, or 8, got {ratio}")
    if dct_method not in _DCT_METHODS:
        raise _invalid(op, "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    if channels not in (0, 1, 3, 4):
        raise _invalid(op, f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    contents = image_codec_ops.check_contents(op, np.asarray(inputs[0], dtype=object))
    kind = image_codec_ops.image_format(contents)
    crop = None
    if op.type == "DecodeAndCropJpeg":
        if kind not in ("JPEG", None):
            raise _invalid(op, f"DecodeAndCropJpeg operation can run on JPEG only, but detected {kind}.")
        window = np.asarray(inputs[1])
        if window.ndim != 1:
            raise _invalid(op, f"crop_window must be 1-D, got shape [{','.join(map(str, window.shape))}]")
        if window.shape[0] != 4:
            raise _invalid(op, f"crop_size must have four elements [{window.shape[0]}]")
        crop = tuple(int(v) for v in window)
    if kind != "JPEG":
        return image_codec_ops.decode_pixels(op, contents)
    return image_codec_ops.decode_jpeg_pixels(
        op, contents, channels, ratio=ratio, fancy_upscaling=bool(attrs["fancy_upscaling"]),
        fast_dct=dct_method != "INTEGER_ACCURATE", try_recover_truncated=bool(attrs["try_recover_truncated"]),
        crop=crop)


def _infer_decode(op):
    with_rank(op, 0, 0)
    channels = op._attrs.get("channels", 0) or None
    height = width = None
    if op.type == "DecodeAndCropJpeg":
        with_value(op, with_rank(op, 1, 1).dims[0], 4)
        window = constant_ops.constant_value(op._inputs[1])
        if window is not None and np.size(window) == 4:  # TF's shape function reads a constant window
            height, width = (int(v) for v in np.reshape(window, -1)[2:])
    return [(dtypes_lib.uint8, TensorShape([height, width, channels]))]


for _type in ("DecodeJpeg", "DecodeAndCropJpeg"):
    kernels.register(_type, infer=_infer_decode, compute=_compute_decode, default_attrs=_DECODE_DEFAULTS)


def _compute_shape(ctx, op, inputs):
    contents = np.asarray(inputs[0], dtype=object)
    if contents.ndim:
        raise _invalid(op, f"contents must be scalar, got shape [{','.join(map(str, contents.shape))}]")
    data = contents.item()
    try:
        shape = jpeg_decoder.jpeg_shape(data)
    except jpeg_markers.JpegError:
        raise _invalid(op, f"Invalid JPEG data, size {len(data)}") from None
    return np.array(shape, dtype=op._attrs.get("output_type", dtypes_lib.int32).as_numpy_dtype)


def _infer_shape(op):
    with_rank(op, 0, 0)
    return [(op._attrs.get("output_type", dtypes_lib.int32), TensorShape([3]))]


kernels.register("ExtractJpegShape", compute=_compute_shape, default_attrs={"output_type": dtypes_lib.int32},
                 infer=_infer_shape)


def _decode_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method):
    return {"channels": int(channels), "ratio": int(ratio), "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated), "acceptable_fraction": float(acceptable_fraction),
            "dct_method": dct_method}


def decode_jpeg(contents, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1, dct_method: str = "",
                name: str | None = None) -> Tensor:
    """The uint8 ``[height, width, channels]`` pixels of JPEG bytes (``DecodeJpeg``).

    Args:
        contents: a scalar string, the file's bytes.
        channels: 0 (as stored), 1 (grey) or 3 (RGB).
        ratio: 1, 2, 4 or 8: decode at 1/ratio of the size.
        fancy_upscaling: smooth chroma upsampling.
        try_recover_truncated: decode a truncated stream as far as it goes.
        acceptable_fraction: the fraction of lines a truncated decode must give.
        dct_method: "" or "INTEGER_FAST" (the fast IDCT) or "INTEGER_ACCURATE".
        name: the op's name.
    """
    return apply_op("DecodeJpeg", [(contents, "contents", dtypes_lib.string)], _decode_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method), name)._outputs[0]


def decode_and_crop_jpeg(contents, crop_window, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                         try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                         dct_method: str = "", name: str | None = None) -> Tensor:
    """The pixels of the window ``[y, x, height, width]`` of JPEG bytes, decoding only what it needs
    (``DecodeAndCropJpeg``); the other arguments as `decode_jpeg`'s."""
    return apply_op("DecodeAndCropJpeg", [(contents, "contents", dtypes_lib.string),
                                          (crop_window, "crop_window", dtypes_lib.int32)],
                    _decode_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction,
                                  dct_method), name)._outputs[0]


def extract_jpeg_shape(contents, output_type=dtypes_lib.int32, name: str | None = None) -> Tensor:
    """``[height, width, channels]`` of JPEG bytes, read from the header (``ExtractJpegShape``)."""
    return apply_op("ExtractJpegShape", [(contents, "contents", dtypes_lib.string)],
                    {"output_type": dtypes_lib.as_dtype(output_type)}, name)._outputs[0]


def is_jpeg(contents, name: str | None = None) -> Tensor:
    """Whether ``contents`` starts as a JPEG does (FF D8 FF); a scalar bool."""
    with name_scope(name, "is_jpeg"):
        substr = string_ops.substr(contents, 0, 3)
        return math_ops.equal(substr, b"\xff\xd8\xff", name=name)


# ----------------------------------------------------------------- encoding
def _encoding_image(op, image: np.ndarray, image_format: str) -> np.ndarray:
    shape = f"[{','.join(map(str, image.shape))}]"
    if image.ndim != 3:
        raise _invalid(op, f"image must be 3-dimensional{shape}")
    if not image_format:
        if image.shape[2] not in (1, 3):
            raise _invalid(op, f"image must have 1 or 3 channels, got {shape}")
    else:
        channels = 1 if image_format == "grayscale" else 3
        if image.shape[2] != channels:
            raise _invalid(op, f"format {image_format} expects {channels} channels, got {shape}")
    return image


def _encode(op, image: np.ndarray, quality: int, attrs: dict) -> np.ndarray:
    if not 0 <= quality <= 100:
        raise _invalid(op, f"quality must be in [0,100], got {quality}")
    image = _encoding_image(op, image, _text(attrs["format"]))
    try:
        data = jpeg_encoder.encode_jpeg(
            image, quality=quality, progressive=bool(attrs["progressive"]),
            optimize_size=bool(attrs["optimize_size"]), chroma_downsampling=bool(attrs["chroma_downsampling"]),
            density_unit=_DENSITY_UNITS[_text(attrs["density_unit"])], x_density=int(attrs["x_density"]),
            y_density=int(attrs["y_density"]), xmp_metadata=_encoded(attrs["xmp_metadata"]))
    except ValueError:  # an empty image, or XMP too long for its marker: jpeg::Compress fails
        raise errors.InternalError(None, op, "JPEG encoding failed") from None
    return np.array(data, dtype=object)


def _encoded(value) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


def _compute_encode(ctx, op, inputs):
    attrs = {**_ENCODE_DEFAULTS, **op._attrs}
    return _encode(op, np.asarray(inputs[0]), int(attrs["quality"]), attrs)


def _compute_variable_quality(ctx, op, inputs):
    quality = np.asarray(inputs[1])
    if quality.ndim:
        raise _invalid(op, f"quality must be scalar: [{','.join(map(str, quality.shape))}]")
    return _encode(op, np.asarray(inputs[0]), int(quality), _ENCODE_DEFAULTS)


def _infer_encode(op):
    with_rank(op, 0, 3)
    if op.type == "EncodeJpegVariableQuality":
        with_rank(op, 1, 0)
    return [(dtypes_lib.string, TensorShape([]))]


kernels.register("EncodeJpeg", infer=_infer_encode, compute=_compute_encode, default_attrs=_ENCODE_DEFAULTS)
kernels.register("EncodeJpegVariableQuality", infer=_infer_encode, compute=_compute_variable_quality)


def encode_jpeg(image, format: str = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "",
                name: str | None = None) -> Tensor:
    """The JPEG bytes of a uint8 ``[height, width, 1 or 3]`` image (``EncodeJpeg``), as TensorFlow writes them.

    Args:
        image: the pixels.
        format: "" (by the channel count), "grayscale" or "rgb".
        quality: 0-100.
        progressive, optimize_size, chroma_downsampling: libjpeg's progressive script, optimal Huffman
            tables, 4:2:0 chroma.
        density_unit: "in" or "cm"; x_density, y_density: the JFIF pixel density.
        xmp_metadata: XMP for an APP1 segment.
        name: the op's name.

    Raises:
        ValueError: for a format or density unit EncodeJpeg does not take (as TF's attr check).
    """
    for attr, value, allowed in (("format", format, _FORMATS), ("density_unit", density_unit, ("in", "cm"))):
        if value not in allowed:
            raise ValueError(f"Attr '{attr}' of 'EncodeJpeg' Op passed string '{value}' not in: "
                             + ", ".join(f'"{a}"' for a in allowed) + ".")
    attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
             "optimize_size": bool(optimize_size), "chroma_downsampling": bool(chroma_downsampling),
             "density_unit": density_unit, "x_density": int(x_density), "y_density": int(y_density),
             "xmp_metadata": xmp_metadata}
    return apply_op("EncodeJpeg", [(image, "image", dtypes_lib.uint8)], attrs, name)._outputs[0]


def encode_jpeg_variable_quality(images, quality, name: str | None = None) -> Tensor:
    """``EncodeJpeg`` with the quality a scalar int32 tensor (``EncodeJpegVariableQuality``)."""
    return apply_op("EncodeJpegVariableQuality", [(images, "images", dtypes_lib.uint8),
                                                  (quality, "quality", dtypes_lib.int32)], {}, name)._outputs[0]


def adjust_jpeg_quality(image, jpeg_quality, dct_method: str = "", name: str | None = None) -> Tensor:
    """``image`` after a JPEG round trip at ``jpeg_quality``, in its own dtype."""
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1]
        original_dtype = image.dtype
        image = image_adjust_ops.convert_image_dtype(image, dtypes_lib.uint8, saturate=True)
        if not isinstance(jpeg_quality, Tensor):
            jpeg_quality = convert_to_tensor(jpeg_quality, dtype=dtypes_lib.int32)
        image = encode_jpeg_variable_quality(image, jpeg_quality)
        image = decode_jpeg(image, channels=channels, dct_method=dct_method)
        return image_adjust_ops.convert_image_dtype(image, original_dtype, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn uniformly from [min_jpeg_quality, max_jpeg_quality).

    Raises:
        ValueError: for a range outside 0-100 or an empty one.
    """
    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100 or max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes_lib.int32)
    return adjust_jpeg_quality(image, quality)
