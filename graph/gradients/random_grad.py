"""Gradient declarations of the random ops: samples carry no gradient (TensorFlow's ``random_ops.py``).

TensorFlow declares RandomStandardNormal, TruncatedNormal, RandomUniform and RandomShuffle
not differentiable; RandomUniformInt it leaves unregistered (its integers are never
differentiated), and so does this module.
"""

from __future__ import annotations

from graph.gradients.registry import NotDifferentiable

__all__: list[str] = []  # declarations only

for _op_type in ("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomShuffle"):
    NotDifferentiable(_op_type)
