"""Tests for graph/libm.py: logf and sincosf equal the C library's, bit for bit, on Box-Muller's inputs."""

import ctypes
import ctypes.util

import numpy as np
import pytest

from graph.ops import libm
from graph.ops import philox


def _c_library():
    name = ctypes.util.find_library("m")
    if name is None:
        pytest.skip("no C math library to compare with")
    library = ctypes.CDLL(name)
    library.logf.restype, library.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    library.sincosf.restype = None
    library.sincosf.argtypes = [ctypes.c_float, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_float)]
    return library


def _inputs(count=20000):
    """A spread of the 2^23 mantissas Box-Muller feeds in, plus the edges of every branch."""
    rng = np.random.default_rng(0)
    mantissas = np.concatenate([rng.integers(0, 1 << 23, count), np.arange(64), (1 << 23) - 1 - np.arange(64),
                                np.arange(0, 1 << 23, 1 << 13)]).astype(np.uint32)
    return philox.uint32_to_float(mantissas)


def test_logf_matches_c_library():
    library = _c_library()
    x = np.maximum(_inputs(), np.float32(1e-7))
    x = np.concatenate([x, np.float32([1.0, 0.5, 0.75, 1e-7, 2.0**-126])])
    expected = np.array([library.logf(float(v)) for v in x], np.float32)
    np.testing.assert_array_equal(libm.logf(x), expected)


def test_sincosf_matches_c_library():
    library = _c_library()
    angles = (2 * np.pi * _inputs().astype(np.float64)).astype(np.float32)
    edges = np.float32([0.0, 2.0**-12, np.nextafter(np.float32(2.0**-12), np.float32(0)), 0.75,
                        np.nextafter(np.float32(0.75), np.float32(0)), np.pi / 4, np.pi / 2, np.pi, 6.2831855, 119.9])
    angles = np.concatenate([angles, edges])
    sine, cosine = ctypes.c_float(), ctypes.c_float()
    expected = []
    for angle in angles:
        library.sincosf(float(angle), ctypes.byref(sine), ctypes.byref(cosine))
        expected.append((sine.value, cosine.value))
    expected = np.array(expected, np.float32)
    got_sine, got_cosine = libm.sincosf(angles)
    np.testing.assert_array_equal(got_sine, expected[:, 0])
    np.testing.assert_array_equal(got_cosine, expected[:, 1])


def test_fma_single_rounding():
    a, b = np.float64(1 + 2.0**-30), np.float64(1 - 2.0**-30)
    assert libm.fma(a, b, -1.0) == -(2.0**-60)  # a*b = 1 - 2^-60 exactly; a plain product rounds to 1
    assert a * b - 1.0 == 0.0


def _every_box_muller_input(step=1):
    """Box-Muller's u1 and angle for every ``step``-th of the 2^23 mantissas (all of them for step 1)."""
    uniform = philox.uint32_to_float(np.arange(0, 1 << 23, step, dtype=np.uint32))
    return np.maximum(uniform, np.float32(1e-7)), (2 * np.pi * uniform.astype(np.float64)).astype(np.float32)


def _assert_same_bits(got, expected):
    mismatches = np.flatnonzero(got.view(np.uint32) != expected.view(np.uint32))
    assert mismatches.size == 0, (mismatches[:5], got[mismatches[:5]], expected[mismatches[:5]])


def test_fast_paths_equal_fused_paths_on_a_sweep():
    # The fast paths (plain float64 operations plus a rounding test) against glibc's fused algorithm.
    u1, angle = _every_box_muller_input(step=7)
    _assert_same_bits(libm.logf(u1), libm._logf_fused(u1))
    for got, expected in zip(libm.sincosf(angle), libm._sincosf_fused(angle)):
        _assert_same_bits(got, expected)


@pytest.mark.slow
def test_fast_paths_equal_fused_paths_on_every_input():
    u1, angle = _every_box_muller_input()
    _assert_same_bits(libm.logf(u1), libm._logf_fused(u1))
    for got, expected in zip(libm.sincosf(angle), libm._sincosf_fused(angle)):
        _assert_same_bits(got, expected)


def test_rounding_guard_is_wide_and_used():
    # The guard must exceed how far the unfused float64 results stray from the fused ones, and the sweep
    # must hit the window, so the fused fallback really runs.  Fused results are reproduced in float64 by
    # the reference steps; the distance is counted in double ulps.
    u1, angle = _every_box_muller_input(step=5)
    x = angle.astype(np.float64)
    n = (((x * libm._HPI_INV_SCALED).astype(np.int32).astype(np.int64) + 0x800000) >> 24)
    fused_reduced = libm.fma(-n.astype(np.float64), libm._HPI, x)
    nf = n.astype(np.float64)
    fast_reduced = (x - nf * libm._HPI_HIGH) - nf * libm._HPI_LOW
    np.testing.assert_array_equal(fast_reduced, fused_reduced)  # the split reduction is the exact fma
    sign = libm._SIGN[n & 3]
    sine, cosine = libm._poly_unfused(fast_reduced * sign, fast_reduced * fast_reduced)
    c0, c1, c2, c3, c4 = libm._COS[0]
    s1, s2, s3 = libm._SIN
    r, r2 = fused_reduced * sign, fused_reduced * fused_reduced
    fused_sine = libm.fma(r2 * r * r2, libm.fma(r2, s3, s2), libm.fma(r2 * r, s1, r))
    fused_cosine = libm.fma(r2 * r2 * r2, libm.fma(r2, c4, c3), libm.fma(r2 * r2, c2, libm.fma(r2, c1, c0)))
    for unfused, fused in ((sine, fused_sine), (cosine, fused_cosine)):
        ulps = np.abs(unfused.view(np.int64) - fused.view(np.int64))
        assert ulps.max() <= libm._GUARD_ULPS // 64
    window = libm._near_float32_midpoint(sine) | libm._near_float32_midpoint(cosine)
    assert 0 < np.count_nonzero(window) < window.size // 1000
    unfused, fused = libm._logf_unfused_double(u1.view(np.int32)), libm._logf_fused_double(u1)
    assert np.abs(unfused.view(np.int64) - fused.view(np.int64)).max() <= libm._GUARD_ULPS // 64
    window = libm._near_float32_midpoint(unfused)
    assert 0 < np.count_nonzero(window) < window.size // 1000


def test_logf_edges_match_c_library():
    # Near 1 (tiny |log|, no cancellation allowed), Box-Muller's floor 1e-7, the smallest normals, powers of 2,
    # and the borders of the 16 table intervals.
    library = _c_library()
    one = np.float32(1.0).view(np.uint32)
    near_one = (one - np.arange(1, 4000, dtype=np.uint32)).view(np.float32)
    floor = np.float32(1e-7).view(np.uint32) + np.arange(-50, 50).astype(np.uint32)
    borders = (np.uint32(libm._LOGF_OFF) + (np.arange(16, dtype=np.uint32) << np.uint32(19)))
    borders = np.concatenate([borders - np.uint32(1), borders, borders + np.uint32(1)])
    borders = borders[borders <= one]
    x = np.concatenate([near_one, floor.view(np.float32), np.float32(2.0) ** -np.arange(0, 127),
                        (np.uint32(0x00800000) + np.arange(100, dtype=np.uint32)).view(np.float32),
                        borders.view(np.float32), (borders - np.uint32(23 << 23)).view(np.float32)])
    expected = np.array([library.logf(float(v)) for v in x], np.float32)
    _assert_same_bits(libm.logf(x), expected)


def test_domain_errors():
    with pytest.raises(ValueError, match="logf"):
        libm.logf(np.float32([0.5, 1.5]))
    with pytest.raises(ValueError, match="logf"):
        libm.logf(np.float32([1e-40]))  # subnormal
    with pytest.raises(ValueError, match="sincosf"):
        libm.sincosf(np.float32([-0.5]))
    with pytest.raises(ValueError, match="sincosf"):
        libm.sincosf(np.float32([120.0]))
    assert libm.logf(np.zeros(0, np.float32)).shape == (0,)
