"""Tests for random_numexpr.py: numexpr's Box-Muller equals the emulation bit for bit, its self-check and switch."""

import platform

import numpy as np
import pytest

from graph.ops import box_muller_tables
from graph.ops import libm
from graph.ops import philox
from graph.ops import random_box_muller as bm
from graph.ops import random_distributions
from graph.ops import random_numexpr

GLIBC = platform.libc_ver()[0] == "glibc"
needs_numexpr = pytest.mark.skipif(not (GLIBC and random_numexpr.numexpr is not None),
                                   reason="numexpr calls glibc's logf/sinf/cosf only on glibc")


@pytest.fixture
def verdict(monkeypatch):
    """Sets the process's numexpr verdict (True: numexpr, False: the emulation) for one test, without lookup
    tables (built by an earlier test, they would serve both)."""
    monkeypatch.setattr(box_muller_tables._STATE, "tables", None)
    monkeypatch.setattr(box_muller_tables._STATE, "enabled", False)
    return lambda value: monkeypatch.setitem(random_numexpr._STATE, "verdict", value)


def _uniform(mantissas: np.ndarray) -> np.ndarray:
    return (mantissas.astype(np.uint32) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def test_hard_mantissas_are_near_a_float32_midpoint(monkeypatch):
    # Each listed mantissa is one whose float64 result libm's fast path flags as near a rounding midpoint.
    flagged = []
    original = libm._near_float32_midpoint
    monkeypatch.setattr(libm, "_near_float32_midpoint", lambda values: flagged.append(original(values)) or flagged[-1])
    logs = _uniform(np.array(random_numexpr.HARD_LOG_MANTISSAS))
    libm.logf(np.maximum(logs, np.float32(1e-7)))
    assert flagged.pop().all()
    angles = random_numexpr.angle_into(_uniform(np.array(random_numexpr.HARD_SINCOS_MANTISSAS)),
                                       np.empty(len(random_numexpr.HARD_SINCOS_MANTISSAS), np.float32))
    libm.sincosf(angles)
    assert (flagged[0] | flagged[1]).all()
    sample = random_numexpr.sample_mantissas()
    assert np.isin(random_numexpr.HARD_LOG_MANTISSAS + random_numexpr.HARD_SINCOS_MANTISSAS, sample).all()
    assert {0, 1, (1 << 23) - 1, 1 << 20, 4 << 20} <= set(sample.tolist())  # floor, u near 1, pi/4, pi


@needs_numexpr
def test_self_check_passes_on_glibc_and_catches_one_differing_bit(monkeypatch):
    assert random_numexpr.self_check() is None
    real_logf = libm.logf

    def off_by_one_ulp(x):
        values = real_logf(x)
        values.view(np.uint32)[len(values) // 2] += np.uint32(1)
        return values
    monkeypatch.setattr(libm, "logf", off_by_one_ulp)
    assert "logf differs from glibc's" in random_numexpr.self_check()


def test_switch_forces_the_emulation(monkeypatch):
    monkeypatch.setenv(random_numexpr.ENVIRONMENT_VARIABLE, "0")
    monkeypatch.delitem(random_numexpr._STATE, "verdict", raising=False)
    assert random_numexpr.enabled() is False


@needs_numexpr
def test_numexpr_equals_the_emulation_on_every_mantissa(verdict):
    # Every one of the 2^23 mantissas as u1 and as the angle, with the words' high bits set.
    verdict(True)
    mantissas = np.arange(1 << 23, dtype=np.uint32)
    assert random_distributions._through_numexpr(mantissas.size)
    shuffled = np.random.default_rng(3).permutation(mantissas) | np.uint32(0xAB800000)
    ours = random_distributions.box_muller_float(mantissas, shuffled)
    sine, cosine = np.empty(mantissas.size, np.float32), np.empty(mantissas.size, np.float32)
    bm.box_muller_float_into(mantissas, shuffled, sine, cosine, bm.Scratch())
    assert ours[0].tobytes() == sine.tobytes() and ours[1].tobytes() == cosine.tobytes()


@needs_numexpr
@pytest.mark.parametrize("shard_min", [1, 1 << 60])
def test_chunked_draws_equal_the_emulation(verdict, monkeypatch, shard_min):
    # Small chunks and pieces: draws cross chunk, piece and shard boundaries; sizes not a multiple of 4.
    monkeypatch.setattr(random_distributions, "_BIG_GROUPS", 3000)
    monkeypatch.setattr(random_distributions, "_PIECE_BLOCKS", 700)
    monkeypatch.setattr(random_distributions, "_CHUNK_BLOCKS", 1000)
    monkeypatch.setattr(random_distributions, "_SHARD_MIN_BLOCKS", shard_min)
    monkeypatch.setattr(random_distributions, "_NUMEXPR_MIN_PAIRS", 0)
    draws = {}
    for value in (True, False):
        verdict(value)
        assert random_distributions._through_numexpr(1) is value
        draws[value] = [function(philox.Philox(21, 22), size, dtype)
                        for function in (random_distributions.normal, random_distributions.truncated_normal)
                        for size in (0, 3, 40_003) for dtype in (np.float32, np.float16)]
    for numexpr_draw, emulated in zip(draws[True], draws[False]):
        assert numexpr_draw.dtype == emulated.dtype and numexpr_draw.tobytes() == emulated.tobytes()


@needs_numexpr
@pytest.mark.tf
def test_numexpr_draws_equal_tensorflow(tf1, verdict, monkeypatch):
    # The numexpr path straight against TF's kernels, over several chunks.
    from tensorflow.python.ops import gen_random_ops
    verdict(True)
    monkeypatch.setattr(random_distributions, "_NUMEXPR_MIN_PAIRS", 0)
    monkeypatch.setattr(random_distributions, "_BIG_GROUPS", 3000)
    shape = np.array([20_003], np.int32)
    normal = gen_random_ops.random_standard_normal(shape, tf1.float32, seed=7, seed2=8)
    truncated = gen_random_ops.truncated_normal(shape, tf1.float32, seed=9, seed2=10)
    with tf1.Session() as sess:
        expected_normal, expected_truncated = sess.run([normal, truncated])
    assert random_distributions.normal(philox.Philox(7, 8), 20_003, np.float32).tobytes() == expected_normal.tobytes()
    ours = random_distributions.truncated_normal(philox.Philox(9, 10), 20_003, np.float32)
    assert ours.tobytes() == expected_truncated.tobytes()
