"""``tf.image.combined_non_max_suppression``: the ``CombinedNonMaxSuppression`` kernel, TF's order to the tie.

TF's kernel (core/kernels/image/non_max_suppression_op.cc) runs greedy hard NMS per (batch, class): the
candidates above ``score_threshold`` wait in a ``std::priority_queue`` ordered by score alone, so equal scores
leave in the order libstdc++'s binary heap gives them; each is dropped when its float32 IoU with a box selected
before it in that class exceeds ``iou_threshold``.  Each class fills ``min(max_output_size_per_class,
num_boxes)`` slots, the rest holding placeholders of score -1 (so TF outputs one, class -1, ahead of a kept box
scoring below -1); the batch's slots are put in descending score order by ``std::sort`` (unstable: libstdc++'s
introsort decides ties too), and the first ``valid_detections`` become the outputs, boxes clipped to [0, 1]
when ``clip_boxes``.  Both libstdc++ algorithms are replayed step by step (`_Heap`, `_introsort`), so ties come
out as in TF.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator

import numpy as np

from graph import errors
from graph.base import dtypes, kernels
from graph.base.shapes import TensorShape, debug_string
from graph.core.graph import convert_to_tensor, name_scope
from graph.ops import constant_ops
from graph.ops.image_box_ops import _Boxes
from graph.ops.image_crop_resize_ops import merge_dims, shape_error, with_rank, with_value
from graph.ops.op_builder import apply_op

__all__ = ["combined_non_max_suppression"]

_F32 = np.float32
_INSERTION_THRESHOLD = 16  # libstdc++'s _S_threshold


# ----------------------------------------------------------------- libstdc++'s heap and sort
def _push_heap(items: list, first: int, hole: int, top: int, value, less) -> None:
    """std::__push_heap on the heap starting at ``items[first]`` (``hole`` and ``top`` relative to it)."""
    parent = (hole - 1) // 2
    while hole > top and less(items[first + parent], value):
        items[first + hole] = items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    items[first + hole] = value


def _adjust_heap(items: list, first: int, hole: int, length: int, value, less) -> None:
    """std::__adjust_heap on the heap ``items[first:first + length]`` (``hole`` relative to ``first``)."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(items[first + child], items[first + child - 1]):
            child -= 1
        items[first + hole] = items[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        items[first + hole] = items[first + child - 1]
        hole = child - 1
    _push_heap(items, first, hole, top, value, less)


class _Heap:
    """std::priority_queue over a vector: ``less`` orders it, the greatest is on top."""

    def __init__(self, less):
        self.items, self.less = [], less

    def push(self, value) -> None:
        self.items.append(value)
        _push_heap(self.items, 0, len(self.items) - 1, 0, value, self.less)

    def pop(self):
        top, last = self.items[0], self.items[-1]
        self.items[-1] = top
        _adjust_heap(self.items, 0, 0, len(self.items) - 1, last, self.less)
        self.items.pop()
        return top


def _heap_sort(items: list, first: int, last: int, less) -> None:
    """std::__partial_sort(first, last, last): make_heap, then sort_heap."""
    length = last - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(items, first, parent, length, items[first + parent], less)
    while last - first > 1:
        last -= 1
        value = items[last]
        items[last] = items[first]
        _adjust_heap(items, first, 0, last - first, value, less)


def _median_to_first(items: list, result: int, a: int, b: int, c: int, less) -> None:
    if less(items[a], items[b]):
        pick = b if less(items[b], items[c]) else (c if less(items[a], items[c]) else a)
    else:
        pick = a if less(items[a], items[c]) else (c if less(items[b], items[c]) else b)
    items[result], items[pick] = items[pick], items[result]


def _partition(items: list, first: int, last: int, pivot: int, less) -> int:
    while True:
        while less(items[first], items[pivot]):
            first += 1
        last -= 1
        while less(items[pivot], items[last]):
            last -= 1
        if not first < last:
            return first
        items[first], items[last] = items[last], items[first]
        first += 1


def _introsort_loop(items: list, first: int, last: int, depth: int, less) -> None:
    while last - first > _INSERTION_THRESHOLD:
        if depth == 0:
            _heap_sort(items, first, last, less)
            return
        depth -= 1
        _median_to_first(items, first, first + 1, first + (last - first) // 2, last - 1, less)
        cut = _partition(items, first + 1, last, first, less)
        _introsort_loop(items, cut, last, depth, less)
        last = cut


def _linear_insert(items: list, position: int, less) -> None:
    value = items[position]
    while less(value, items[position - 1]):
        items[position] = items[position - 1]
        position -= 1
    items[position] = value


def _insertion_sort(items: list, first: int, last: int, less) -> None:
    for i in range(first + 1, last):
        if less(items[i], items[first]):
            value = items[i]
            items[first + 1:i + 1] = items[first:i]
            items[first] = value
        else:
            _linear_insert(items, i, less)


def _introsort(items: list, less) -> None:
    """std::sort(items.begin(), items.end(), less) as libstdc++ runs it."""
    if len(items) < 2:
        return
    _introsort_loop(items, 0, len(items), 2 * (len(items).bit_length() - 1), less)
    if len(items) > _INSERTION_THRESHOLD:
        _insertion_sort(items, 0, _INSERTION_THRESHOLD, less)
        for i in range(_INSERTION_THRESHOLD, len(items)):
            _linear_insert(items, i, less)
    else:
        _insertion_sort(items, 0, len(items), less)


# ----------------------------------------------------------------- the kernel
def _class_candidates(boxes: np.ndarray, scores: np.ndarray, size_per_class: int, score_threshold: float,
                      iou_threshold: float) -> Iterator[tuple[float, int]]:
    """DoNMSPerClass: (score, box index) of the boxes one class keeps, in selection order, at most
    ``size_per_class``."""
    queue = _Heap(lambda a, b: a[0] < b[0])
    for index, score in enumerate(scores.tolist()):
        if score > score_threshold:
            queue.push((score, index))
    corners = _Boxes(boxes)
    selected = []
    while len(selected) < size_per_class and queue.items:
        score, index = queue.pop()
        if selected:
            ious = corners.iou(index, selected[::-1])
            if np.any(ious > _F32(iou_threshold)):
                continue
        selected.append(index)
        yield score, index


def _checked_inputs(op, inputs) -> tuple:
    boxes, scores = np.asarray(inputs[0], _F32), np.asarray(inputs[1], _F32)
    if (boxes.shape[:1] or (0,)) != (scores.shape[:1] or (0,)):
        raise errors.InvalidArgumentError(None, op, "boxes and scores must have same batch size")
    limits = []
    for value, what, message in ((inputs[2], "max_size_per_class", "max_size_per_class must be positive"),
                                 (inputs[3], "max_total_size", "max_total_size must be > 0")):
        value = np.asarray(value)
        if value.ndim != 0:
            raise errors.InvalidArgumentError(None, op, f"{what} must be 0-D, got shape {debug_string(value.shape)}")
        if int(value) <= 0:
            raise errors.InvalidArgumentError(None, op, message)
        limits.append(int(value))
    thresholds = []
    for value, what in ((inputs[4], "iou_threshold"), (inputs[5], "score_threshold")):
        value = np.asarray(value)
        if value.ndim != 0:
            raise errors.InvalidArgumentError(None, op, f"{what} must be 0-D, got shape {debug_string(value.shape)}")
        thresholds.append(float(_F32(value)))
    if not 0 <= thresholds[0] <= 1:
        raise errors.InvalidArgumentError(None, op, "iou_threshold must be in [0, 1]")
    num_classes = scores.shape[2] if scores.ndim > 2 else 0  # TF reads dim_size(2) before checking the rank
    if boxes.ndim != 4:
        raise errors.InvalidArgumentError(None, op, "boxes must be 4-D" + debug_string(boxes.shape))
    if boxes.shape[2] not in (1, num_classes):
        raise errors.InvalidArgumentError(None, op, "third dimension of boxes must be either 1 or num classes")
    if boxes.shape[3] != 4:
        raise errors.InvalidArgumentError(None, op, "boxes must have 4 columns")
    if scores.ndim != 3:
        raise errors.InvalidArgumentError(None, op, "scores must be 3-D" + debug_string(scores.shape))
    if scores.shape[1] != boxes.shape[1]:
        raise errors.InvalidArgumentError(None, op, "scores has incompatible shape")
    return boxes, scores, limits, thresholds


def _compute(ctx, op, inputs):
    boxes, scores, (per_class, total), (iou_threshold, score_threshold) = _checked_inputs(op, inputs)
    batches, num_boxes, q, _ = boxes.shape
    num_classes = scores.shape[2]
    size_per_class = min(per_class, num_boxes)
    pad_per_class, clip = bool(op._attrs["pad_per_class"]), bool(op._attrs["clip_boxes"])
    per_batch = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((batches, per_batch, 4), _F32)
    out_scores = np.zeros((batches, per_batch), _F32)
    out_classes = np.zeros((batches, per_batch), _F32)
    valid = np.zeros(batches, np.int32)
    placeholder = (-1.0, -1, -1)  # TF 2.21's empty slot: score -1, so a kept box scoring below -1 sorts after it
    for batch in range(batches):
        slots = [placeholder] * (size_per_class * num_classes)  # (score, box index, class)
        for label in range(num_classes):
            class_boxes = boxes[batch, :, label if q > 1 else 0]
            for rank, (score, index) in enumerate(_class_candidates(class_boxes, scores[batch, :, label],
                                                                    size_per_class, score_threshold,
                                                                    iou_threshold)):
                slots[rank + size_per_class * label] = (score, index, label)
        _introsort(slots, lambda a, b: b[0] < a[0])
        found = sum(1 for slot in slots if slot[1] > -1)
        count = min(found, per_batch if pad_per_class else total)
        valid[batch] = count
        for rank, (score, index, label) in enumerate(slots[:count]):
            box = boxes[batch, index, label if q > 1 else 0] if index > -1 else np.zeros(4, _F32)
            out_boxes[batch, rank] = np.maximum(np.minimum(box, _F32(1)), _F32(0)) if clip else box
            out_scores[batch, rank] = score
            out_classes[batch, rank] = label
    return [out_boxes, out_scores, out_classes, valid]


def _scalar_dim(op, index: int):
    """InferenceContext::MakeDimForScalarInput: the input's constant value as a dimension (None if unknown)."""
    value = constant_ops.inferred_value(op._inputs[index])
    if value is None:
        return None
    if int(value) < 0:
        raise shape_error(op, f"Dimension size, given by scalar input {index}, must be non-negative but is "
                              f"{int(value)}")
    return int(value)


def _infer(op):
    boxes, scores = with_rank(op, 0, 4), with_rank(op, 1, 3)
    for index in range(2, 6):
        with_rank(op, index, 0)
    merge_dims(op, boxes.dims[0], scores.dims[0])
    merge_dims(op, boxes.dims[1], scores.dims[1])
    with_value(op, boxes.dims[3], 4)
    q, num_classes = boxes.dims[2].value, scores.dims[2].value
    if q is not None and num_classes is not None and q != 1 and q != num_classes:
        raise ValueError("third dimension of boxes must be either 1 or equal to the third dimension of scores")
    total = _scalar_dim(op, 3)
    if total is not None and total <= 0:
        raise ValueError("max_total_size should be > 0 ")
    per_class = _scalar_dim(op, 2)
    size = total
    if op._attrs["pad_per_class"]:
        if per_class is not None and per_class <= 0:
            raise ValueError("max_output_size_per_class must be > 0 ")
        size = None
        if num_classes is not None and total is not None and per_class is not None:
            size = min(total, per_class * num_classes)
    batch = boxes.dims[0].value
    return [(dtypes.float32, TensorShape([batch, size, 4])), (dtypes.float32, TensorShape([batch, size])),
            (dtypes.float32, TensorShape([batch, size])), (dtypes.int32, TensorShape([batch]))]


kernels.register("CombinedNonMaxSuppression", infer=_infer, compute=_compute,
                 default_attrs={"pad_per_class": False, "clip_boxes": True})


# TF's generated wrapper returns the outputs as a namedtuple named after the op.
CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression", ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"])


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None):
    """``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``: greedy NMS of each class of each image
    (boxes ``[batch, num_boxes, q, 4]``, ``q`` 1 or one per class; scores ``[batch, num_boxes, num_classes]``),
    the best ``max_total_size`` of a batch kept, zero-padded."""
    with name_scope(name, "combined_non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold")
        max_total_size = convert_to_tensor(max_total_size)
        op = apply_op("CombinedNonMaxSuppression", [
            (boxes, "boxes", dtypes.float32), (scores, "scores", dtypes.float32),
            (max_output_size_per_class, "max_output_size_per_class", dtypes.int32),
            (max_total_size, "max_total_size", dtypes.int32), (iou_threshold, "iou_threshold", dtypes.float32),
            (score_threshold, "score_threshold", dtypes.float32)],
            {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)})
        return CombinedNonMaxSuppression(*op.outputs)
