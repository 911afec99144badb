"""TF1's ``create_partitioned_variables``: a variable sliced by an explicit ``slicing``, built through
``variable_scope`` (it sits above it; the partitioners and PartitionedVariable are in ``partitioning``).
"""

from __future__ import annotations

from graph.base import dtypes as dtypes_lib
from graph.variables import variable_scope

__all__ = ["create_partitioned_variables"]


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes_lib.float32, trainable: bool = True,
                                 collections=None, name: str | None = None, reuse=None) -> list:
    """Deprecated TF1 helper: the parts of a variable sliced by ``slicing`` (use get_variable + partitioner).

    Raises:
        ValueError: if ``shape`` and ``slicing`` differ in length or the rank is 0.
    """
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the length: "
                         f"shape: {shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    partitioner = lambda **unused_kwargs: slicing  # noqa: E731
    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned = variable_scope._get_partitioned_variable(
            name=None, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
            partitioner=partitioner, collections=collections)
        return list(partitioned)
