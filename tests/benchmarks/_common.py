"""What the benchmark scripts share: whether TensorFlow is installed, and the TF / ours ratio column."""

from __future__ import annotations

import importlib.util

NO_TENSORFLOW = ("TensorFlow is not installed (pip install tensorflow-cpu to compare): "
                 "showing our numbers only, without ratios.")
RATIO_LEGEND = "TF / ours = TensorFlow's time divided by ours: above 1 we are faster."


def have_tensorflow() -> bool:
    """True when ``import tensorflow`` would find a package (found without importing it: ~3 s)."""
    return importlib.util.find_spec("tensorflow") is not None


def ratio(ours: float | None, theirs: float | None) -> str:
    """``"2.35x"``, TensorFlow's time over ours; ``"-"`` when either number is missing."""
    if not isinstance(theirs, (int, float)) or not isinstance(ours, (int, float)) or not ours:
        return "-"
    return f"{theirs / ours:.2f}x"
