"""BoxMullerFloat's transcendental part through numexpr, which calls the C library's ``logf``, ``sinf``, ``cosf``.

TF's BoxMullerFloat calls the platform's ``logf`` and ``sincosf``; `graph.ops.libm` emulates glibc's bit for
bit in numpy (~40 passes).  numexpr evaluates float32 ``log``, ``sin`` and ``cos`` by calling the C library's
``logf``, ``sinf`` and ``cosf`` block by block on its own threads: on glibc these are the functions TF's kernel
calls (glibc's ``sinf``/``cosf`` and ``sincosf`` share one algorithm), about ten times faster than the emulation.

It is trusted only after a one-time self-check on first use: on a sample holding the hard cases (u1 at and
below the 1e-7 floor, u near 0 and 1, angles near multiples of pi/4 and near 2 pi, and every mantissa whose
float64 result lies near a float32 rounding midpoint) its results must equal `graph.ops.libm`'s bit for bit.
Another C library (musl, macOS), or a numexpr built with Intel's VML (its own vector ``log``/``sin``), gives
other last bits: the check fails and the emulation serves.  ``TF1_SAVER_RANDOM_NUMEXPR=0`` forces the emulation.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from graph.ops import libm

try:
    import numexpr
except ImportError:  # a core dependency, but an installation without it still draws TF's bits (emulation)
    numexpr = None

__all__ = ["ENVIRONMENT_VARIABLE", "enabled", "self_check", "radius_into", "box_muller_into", "angle_into",
           "sincos_into"]

ENVIRONMENT_VARIABLE = "TF1_SAVER_RANDOM_NUMEXPR"  # "0" (or "off", "false", "no"): always the emulation
_EPSILON_FLOAT = np.float32(1.0e-7)  # BoxMuller's floor for u1
_TWO_PI = np.float64(2.0 * np.pi)  # 2.0f * M_PI is a double: the product is taken in double
_RADIUS = "sqrt(-2 * log(where(u < eps, eps, u)))"  # int literal: stays float32 (a float one would widen)
_F32, _F64 = np.dtype("<f4"), np.dtype("<f8")

# Mantissas (u = m / 2^23) whose float64 logf (of max(u, 1e-7)) or sincosf (of float(2 pi u)) lies within
# libm's guard of a float32 rounding midpoint: all of them, found by scanning the 2^23 mantissas with libm's
# fast path (tests/graph/ops/test_random_numexpr.py checks each is one).
HARD_LOG_MANTISSAS = (
    0x107b8, 0x2b542, 0x14a81e, 0x163590, 0x16ab46, 0x1926f4, 0x1bd68f, 0x1f5239, 0x28a95e, 0x2bf4b1, 0x370fb4,
    0x387ff6, 0x3ff55f, 0x44d932, 0x46e327, 0x49e6a7, 0x4d2bd4, 0x4e7306, 0x4e97f8, 0x520ebc, 0x589eb4, 0x63e84c,
    0x6cf82e, 0x6db8ab, 0x76c20e, 0x77d884, 0x7ffffa, 0x7fffff)
HARD_SINCOS_MANTISSAS = (
    0x6ff8, 0xec47, 0x86e63, 0x9626f, 0xc687a, 0x116742, 0x127823, 0x130f08, 0x143b1b, 0x15e516, 0x180ddd,
    0x1acc77, 0x1ae18d, 0x1b5222, 0x1b7e70, 0x1c0f5b, 0x1edbbc, 0x200000, 0x2134e1, 0x2331f6, 0x24ec17, 0x2ad722,
    0x2b9879, 0x2d7af4, 0x2e2840, 0x2e7660, 0x2e91f1, 0x321929, 0x32a4e0, 0x3344d8, 0x375bf4, 0x386699, 0x3bc48e,
    0x3c1b72, 0x3c6950, 0x3cde17, 0x400000, 0x41f373, 0x43425f, 0x4a81cc, 0x4b1536, 0x4cf3f9, 0x56acae, 0x58b99f,
    0x59ee23, 0x59ff41, 0x5aa174, 0x5c76ac, 0x5ddefb, 0x6065ab, 0x629e02, 0x62e3b6, 0x63b4e9, 0x67726e, 0x6bbfa4,
    0x6cdb57, 0x6dfe92, 0x6fc829, 0x71daf0, 0x72ba88, 0x73a745, 0x77fd5e, 0x78f1e4, 0x7a9712, 0x7f3656, 0x7f5b34,
    0x7f9f1e)
_SAMPLE_RANDOM = 1 << 16
_STATE: dict = {}
_LOCK = threading.Lock()


def enabled() -> bool:
    """True when numexpr is installed, not switched off, and its first-use self-check passed (once a process)."""
    verdict = _STATE.get("verdict")
    if verdict is None:
        with _LOCK:
            verdict = _STATE.get("verdict")
            if verdict is None:
                switched_off = os.environ.get(ENVIRONMENT_VARIABLE, "1").strip().lower() in ("0", "off", "false", "no")
                verdict = _STATE["verdict"] = numexpr is not None and not switched_off and self_check() is None
    return verdict


def sample_mantissas() -> np.ndarray:
    """The self-check's mantissas: the edges, angles near k pi/4, the hard cases and a fixed random sample."""
    edges = [np.arange(4096), np.arange((1 << 23) - 4096, 1 << 23)]  # u near 0 (the floor, tiny angles) and 1
    quarter_turns = [np.arange(k * (1 << 20) - 256, k * (1 << 20) + 256) for k in range(1, 8)]  # v near k pi/4
    random = np.random.default_rng(20261124).integers(0, 1 << 23, _SAMPLE_RANDOM)
    hard = [np.array(HARD_LOG_MANTISSAS), np.array(HARD_SINCOS_MANTISSAS)]
    return np.unique(np.concatenate(edges + quarter_turns + hard + [random])).astype(np.uint32)


