"""``tf.data.experimental``: the constants and helpers of that namespace that graph mode uses."""

from __future__ import annotations

from graph.data.dataset_ops import AUTOTUNE, INFINITE_CARDINALITY

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "get_structure"]


def get_structure(dataset_or_iterator):
    """The element structure (a TensorSpec per component) of a dataset or iterator."""
    return dataset_or_iterator.element_spec
