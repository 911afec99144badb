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
