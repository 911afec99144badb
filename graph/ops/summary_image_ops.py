"""TF1's ``tf.summary.image``: the ``ImageSummary`` op and its kernel (core/kernels/summary_image_op.cc).

The op takes a ``[batch, height, width, channels]`` tensor (channels 1, 3 or 4) and writes the first
``max_images`` images as PNGs (graph/platform/png.py), tagged ``<tag>/image/<i>`` (``<tag>/image`` when
``max_images`` is 1).  uint8 pixels are written as they are; float, half and double images are mapped
to uint8 per image, as TensorFlow's NormalizeFloatImage does:

    all finite values >= 0 : v * (255 / max)           (scale 0 when max < 1e-6)
    some value < 0         : v * (127 / max|v|) + 128  (scale 0 when max|v| < 1e-6)
    then truncated to uint8; a pixel with any non-finite channel becomes ``bad_color``.

min and max are taken in float32 over the pixels whose channels are all finite; the scale is computed
in float32 and the affine map in the image's own dtype (half arithmetic rounds after each operation).
"""

from __future__ import annotations

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape, debug_string
from graph.core.graph import GraphKeys, Tensor, convert_to_tensor
from graph.ops.summary_ops import check_dtype, collect, serialized_summary, summary_op, summary_scope
from graph.platform.png import encode_png
from graph.proto.framework import TensorProto, TensorShapeProto
from graph.proto.summary import Summary

__all__ = ["image", "normalize_float_image", "DEFAULT_BAD_COLOR", "IMAGE_TYPES"]

IMAGE_TYPES = tuple(dtypes_lib.as_dtype(name) for name in ("uint8", "float32", "float16", "float64"))
_DEFAULT_MAX_IMAGES = 3  # summary_ops.cc: max_images: int >= 1 = 3
_ZERO_THRESHOLD = np.float32(1e-6)  # summary_image_op.cc kZeroThreshold
_MAX_PIXELS = 1 << 29  # summary_image_op.cc: height * width must stay below this ...
_MAX_DIM = 1 << 31  # ... and every dimension below this


def _default_bad_color() -> TensorProto:
    """The op's ``bad_color`` default: opaque red, as op_def writes it (``int_val``, not tensor_content)."""
    return TensorProto(dtype=dtypes_lib.uint8.as_datatype_enum, tensor_shape=TensorShapeProto.from_shape([4]),
                       int_val=[255, 0, 0, 255])


DEFAULT_BAD_COLOR = _default_bad_color()


def _bad_color_values(op) -> np.ndarray:
    proto = op._attrs.get("bad_color", DEFAULT_BAD_COLOR)
    if isinstance(proto, np.ndarray):
        return proto.astype(np.uint8).reshape(-1)
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=np.uint8)
    size = int(np.prod(proto.tensor_shape.to_shape())) if proto.tensor_shape is not None else len(proto.int_val)
    values = list(proto.int_val) + [proto.int_val[-1]] * (size - len(proto.int_val)) if proto.int_val else [0] * size
    return np.array(values, dtype=np.uint8)


