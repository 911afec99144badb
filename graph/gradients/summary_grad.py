"""Gradient declarations of the summary ops: none is differentiable, as TF's logging_ops.py declares them."""

from __future__ import annotations

from graph.gradients.registry import NotDifferentiable

__all__: list[str] = []

for _op_type in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummary", "AudioSummaryV2",
                 "MergeSummary", "TensorSummary", "TensorSummaryV2"):
    NotDifferentiable(_op_type)
