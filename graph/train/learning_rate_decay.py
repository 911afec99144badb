"""Learning-rate schedules of ``tf.compat.v1.train``: decayed rates as graph tensors of the global step.

Each function builds what TensorFlow 1.x builds in graph mode (its Keras ``LearningRateSchedule``
called once on ``global_step``): ops under the schedule's scope (``ExponentialDecay``,
``PolynomialDecay``, ``SGDRDecay`` ...), the rate converted as ``initial_learning_rate``, every
other argument and the step cast to the rate's dtype, the result op named after the scope.
"""

from __future__ import annotations

import math

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import constant_ops, control_flow_ops, math_ops, random_ops
from graph.ops.math_grad_ops import where_v2
from graph.ops.control_flow_case import case

__all__ = [
    "exponential_decay", "piecewise_constant", "polynomial_decay", "natural_exp_decay", "inverse_time_decay",
    "cosine_decay", "cosine_decay_restarts", "linear_cosine_decay", "noisy_linear_cosine_decay",
]


def _initial_rate(learning_rate) -> Tensor:
    """The learning rate as a tensor, named as TF's schedules name it."""
    return convert_to_tensor(learning_rate, name="initial_learning_rate")


def _rate_and_decay_fraction(learning_rate, global_step, decay_steps, decay_rate, staircase: bool) -> tuple:
    """(rate, decay_rate, global_step / decay_steps floored if ``staircase``), all in the rate's dtype.

    The opening ExponentialDecay and InverseTimeDecay share, in TensorFlow's op order.
    """
    rate = _initial_rate(learning_rate)
    dtype = rate.dtype
    decay_steps = math_ops.cast(decay_steps, dtype)
    decay_rate = math_ops.cast(decay_rate, dtype)
    p = math_ops.cast(global_step, dtype) / decay_steps
    if staircase:
        p = math_ops.floor(p)
    return rate, decay_rate, p


def _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name) -> Tensor:
    """ExponentialDecay: ``learning_rate * decay_rate ** p``."""
    with name_scope(name, "ExponentialDecay") as scope:
        rate, decay_rate, p = _rate_and_decay_fraction(learning_rate, global_step, decay_steps, decay_rate,
                                                       staircase)
        return math_ops.multiply(rate, math_ops.pow(decay_rate, p), name=scope)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: bool = False,
                      name: str | None = None) -> Tensor:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``, the exponent floored if ``staircase``."""
    return _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: bool = False,
                      name: str | None = None) -> Tensor:
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)`` (an ExponentialDecay of rate e^-r)."""
    natural_exp_rate = math_ops.exp(math_ops.negative(decay_rate))  # outside the scope, as TensorFlow
    return _exponential(learning_rate, global_step, decay_steps, natural_exp_rate, staircase, name)


def piecewise_constant(x, boundaries, values, name: str | None = None) -> Tensor:
    """``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]`` (``values[0]`` up to the first boundary).

    Raises:
        ValueError: if a boundary's dtype differs from ``x``'s (int32 boundaries are cast to an int64
            ``x``), or the values' dtypes differ.
    """
    boundaries = [convert_to_tensor(b) for b in _flatten(boundaries)]
    values = [convert_to_tensor(v) for v in _flatten(values)]
    x_recomp = convert_to_tensor(x)
    for i, boundary in enumerate(boundaries):
        if boundary.dtype.base_dtype != x_recomp.dtype.base_dtype:
            if boundary.dtype.base_dtype == dtypes_lib.int32 and x_recomp.dtype.base_dtype == dtypes_lib.int64:
                boundaries[i] = math_ops.cast(boundary, x_recomp.dtype.base_dtype)
            else:
                raise ValueError(f"Boundaries ({boundary.dtype.base_dtype}) must have the same dtype as x "
                                 f"({x_recomp.dtype.base_dtype}).")
    for value in values[1:]:
        if value.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError(f"Values must have elements all with the same dtype ({values[0].dtype.base_dtype} vs "
                             f"{value.dtype.base_dtype}).")
    with name_scope(name, "PiecewiseConstant"):
        x_recomp = convert_to_tensor(x)
        pred_fn_pairs = [(x_recomp <= boundaries[0], lambda: values[0]),
                         (x_recomp > boundaries[-1], lambda: values[-1])]
        for low, high, value in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred_fn_pairs.append(((x_recomp > low) & (x_recomp <= high), lambda value=value: value))
        return case(pred_fn_pairs, lambda: values[0], exclusive=True)