def normalize_float_image(pixels: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """One image's ``[height * width, depth]`` float pixels mapped to uint8 as TensorFlow's NormalizeFloatImage."""
    dtype = pixels.dtype.type
    finite = np.isfinite(pixels).all(axis=1)
    shown = pixels[finite].astype(np.float32)
    image_min = shown.min() if shown.size else np.float32(np.inf)
    image_max = shown.max() if shown.size else np.float32(-np.inf)
    if image_min < 0:
        max_val = max(abs(image_min), abs(image_max))
        scale = dtype(np.float32(0.0) if max_val < _ZERO_THRESHOLD else np.float32(127.0) / max_val)
        offset = dtype(128.0)
    else:
        scale = dtype(np.float32(0.0) if image_max < _ZERO_THRESHOLD else np.float32(255.0) / image_max)
        offset = dtype(0.0)
    image = np.empty(pixels.shape, dtype=np.uint8)
    with np.errstate(invalid="ignore", over="ignore"):  # non-finite pixels are computed, then replaced
        mapped = pixels * scale + offset
    image[finite] = mapped[finite].astype(np.uint8)  # C++'s float -> uint8 cast truncates, as numpy's does
    image[~finite] = bad_color
    return image


def _compute_image_summary(ctx, op, inputs):
    tag, tensor = np.asarray(inputs[0]), np.asarray(inputs[1])
    if tag.ndim != 0:
        raise errors.InvalidArgumentError(None, op, "Tags must be a scalar")
    shape_text = debug_string(tensor.shape)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise errors.InvalidArgumentError(None, op, f"Tensor must be 4-D with last dim 1, 3, or 4, not {shape_text}")
    batch_size, height, width, depth = tensor.shape
    if max(batch_size, height, width) >= _MAX_DIM or height * width >= _MAX_PIXELS:
        raise errors.InvalidArgumentError(None, op, f"Tensor too large for summary {shape_text}")
    if height * width <= 0:
        raise errors.InvalidArgumentError(None, op, f"input tensor must have non-zero dims. Found: [{batch_size}, "
                                          f"{height}, {width}, {depth}].")
    bad_color = None
    if tensor.dtype != np.uint8:
        bad_color = _bad_color_values(op)
        if bad_color.size < depth:
            raise errors.InvalidArgumentError(None, op, f"expected depth <= bad_color.size, got depth = {depth}, "
                                              f"bad_color.size = {bad_color.size}")
        bad_color = bad_color[:depth]
    max_images = op._attrs.get("max_images", _DEFAULT_MAX_IMAGES)
    base_tag = tag.item().decode("utf-8", "replace") if isinstance(tag.item(), bytes) else str(tag.item())
    values = []
    for index in range(min(max_images, batch_size)):
        pixels = tensor[index].reshape(height * width, depth)
        if bad_color is not None:
            pixels = normalize_float_image(pixels, bad_color)
        # the tag depends on the number of images asked for, not the number written
        image_tag = f"{base_tag}/image/{index}" if max_images > 1 else f"{base_tag}/image"
        encoded = encode_png(pixels.reshape(height, width, depth))
        values.append(Summary.Value(tag=image_tag, image=Summary.Image(
            height=height, width=width, colorspace=depth, encoded_image_string=encoded)))
    return serialized_summary(values)


kernels.register("ImageSummary", infer=lambda op: [(dtypes_lib.string, TensorShape([]))],
                 compute=_compute_image_summary,
                 default_attrs={"max_images": _DEFAULT_MAX_IMAGES, "T": dtypes_lib.float32,
                                "bad_color": DEFAULT_BAD_COLOR})


def image(name: str, tensor, max_outputs: int = 3, collections=None, family: str | None = None) -> Tensor:
    """An ``ImageSummary`` op: the first ``max_outputs`` images of a ``[batch, height, width, channels]`` tensor.

    Raises:
        TypeError: if ``tensor`` is not uint8, float16, float32 or float64.
        ValueError: if ``max_outputs`` is below 1.
    """
    if int(max_outputs) < 1:
        raise ValueError(f"Attr 'max_images' of 'ImageSummary' Op passed {int(max_outputs)} less than minimum 1.")
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        value = convert_to_tensor(tensor) if not isinstance(tensor, Tensor) else tensor
        check_dtype("ImageSummary", "tensor", value.dtype, IMAGE_TYPES)
        val = summary_op("ImageSummary", scope, [("tag", tag, dtypes_lib.string), ("tensor", value, None)],
                         {"max_images": int(max_outputs), "T": value.dtype.base_dtype, "bad_color": DEFAULT_BAD_COLOR})
        collect(val, collections, [GraphKeys.SUMMARIES])
    return val
