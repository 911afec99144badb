"""BoxMullerFloat by table lookup: its radius and (sin, cos) for each of the 2^23 mantissas it reads, built once.

BoxMullerFloat(x0, x1) reads 23 bits of each word: u1 = Uint32ToFloat(x0) and the angle's u2 = Uint32ToFloat(x1)
are their mantissas over 2^23.  So the radius ``sqrtf(-2 logf(max(u1, 1e-7f)))`` has 2^23 possible values and
``sincosf(float(2 pi u2))`` 2^23 possible pairs::

    radius: float32[2^23]       radius[x0 & 0x7fffff]                     32 MiB
    sincos: float32[2^23, 2]    (sinf, cosf)[x1 & 0x7fffff], one gather    64 MiB

The tables are filled by the direct path itself (numexpr's C library calls, `graph.ops.random_numexpr`, or
else the emulation, `graph.ops.random_box_muller`), so a lookup gives the same float32 values, and ``sin * r``,
``cos * r`` are then the same float32 products: the draws are the same bits.  A lookup is a few passes and two
gathers against the direct path's logf, sinf and cosf per pair (measured at 10M normals: 70 ms by lookup,
117 ms through numexpr, at a load of 1.7 on 2 cores); building costs about what the direct path spends on
2^23 pairs.  Ski rental decides: a process builds the tables when what it has spent on the direct path reaches
that, or when one draw needs as much, and keeps them for its lifetime.  A draw's cost is counted in pairs: its
pairs plus `DRAW_OVERHEAD_PAIRS` for its fixed cost (a direct draw's dozens of numpy and numexpr calls take
about as long as computing that many pairs), so many small draws count for what they take.

Environment: ``TF1_SAVER_RANDOM_TABLES=0`` turns the tables off (memory-tight processes: the direct path
always, no 96 MiB).
"""

from __future__ import annotations

import os
import threading
from typing import Callable, NamedTuple

import numpy as np

from graph.ops import random_box_muller as bm
from graph.ops import random_numexpr

__all__ = ["Tables", "ENVIRONMENT_VARIABLE", "TABLE_PAIRS", "DRAW_OVERHEAD_PAIRS", "acquire", "built", "lookup_into",
           "pairs_into"]

ENVIRONMENT_VARIABLE = "TF1_SAVER_RANDOM_TABLES"  # "0" (or "off", "false", "no") disables the tables
TABLE_PAIRS = 1 << 23  # the mantissas Uint32ToFloat reads: one table row each
DRAW_OVERHEAD_PAIRS = 2048  # a direct draw's fixed cost (~90 us) in pairs (~30 ns each on one core)
_MANTISSA = np.uint64(0x7FFFFF)
_HIGH_WORD = np.uint64(32)
_BUILD_CHUNK = 1 << 15  # the emulation's temporaries of a build chunk stay in the core's cache
_BUILD_CHUNK_NUMEXPR = 1 << 20  # numexpr splits each call over its own threads: large calls, from one thread
_F32, _U64 = np.dtype("<f4"), np.dtype("<u8")


class Tables(NamedTuple):
    """The radius table (float32[2^23]) and the (sin, cos) table as one uint64 per row (its two float32s)."""

    radius: np.ndarray
    sincos: np.ndarray


