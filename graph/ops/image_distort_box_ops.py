"""TF1's ``tf.image.sample_distorted_bounding_box``: the ``SampleDistortedBoundingBoxV2`` kernel, TF's draws bit-exact.

TensorFlow's kernel (core/kernels/image/sample_distorted_bounding_box_op.cc) reserves ``max_attempts`` Philox
blocks per run from the op's GuardedPhiloxRandom and reads them one uint32 at a time (SimplePhilox): per
attempt an aspect ratio ``RandFloat() * (max - min) + min``, then in GenerateRandomCrop a height
``Uniform(max_height - height + 1)`` and the offsets ``Uniform(...)``, where ``Uniform`` is ExactUniformInt's
rejection sampling (a power of two masks, otherwise words below ``2**32 % n`` are redrawn).  A draw that runs
past the reserved blocks reads on into the next run's, as TF's does.  The crop arithmetic is float32 as in the
C++ (``lrintf`` rounds half to even); the one double expression is TF's too.
"""

from __future__ import annotations

import collections

import numpy as np

from graph import errors
from graph.base import dtypes, kernels
from graph.base.shapes import TensorShape, debug_string
from graph.core.graph import name_scope
from graph.ops import philox
from graph.ops.conv_util import node
from graph.ops.op_builder import TypeAttr, apply_op

__all__ = ["sample_distorted_bounding_box"]

_F32 = np.float32
_SIZE_TYPES = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_WORD_CHUNK = 16  # blocks read from the generator at a time


class _SimplePhilox:
    """TF's SimplePhilox over a reserved Philox stream: one uint32 at a time, four per block."""

    def __init__(self, generator: philox.Philox):
        self._generator, self._next_block, self._words, self._used = generator, 0, [], 0

    def rand32(self) -> int:
        if self._used == len(self._words):
            self._words = self._generator.words(self._next_block, _WORD_CHUNK).tolist()
            self._next_block += _WORD_CHUNK
            self._used = 0
        self._used += 1
        return self._words[self._used - 1]

    def rand_float(self) -> np.float32:
        return philox.uint32_to_float(np.uint32(self.rand32()))

    def uniform(self, n: int) -> int:
        """ExactUniformInt<uint32>(n): uniform in [0, n) by rejection."""
        if n & (n - 1) == 0:  # a power of two (n == 0 consumes a word and gives 0, as TF's)
            return self.rand32() & (n - 1) if n else self.rand32() * 0
        reject_below = (0xFFFFFFFF % n) + 1
        word = self.rand32()
        while word < reject_below:
            word = self.rand32()
        return word % n


def _lrint(value) -> int:
    return int(np.rint(_F32(value)))


def _area(box) -> np.float32:
    min_x, min_y, max_x, max_y = box
    return _F32((max_x - min_x) * (max_y - min_y))


def _intersect(a, b):
    min_x, min_y, max_x, max_y = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (0, 0, 0, 0) if min_x > max_x or min_y > max_y else (min_x, min_y, max_x, max_y)


def _covers_an_object(crop, min_covered: np.float32, boxes: list) -> bool:
    """SatisfiesOverlapConstraints: a crop of at least one pixel covering ``min_covered`` of some box."""
    if _area(crop) < _F32(1):
        return False
    for box in boxes:
        object_area = _area(box)
        if object_area < _F32(1):
            continue
        if _area(_intersect(crop, box)) / object_area >= min_covered:
            return True
    return False


def _random_crop(width: int, height: int, min_share: np.float32, max_share: np.float32, aspect: np.float32,
                 random: _SimplePhilox):
    """GenerateRandomCrop: (min_x, min_y, max_x, max_y), or None when the constraints cannot be met."""
    if max_share <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_share > max_share:
        return None
    min_area = min_share * _F32(width) * _F32(height)
    max_area = max_share * _F32(width) * _F32(height)
    crop_height = _lrint(np.sqrt(min_area / aspect))
    max_height = _lrint(np.sqrt(max_area / aspect))
    if _lrint(_F32(max_height) * aspect) > width:
        # the largest height whose rounded width fits (a double expression in TF)
        max_height = int((width + 0.5 - float(_F32(0.0000001))) / float(aspect))
        if _lrint(_F32(max_height) * aspect) > width:
            max_height -= 1
    max_height = min(max_height, height)
    crop_height = min(crop_height, max_height)
    if crop_height < max_height:
        crop_height += random.uniform(max_height - crop_height + 1)
    crop_width = _lrint(_F32(crop_height) * aspect)
    area = _F32(crop_width * crop_height)
    if area < min_area:
        crop_height += 1
        crop_width = _lrint(_F32(crop_height) * aspect)
        area = _F32(crop_width * crop_height)
    if area > max_area:
        crop_height -= 1
        crop_width = _lrint(_F32(crop_height) * aspect)
        area = _F32(crop_width * crop_height)
    if (area < min_area or area > max_area or crop_width > width or crop_height > height or crop_width <= 0
            or crop_height <= 0):
        return None
    y = random.uniform(height - crop_height) if crop_height < height else 0
    x = random.uniform(width - crop_width) if crop_width < width else 0
    return x, y, x + crop_width, y + crop_height


def _check_attrs(op) -> tuple:
    aspect, area, attempts = op._attrs["aspect_ratio_range"], op._attrs["area_range"], op._attrs["max_attempts"]
    if len(aspect) != 2:
        raise errors.InvalidArgumentError(None, op, "Aspect ratio range field must specify 2 dimensions")
    if not (aspect[0] > 0 and aspect[1] > 0):
        raise errors.InvalidArgumentError(None, op, f"Aspect ratio range must be non-negative: "
                                                    f"[{aspect[0]:g}, {aspect[1]:g}]")
    if len(area) != 2:
        raise errors.InvalidArgumentError(None, op, "Area range field must specify 2 dimensions")
    if not (area[0] > 0 and area[1] > 0):
        raise errors.InvalidArgumentError(None, op, f"Area range must be non-negative: [{area[0]:g}, {area[1]:g}]")
    if not (area[0] <= 1 and area[1] <= 1):
        raise errors.InvalidArgumentError(None, op, f"Area range must be less then or equal to 1.0: "
                                                    f"[{area[0]:g}, {area[1]:g}]")
    if attempts <= 0:
        raise errors.InvalidArgumentError(None, op, f"Max attempts must be non-negative: {attempts}")
    return [_F32(v) for v in aspect], [_F32(v) for v in area], int(attempts)