def _flatten(items) -> list:
    """The leaves of nested lists and tuples, in order (TF's nest.flatten on boundaries and values)."""
    if isinstance(items, (list, tuple)):
        return [leaf for item in items for leaf in _flatten(item)]
    return [items]


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle: bool = False, name: str | None = None) -> Tensor:
    """``(lr - end) * (1 - step / decay_steps) ** power + end``; past ``decay_steps`` the end rate, or with
    ``cycle`` ``decay_steps`` stretched to the next multiple above the step."""
    with name_scope(name, "PolynomialDecay") as scope:
        rate = _initial_rate(learning_rate)
        dtype = rate.dtype
        end_learning_rate = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        step = math_ops.cast(global_step, dtype)
        decay_steps_recomp = math_ops.cast(decay_steps, dtype)
        if cycle:
            multiplier = where_v2(math_ops.equal(step, 0), 1.0, math_ops.ceil(step / decay_steps))
            decay_steps_recomp = math_ops.multiply(decay_steps_recomp, multiplier)
        else:
            step = math_ops.minimum(step, decay_steps_recomp)
        p = math_ops.divide(step, decay_steps_recomp)
        return math_ops.add(math_ops.multiply(rate - end_learning_rate, math_ops.pow(1 - p, power)),
                            end_learning_rate, name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: bool = False,
                       name: str | None = None) -> Tensor:
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``, the ratio floored if ``staircase``."""
    with name_scope(name, "InverseTimeDecay") as scope:
        rate, decay_rate, p = _rate_and_decay_fraction(learning_rate, global_step, decay_steps, decay_rate,
                                                       staircase)
        one = math_ops.cast(constant_ops.constant(1), rate.dtype)
        denominator = math_ops.add(one, math_ops.multiply(decay_rate, p))
        return math_ops.divide(rate, denominator, name=scope)


def _cosine(fraction) -> Tensor:
    """``0.5 * (1 + cos(pi * fraction))``."""
    return 0.5 * (1.0 + math_ops.cos(constant_ops.constant(math.pi) * fraction))


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name: str | None = None) -> Tensor:
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)``."""
    with name_scope(name, "CosineDecay"):
        rate = _initial_rate(learning_rate)
        dtype = rate.dtype
        decay_steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(math_ops.cast(global_step, dtype), decay_steps)
        decayed = (1 - alpha) * _cosine(step / decay_steps) + alpha
        return math_ops.multiply(rate, decayed)  # unnamed: TensorFlow's result is CosineDecay/Mul_N


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name: str | None = None) -> Tensor:
    """SGDR: cosine decay over periods growing by ``t_mul``, each restart's peak scaled by ``m_mul``."""
    with name_scope(name, "SGDRDecay") as scope:
        rate = _initial_rate(learning_rate)
        dtype = rate.dtype
        first_decay_steps = math_ops.cast(first_decay_steps, dtype)
        alpha = math_ops.cast(alpha, dtype)
        t_mul = math_ops.cast(t_mul, dtype)
        m_mul = math_ops.cast(m_mul, dtype)
        completed_fraction = math_ops.cast(global_step, dtype) / first_decay_steps

        def compute_step(fraction, geometric: bool):
            if geometric:  # period i lasts t_mul ** i: invert the geometric sum
                i_restart = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_mul)) / math_ops.log(t_mul))
                sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
                fraction = (fraction - sum_r) / t_mul ** i_restart
            else:
                i_restart = math_ops.floor(fraction)
                fraction -= i_restart
            return i_restart, fraction

        i_restart, completed_fraction = control_flow_ops.cond(
            math_ops.equal(t_mul, 1.0), lambda: compute_step(completed_fraction, geometric=False),
            lambda: compute_step(completed_fraction, geometric=True))
        m_fac = m_mul ** i_restart
        cosine_decayed = 0.5 * m_fac * (1.0 + math_ops.cos(constant_ops.constant(math.pi) * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(rate, decayed, name=scope)


def _linear_cosine(rate, step, decay_steps, linear_decayed, num_periods, alpha, beta, name: str) -> Tensor:
    """``rate * ((alpha + linear_decayed) * cosine + beta)``: the end both linear cosine schedules share."""
    completed_fraction = step / decay_steps  # before the 2.0 * num_periods product: TF's op order
    cosine_decayed = _cosine(2.0 * num_periods * completed_fraction)
    return math_ops.multiply(rate, (alpha + linear_decayed) * cosine_decayed + beta, name=name)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001,
                        name: str | None = None) -> Tensor:
    """``learning_rate * ((alpha + linear) * cosine + beta)`` with ``linear = 1 - step / decay_steps`` and
    ``cosine = 0.5 * (1 + cos(pi * 2 * num_periods * step / decay_steps))``."""
    with name_scope(name, "LinearCosineDecay") as scope:
        rate = _initial_rate(learning_rate)
        dtype = rate.dtype
        decay_steps = math_ops.cast(decay_steps, dtype)
        num_periods, alpha, beta = (math_ops.cast(value, dtype) for value in (num_periods, alpha, beta))
        step = math_ops.minimum(math_ops.cast(global_step, dtype), decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        return _linear_cosine(rate, step, decay_steps, linear_decayed, num_periods, alpha, beta, scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name: str | None = None) -> Tensor:
    """``linear_cosine_decay`` with N(0, initial_variance / (1 + step) ** variance_decay) noise added to the
    linear part (a ``RandomStandardNormal``: deterministic under ``tf.set_random_seed``)."""
    with name_scope(name, "NoisyLinearCosineDecay") as scope:
        rate = _initial_rate(learning_rate)
        dtype = rate.dtype
        decay_steps = math_ops.cast(decay_steps, dtype)
        initial_variance = math_ops.cast(initial_variance, dtype)
        variance_decay = math_ops.cast(variance_decay, dtype)
        num_periods, alpha, beta = (math_ops.cast(value, dtype) for value in (num_periods, alpha, beta))
        step = math_ops.minimum(math_ops.cast(global_step, dtype), decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
        std = math_ops.sqrt(variance)
        noisy_linear_decayed = linear_decayed + random_ops.random_normal(linear_decayed.shape, stddev=std)
        return _linear_cosine(rate, step, decay_steps, noisy_linear_decayed, num_periods, alpha, beta, scope)
