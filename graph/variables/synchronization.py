"""VariableSynchronization and VariableAggregation: TF's distribution options of a variable, validated."""

from __future__ import annotations

import enum

__all__ = ["VariableSynchronization", "VariableAggregation", "validate_synchronization_aggregation_trainable"]


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (TensorFlow's enum values)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are aggregated (TensorFlow's enum values)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable, name):
    """Defaults and checks for the distribution arguments (TF's variables.py)."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, VariableAggregation):
        try:
            aggregation = VariableAggregation(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: {name}") from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    elif type(synchronization) is not VariableSynchronization:
        try:
            synchronization = VariableSynchronization(synchronization)
        except ValueError:
            raise ValueError(
                f"Invalid variable synchronization mode: {synchronization} for variable: {name}") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable
