"""glibc's float32 ``logf`` and ``sincosf``, vectorised in numpy and bit-exact, for TF-exact Box-Muller.

TensorFlow's BoxMullerFloat calls the C library's ``logf`` and ``sincosf``.  Rounding float64 results to
float32 disagrees with glibc on about 0.4% (log) and 1.3% (sin, cos) of inputs, so this module follows
glibc's algorithms (ARM Optimized Routines, used by glibc >= 2.28, MIT-licensed constants) step by step in
float64, including the fused multiply-adds of glibc's x86-64 FMA variants (selected on any CPU with FMA):

    logf(x):    x = 2^k z (z in [0x3f330000, 2 * that) bits), i = 4 bits of z's mantissa,
                r = fma(z, invc[i], -1);  y0 = fma(k, ln2, logc[i]);  r2 = r * r
                y = fma(fma(A0, r2, fma(A1, r, A2)), r2, y0 + r)           -> float32
    sincosf(x): |x| < 2^-12: (x, 1);  |x| < 0.75 (top 12 bits below pi/4's): polynomial on x;
                |x| < 120: n = trunc(x * 2/pi * 2^24 + 2^23) >> 24, x' = fma(-n, pi/2, x), quadrant tables
                sincosf_poly: s = fma(x^3, s1, x) + ..., c = fma(x^4, c2, c0 + x^2 c1) + ...  -> float32

Only the input ranges Box-Muller produces are implemented: ``logf`` on normal floats in (0, 1], ``sincosf``
on [0, 120).  `tests/graph/test_libm.py` checks them exhaustively against the C library when it has FMA
variants; an ``fma`` is emulated with Dekker's exact product and Knuth's two-sum.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fma", "logf", "sincosf"]

_h = float.fromhex  # the C sources' hexadecimal float literals, verbatim

# logf: __logf_data (ARM Optimized Routines logf_data.c): 16 (1/c, log c) pairs, ln 2, log1p polynomial.
_LOGF_TABLE = np.array([
    (_h("0x1.661ec79f8f3bep+0"), _h("-0x1.57bf7808caadep-2")),
    (_h("0x1.571ed4aaf883dp+0"), _h("-0x1.2bef0a7c06ddbp-2")),
    (_h("0x1.49539f0f010bp+0"), _h("-0x1.01eae7f513a67p-2")),
    (_h("0x1.3c995b0b80385p+0"), _h("-0x1.b31d8a68224e9p-3")),
    (_h("0x1.30d190c8864a5p+0"), _h("-0x1.6574f0ac07758p-3")),
    (_h("0x1.25e227b0b8eap+0"), _h("-0x1.1aa2bc79c81p-3")),
    (_h("0x1.1bb4a4a1a343fp+0"), _h("-0x1.a4e76ce8c0e5ep-4")),
    (_h("0x1.12358f08ae5bap+0"), _h("-0x1.1973c5a611cccp-4")),
    (_h("0x1.0953f419900a7p+0"), _h("-0x1.252f438e10c1ep-5")),
    (_h("0x1p+0"), _h("0x0p+0")),
    (_h("0x1.e608cfd9a47acp-1"), _h("0x1.aa5aa5df25984p-5")),
    (_h("0x1.ca4b31f026aap-1"), _h("0x1.c5e53aa362eb4p-4")),
    (_h("0x1.b2036576afce6p-1"), _h("0x1.526e57720db08p-3")),
    (_h("0x1.9c2d163a1aa2dp-1"), _h("0x1.bc2860d22477p-3")),
    (_h("0x1.886e6037841edp-1"), _h("0x1.1058bc8a07ee1p-2")),
    (_h("0x1.767dcf5534862p-1"), _h("0x1.4043057b6ee09p-2")),
])
_LOGF_LN2 = _h("0x1.62e42fefa39efp-1")
_LOGF_A = (_h("-0x1.00ea348b88334p-2"), _h("0x1.5575b0be00b6ap-2"), _h("-0x1.ffffef20a4123p-2"))
_LOGF_OFF = 0x3F330000
_LOGF_TABLE_BITS = 4

# sincosf: __sincosf_table (sincosf_data.c); the 2nd entry negates the cosine polynomial.
_HPI_INV_SCALED = _h("0x1.45f306dc9c883p+23")  # 2/pi * 2^24: the quadrant lands in bits 24..31
_HPI = _h("0x1.921fb54442d18p0")
_COS = ((_h("0x1p0"), _h("-0x1.ffffffd0c621cp-2"), _h("0x1.55553e1068f19p-5"), _h("-0x1.6c087e89a359dp-10"),
         _h("0x1.99343027bf8c3p-16")),)  # table 1 is this negated: _sincosf_poly negates the result instead
_SIN = (_h("-0x1.555545995a603p-3"), _h("0x1.1107605230bc4p-7"), _h("-0x1.994eb3774cf24p-13"))
_SIGN = np.array([1.0, -1.0, -1.0, 1.0])
_ABSTOP12_PIO4 = 0x3F4  # top 12 bits of float(pi/4): the polynomial's direct range ends at 0.75
_ABSTOP12_TINY = 0x398  # top 12 bits of 2^-12f
_ABSTOP12_LIMIT = 0x42F  # top 12 bits of 120.0f: reduce_fast is accurate below
_SPLITTER = 134217729.0  # 2^27 + 1: Dekker's split of a double into two 26-bit halves


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = fl(a*b) and a*b = p + e exactly (Dekker, Veltkamp split)."""
    product = a * b
    a_split = _SPLITTER * a
    a_high = a_split - (a_split - a)
    a_low = a - a_high
    b_split = _SPLITTER * b
    b_high = b_split - (b_split - b)
    b_low = b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def fma(a, b, c) -> np.ndarray:
    """a * b + c with a single rounding (to within the rare double-rounding tie), in float64."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    product, error = _two_product(a, b)
    total = product + c
    b_virtual = total - product  # Knuth's two-sum: product + c = total + tail exactly
    tail = (product - (total - b_virtual)) + (c - b_virtual)
    return total + (tail + error)


def logf(x: np.ndarray) -> np.ndarray:
    """glibc logf on float32 values in (0, 1] that are normal numbers."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.int64)
    tmp = bits - _LOGF_OFF
    index = (tmp >> (23 - _LOGF_TABLE_BITS)) % (1 << _LOGF_TABLE_BITS)
    k = tmp >> 23  # arithmetic shift of the signed difference
    z_bits = (bits - (tmp & (0x1FF << 23))).astype(np.uint32)
    z = z_bits.view(np.float32).astype(np.float64)
    invc = _LOGF_TABLE[index, 0]
    logc = _LOGF_TABLE[index, 1]
    r = fma(z, invc, -1.0)
    y0 = fma(k.astype(np.float64), _LOGF_LN2, logc)
    r2 = r * r
    y = fma(_LOGF_A[1], r, _LOGF_A[2])
    y = fma(_LOGF_A[0], r2, y)
    y = fma(y, r2, y0 + r)
    result = y.astype(np.float32)
    result[bits == 0x3F800000] = 0.0  # log(1) = +0 exactly (WANT_ROUNDING)
    return result


def _sincosf_poly(x, x2, negate_cosine, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincosf_poly: sin and cos of reduced x; table 1 (``negate_cosine``) is table 0's cosine polynomial negated,
    which negates the result exactly (fma rounds symmetrically); odd quadrants swap sin and cos."""
    c0, c1, c2, c3, c4 = _COS[0]
    s1, s2, s3 = _SIN
    x4 = x2 * x2
    x3 = x2 * x
    cos_tail = fma(x2, c4, c3)
    sin_tail = fma(x2, s3, s2)
    cos_head = fma(x2, c1, c0)
    x5 = x3 * x2
    x6 = x4 * x2
    s = fma(x3, s1, x)
    c = fma(x4, c2, cos_head)
    sine = fma(x5, sin_tail, s).astype(np.float32)
    cosine = fma(x6, cos_tail, c).astype(np.float32)
    if negate_cosine is not None:
        np.negative(cosine, out=cosine, where=negate_cosine)
    if swap is None:
        return sine, cosine
    return np.where(swap, cosine, sine), np.where(swap, sine, cosine)


def sincosf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc sincosf on float32 values in [0, 120): (sin, cos) as float32 arrays."""
    y = np.asarray(y, dtype=np.float32).reshape(-1)
    top = (y.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)
    if (top >= _ABSTOP12_LIMIT).any() or (y < 0).any():
        raise ValueError("sincosf here covers [0, 120) only, the range of Box-Muller's angle")
    x = y.astype(np.float64)
    sine = np.empty(y.shape, np.float32)
    cosine = np.empty(y.shape, np.float32)
    tiny = top < _ABSTOP12_TINY
    sine[tiny], cosine[tiny] = y[tiny], np.float32(1.0)
    direct = ~tiny & (top < _ABSTOP12_PIO4)
    if direct.any():
        xd = x[direct]
        sine[direct], cosine[direct] = _sincosf_poly(xd, xd * xd, None, None)
    reduced = top >= _ABSTOP12_PIO4
    if reduced.all():  # Box-Muller's usual case: skip the masked copies
        return _sincosf_reduced(x)
    if reduced.any():
        sine[reduced], cosine[reduced] = _sincosf_reduced(x[reduced])
    return sine, cosine


def _sincosf_reduced(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincosf for 0.75 <= |x| < 120: reduce_fast to [-pi/4, pi/4] and a quadrant, then the polynomials."""
    n = (((x * _HPI_INV_SCALED).astype(np.int32).astype(np.int64) + 0x800000) >> 24)
    reduced = fma(-n.astype(np.float64), _HPI, x)
    sign = _SIGN[n & 3]
    return _sincosf_poly(reduced * sign, reduced * reduced, (n & 2) != 0, (n & 1) != 0)