class _State:
    """The process's tables (once built) and the direct-path pairs counted toward building them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tables: Tables | None = None
        self.direct_pairs = 0
        self.enabled = os.environ.get(ENVIRONMENT_VARIABLE, "1").strip().lower() not in ("0", "off", "false", "no")


_STATE = _State()
if hasattr(os, "register_at_fork"):  # a fork while another thread builds must not leave the lock held
    os.register_at_fork(after_in_child=lambda: setattr(_STATE, "lock", threading.Lock()))


def built() -> Tables | None:
    """The tables if this process has built them, else None."""
    return _STATE.tables


def acquire(pairs: int, run_parallel: Callable[[int, Callable[[int, int], None]], None]) -> Tables | None:
    """The tables for a draw of ``pairs`` Box-Muller pairs, built now if the ski-rental rule says so; None when the
    draw takes the direct path (its cost is counted).  ``run_parallel(count, run)`` runs ``run(first, last)``
    over [0, count), possibly split over threads; the build uses it."""
    state = _STATE
    if state.tables is not None or not state.enabled:
        return state.tables
    with state.lock:
        if state.tables is None:
            cost = pairs + DRAW_OVERHEAD_PAIRS
            if state.direct_pairs + cost < TABLE_PAIRS:
                state.direct_pairs += cost
                return None
            state.tables = _build(run_parallel)
    return state.tables


def _build(run_parallel) -> Tables:
    """Both tables, filled by the direct path over every mantissa."""
    radius = np.empty(TABLE_PAIRS, _F32)
    sincos = np.empty((TABLE_PAIRS, 2), _F32)
    if random_numexpr.enabled():
        u = np.empty(_BUILD_CHUNK_NUMEXPR, _F32)
        for start in range(0, TABLE_PAIRS, _BUILD_CHUNK_NUMEXPR):
            stop = start + _BUILD_CHUNK_NUMEXPR
            bm.uniform_float_into(np.arange(start, stop, dtype=np.uint32), u)
            random_numexpr.radius_into(u, radius[start:stop])
            random_numexpr.sincos_into(random_numexpr.angle_into(u, u), sincos[start:stop, 0], sincos[start:stop, 1])
        return Tables(radius, sincos.view(_U64).reshape(-1))

    def fill(first: int, last: int) -> None:
        scratch = bm.Scratch()  # the build's own buffers: a draw may run beside it on another session's thread
        for start in range(first * _BUILD_CHUNK, last * _BUILD_CHUNK, _BUILD_CHUNK):
            mantissas = np.arange(start, start + _BUILD_CHUNK, dtype=np.uint32)
            bm.radius_into(mantissas, radius[start:start + _BUILD_CHUNK], scratch)
            sine = scratch.get("table_sine", _F32, _BUILD_CHUNK)
            cosine = scratch.get("table_cosine", _F32, _BUILD_CHUNK)
            bm.sincos_into(mantissas, sine, cosine, scratch)
            sincos[start:start + _BUILD_CHUNK, 0] = sine
            sincos[start:start + _BUILD_CHUNK, 1] = cosine
    run_parallel(TABLE_PAIRS // _BUILD_CHUNK, fill)
    return Tables(radius, sincos.view(_U64).reshape(-1))


def pairs_into(tables: Tables, words: np.ndarray, out: np.ndarray, scratch: bm.Scratch) -> None:
    """BoxMullerFloat of consecutive word pairs: uint32 ``words`` [2n] (x0, x1 interleaved) -> float32 ``out`` [2n]
    with ``out[2i] = sinf(v) * r`` and ``out[2i + 1] = cosf(v) * r``, as the direct path."""
    size = words.shape[0] // 2
    wide = words.view(_U64)  # little-endian: x0 in the low 32 bits, x1 in the high ones
    index = scratch.get("table_index", _U64, size)
    np.bitwise_and(wide, _MANTISSA, out=index)
    radius = np.take(tables.radius, index.view(np.intp), out=scratch.get("table_radius", _F32, size), mode="clip")
    np.right_shift(wide, _HIGH_WORD, out=index)
    index &= _MANTISSA
    pairs = np.take(tables.sincos, index.view(np.intp), out=scratch.get("table_pairs", _U64, size), mode="clip")
    np.multiply(pairs.view(_F32).reshape(size, 2), radius[:, None], out=out.reshape(size, 2))


def lookup_into(tables: Tables, x0: np.ndarray, x1: np.ndarray, sine_out: np.ndarray, cosine_out: np.ndarray,
                scratch: bm.Scratch) -> None:
    """BoxMullerFloat(x0, x1) elementwise by lookup, with the outputs of `random_box_muller.box_muller_float_into`."""
    size = x0.shape[0]
    index = scratch.get("table_index", _U64, size)
    np.bitwise_and(x0, _MANTISSA, out=index, casting="unsafe")
    radius = np.take(tables.radius, index.view(np.intp), out=scratch.get("table_radius", _F32, size), mode="clip")
    np.bitwise_and(x1, _MANTISSA, out=index, casting="unsafe")
    pairs = np.take(tables.sincos, index.view(np.intp), out=scratch.get("table_pairs", _U64, size), mode="clip")
    pairs = pairs.view(_F32).reshape(size, 2)
    np.multiply(pairs[:, 0].reshape(sine_out.shape), radius.reshape(sine_out.shape), out=sine_out)
    np.multiply(pairs[:, 1].reshape(cosine_out.shape), radius.reshape(cosine_out.shape), out=cosine_out)
