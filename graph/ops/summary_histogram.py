"""TensorFlow's histogram (core/lib/histogram/histogram.cc) as the HistogramSummary op fills and encodes it.

Bucket limits, built once in double precision exactly as ``InitDefaultBucketsInner`` does::

    positive : 1e-12, 1e-12 * 1.1, ... (each the previous times 1.1) while below 1e20, then DBL_MAX
    limits   : the negated positives in reverse, 0.0, the positives       (1549 limits)

A value ``v`` falls in bucket ``upper_bound(limits, v)``: bucket ``i`` counts values in
(``limits[i-1]``, ``limits[i]``].  ``sum`` and ``sum_squares`` accumulate in input order in double.
Encoding (``EncodeToProto`` with ``preserve_zero_buckets=false``) keeps every non-empty bucket and, of
each run of empty buckets, only the last one (its limit with count 0).
"""

from __future__ import annotations

import sys

import numpy as np

from graph.proto.summary import HistogramProto

__all__ = ["DEFAULT_BUCKET_LIMITS", "histogram_proto"]

_SMALLEST_LIMIT = 1.0e-12  # histogram.cc: the first positive limit ...
_LARGEST_LIMIT = 1.0e20  # ... limits grow while below this ...
_GROWTH = 1.1  # ... by 10% each
_DBL_MAX = sys.float_info.max


def _default_bucket_limits() -> np.ndarray:
    positive = []
    value = _SMALLEST_LIMIT
    while value < _LARGEST_LIMIT:
        positive.append(value)
        value *= _GROWTH  # repeated double multiplication, as the C++ loop does (not 1.1 ** k)
    positive.append(_DBL_MAX)
    limits = np.array([-v for v in reversed(positive)] + [0.0] + positive, dtype=np.float64)
    limits.setflags(write=False)
    return limits


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()


def histogram_proto(values: np.ndarray) -> HistogramProto:
    """The HistogramProto TensorFlow's HistogramSummary writes for finite ``values`` (any real dtype, any shape)."""
    flat = np.asarray(values).reshape(-1).astype(np.float64)
    limits = DEFAULT_BUCKET_LIMITS
    # upper_bound; DBL_MAX itself would fall past the end in TF (undefined there): it joins the last bucket
    index = np.minimum(np.searchsorted(limits, flat, side="right"), limits.size - 1)
    counts = np.bincount(index, minlength=limits.size).astype(np.float64)
    following_nonempty = np.append(counts[1:] > 0, True)  # the last bucket always closes a run
    kept = (counts > 0) | following_nonempty
    if flat.size:
        # np.cumsum adds in order, as Histogram::Add's running sums do (np.sum would sum pairwise)
        total, squares = float(np.cumsum(flat)[-1]), float(np.cumsum(flat * flat)[-1])
        low, high = float(flat.min()), float(flat.max())
    else:
        total, squares, low, high = 0.0, 0.0, _DBL_MAX, -_DBL_MAX  # Histogram::Clear's starting min and max
    return HistogramProto(min=low, max=high, num=float(flat.size), sum=total, sum_squares=squares,
                          bucket_limit=limits[kept].tolist(), bucket=counts[kept].tolist())