def _object_boxes(op, boxes: np.ndarray, width: int, height: int) -> list:
    if boxes.ndim != 3:
        raise errors.InvalidArgumentError(None, op, "input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                                          + debug_string(boxes.shape))
    if boxes.shape[-1] != 4:
        raise errors.InvalidArgumentError(None, op, "bounding boxes must have shape [4] or [*, 4], got "
                                          + debug_string(boxes.shape))
    rectangles = []
    for box in boxes.reshape(-1, 4).astype(_F32):
        for value in box:
            if not 0.0 <= value <= 1.0:
                raise errors.InvalidArgumentError(None, op, f"All bounding box coordinates must be in [0.0, 1.0]: "
                                                            f"{value:g}")
        ymin, xmin, ymax, xmax = (int(np.trunc(v * _F32(size))) for v, size in
                                  zip(box, (height, width, height, width)))
        rectangles.append((xmin, ymin, xmax, ymax))
    return rectangles


def _compute(ctx, op, inputs):
    (low_aspect, high_aspect), (low_area, high_area), attempts = _check_attrs(op)
    image_size, boxes, min_covered = (np.asarray(value) for value in inputs)
    if image_size.ndim != 1:
        raise errors.InvalidArgumentError(None, op, "image_size must be 1-dimensional" + debug_string(image_size.shape))
    if image_size.shape[0] != 3:
        raise errors.InvalidArgumentError(None, op, "image_size must contain 3 elements"
                                          + debug_string(image_size.shape))
    height_raw, width_raw = (int(np.asarray(v).astype(np.uint64)) for v in image_size[:2])  # as uint64, as TF reads
    if height_raw >= 2**31 - 1:
        raise errors.InvalidArgumentError(None, op, "image height cannot be >= int32 max")
    if width_raw >= 2**31 - 1:
        raise errors.InvalidArgumentError(None, op, "image width cannot be >= int32 max")
    height, width = height_raw, width_raw
    objects = _object_boxes(op, boxes, width, height)
    if min_covered.ndim != 0:
        raise errors.InvalidArgumentError(None, op, "min_object_covered must be 0-D, got shape "
                                          + debug_string(min_covered.shape))
    min_covered = _F32(min_covered)
    if not min_covered >= 0:
        raise errors.InvalidArgumentError(None, op, f"Min object covered must be non-negative: {min_covered:g}")
    whole_image = (0, 0, width, height)
    if not objects:
        if not op._attrs["use_image_if_no_bounding_boxes"]:
            raise errors.InvalidArgumentError(None, op, "No bounding boxes provided as input. One must enable "
                                              "use_image_if_no_bounding_boxes if you wish to not provide any "
                                              "bounding boxes.")
        objects = [whole_image]
    random = _SimplePhilox(philox.session_generator(ctx, op).reserve((4 * attempts + 3) // 4))
    crop = whole_image
    for _ in range(attempts):
        aspect = random.rand_float() * (high_aspect - low_aspect) + low_aspect
        candidate = _random_crop(width, height, low_area, high_area, aspect, random)
        if candidate is not None and _covers_an_object(candidate, min_covered, objects):
            crop = candidate
            break
    min_x, min_y, max_x, max_y = crop
    dtype = op._attrs["T"].numpy_dtype
    begin = np.array([min_y, min_x, 0], dtype=dtype)
    size = np.array([max_y - min_y, max_x - min_x, -1]).astype(dtype)
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty image divides by 0, as TF's
        bboxes = np.array([min_y, min_x, max_y, max_x], _F32) / np.array([height, width, height, width], _F32)
    return [begin, size, bboxes.reshape(1, 1, 4)]


def _infer(op):
    image_size, boxes, min_covered = (t.shape for t in op._inputs)
    shapes = f"{image_size.message_string()}, {boxes.message_string()}, {min_covered.message_string()}"
    for shape, rank in ((image_size, 1), (boxes, 3), (min_covered, 0)):
        if shape.ndims is not None and shape.ndims != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims} for {node(op)} with input shapes: "
                             f"{shapes}.")
    for shape, index, value in ((image_size, 0, 3), (boxes, 2, 4)):
        dim = shape.dims[index].value if shape.ndims is not None else None
        if dim is not None and dim != value:
            raise ValueError(f"Dimension must be {value} but is {dim} for {node(op)} with input shapes: {shapes}.")
    size_type = op._attrs["T"]
    return [(size_type, TensorShape([3])), (size_type, TensorShape([3])), (dtypes.float32, TensorShape([1, 1, 4]))]


kernels.register("SampleDistortedBoundingBoxV2", infer=_infer, compute=_compute, stateful=True,
                 default_attrs={"seed": 0, "seed2": 0, "aspect_ratio_range": [0.75, 1.33], "area_range": [0.05, 1.0],
                                "max_attempts": 100, "use_image_if_no_bounding_boxes": False})


def _float_list(value, argument: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{argument}' argument to 'sample_distorted_bounding_box_v2' Op, not "
                        f"{value!r}.")
    return [float(_F32(float(v))) for v in value]  # a list(float) attr holds float32 values


# TF's generated wrapper returns the outputs as a namedtuple named after the op.
SampleDistortedBoundingBoxV2 = collections.namedtuple("SampleDistortedBoundingBoxV2", ["begin", "size", "bboxes"])


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name: str | None = None):
    """``(begin, size, bboxes)``: a random crop of an image of ``image_size`` covering at least
    ``min_object_covered`` of one of ``bounding_boxes`` (``[batch, N, 4]`` of ``[ymin, xmin, ymax, xmax]`` in
    [0, 1]), for ``tf.slice`` and ``draw_bounding_boxes``.  ``seed`` and ``seed2`` are the op's own (TF1 reads
    no graph seed here); both 0 draws from the OS."""
    attrs = {"seed": int(seed or 0), "seed2": int(seed2 or 0),
             "aspect_ratio_range": _float_list([0.75, 1.33] if aspect_ratio_range is None else aspect_ratio_range,
                                               "aspect_ratio_range"),
             "area_range": _float_list([0.05, 1] if area_range is None else area_range, "area_range"),
             "max_attempts": 100 if max_attempts is None else int(max_attempts),
             "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
    with name_scope(name, "sample_distorted_bounding_box"):
        op = apply_op("SampleDistortedBoundingBoxV2", [
            (image_size, "image_size", TypeAttr(_SIZE_TYPES)), (bounding_boxes, "bounding_boxes", dtypes.float32),
            (min_object_covered, "min_object_covered", dtypes.float32)],
            lambda size, *_: {"T": size.dtype.base_dtype, **attrs}, name=name)
        return SampleDistortedBoundingBoxV2(*op.outputs)