def self_check() -> str | None:
    """None when numexpr's logf, sinf, cosf and the Box-Muller expressions equal `graph.ops.libm`'s bit for bit
    on `sample_mantissas`; else what differs."""
    u = (sample_mantissas() | np.uint32(0x3F800000)).view(_F32) - np.float32(1.0)
    floored = np.maximum(u, _EPSILON_FLOAT)
    angle = angle_into(u, np.empty_like(u))
    log_ours = libm.logf(floored)
    sine_ours, cosine_ours = libm.sincosf(angle)
    radius_ours = np.sqrt(np.float32(-2.0) * log_ours)
    radius, sine, cosine = np.empty_like(u), np.empty_like(u), np.empty_like(u)
    box_muller_into(u, angle, radius, sine, cosine)
    sine_alone, cosine_alone = np.empty_like(u), np.empty_like(u)
    sincos_into(angle, sine_alone, cosine_alone)
    compared = {
        "logf": (numexpr.evaluate("log(x)", local_dict={"x": floored}), log_ours),
        "sinf": (sine_alone, sine_ours),
        "cosf": (cosine_alone, cosine_ours),
        "radius": (radius, radius_ours),
        "sin * r": (sine, sine_ours * radius_ours),
        "cos * r": (cosine, cosine_ours * radius_ours),
    }
    for name, (theirs, ours) in compared.items():
        if theirs.dtype != _F32:
            return f"numexpr's {name} gives {theirs.dtype}, not float32"
        differ = np.count_nonzero(theirs.view(np.uint32) != ours.view(np.uint32))
        if differ:
            return f"numexpr's {name} differs from glibc's (graph.ops.libm) on {differ} of {u.size} inputs"
    return None


def angle_into(u: np.ndarray, out: np.ndarray) -> np.ndarray:
    """BoxMullerFloat's angle ``float(2 * pi * u)`` (the product in double, rounded to float32 once) into ``out``."""
    np.multiply(u, _TWO_PI, out=out, dtype=_F64, casting="unsafe")
    return out


def radius_into(u: np.ndarray, out: np.ndarray) -> np.ndarray:
    """BoxMullerFloat's radius ``sqrtf(-2 * logf(max(u, 1e-7f)))`` of float32 ``u`` into float32 ``out``."""
    numexpr.evaluate(_RADIUS, local_dict={"u": u, "eps": _EPSILON_FLOAT}, out=out, casting="same_kind")
    return out


def box_muller_into(u: np.ndarray, angle: np.ndarray, radius: np.ndarray, sine_out: np.ndarray,
                    cosine_out: np.ndarray) -> None:
    """BoxMullerFloat from its inputs ``u`` and ``angle``: the radius into ``radius`` (`radius_into`), then
    ``sinf(angle) * radius`` into ``sine_out`` and ``cosf(angle) * radius`` into ``cosine_out`` (float32, any
    strides, all of one shape)."""
    radius_into(u, radius)
    names = {"v": angle, "r": radius}
    numexpr.evaluate("sin(v) * r", local_dict=names, out=sine_out, casting="same_kind")
    numexpr.evaluate("cos(v) * r", local_dict=names, out=cosine_out, casting="same_kind")


def sincos_into(angle: np.ndarray, sine_out: np.ndarray, cosine_out: np.ndarray) -> None:
    """``sinf(angle)`` into ``sine_out`` and ``cosf(angle)`` into ``cosine_out`` (float32)."""
    numexpr.evaluate("sin(v)", local_dict={"v": angle}, out=sine_out, casting="same_kind")
    numexpr.evaluate("cos(v)", local_dict={"v": angle}, out=cosine_out, casting="same_kind")
