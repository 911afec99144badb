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
on [0, 120).  Two paths compute them.  The fused path follows the steps above literally, each ``fma``
emulated with Dekker's exact product and Knuth's two-sum (about 20 float64 operations).  The fast path
(`logf`, `sincosf`) makes the two fmas whose single rounding matters exact by splitting an operand so
each partial product is exact, evaluates the polynomials with plain operations, and redoes on the fused
path the rare elements whose float64 result lies near a float32 rounding midpoint (see below).
`tests/graph/ops/test_libm.py` checks the paths against each other on every one of Box-Muller's 2^23
inputs and against the C library on a sweep and on the edges.
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


def _logf_fused(x: np.ndarray) -> np.ndarray:
    """glibc logf step by step with emulated fmas: the reference the fast path falls back to."""
    result = _logf_fused_double(x).astype(np.float32)
    result[np.asarray(x, dtype=np.float32) == 1.0] = 0.0  # log(1) = +0 exactly (WANT_ROUNDING)
    return result


def _logf_fused_double(x: np.ndarray) -> np.ndarray:
    """glibc logf's float64 result before its final rounding to float32."""
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
    return fma(y, r2, y0 + r)


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


def _sincosf_fused(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc sincosf step by step with emulated fmas: the reference the fast path falls back to."""
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


# ----------------------------------------------------------------- fast paths with a rounding test
# The fast paths evaluate the same formulas with plain float64 operations, except where a fused
# multiply-add's single rounding is essential (r = z/c - 1 and the argument reduction x - n*pi/2): there
# an operand is split (Veltkamp) so every partial product is exact and the fma's exact sum is rounded once.
# Elsewhere an unfused operation differs from the fused one by about one double ulp; after the last
# step the float64 result is at most a few ulps from glibc's.  Both round to the same float32 unless that
# result lies within a few ulps of a float32 rounding midpoint (its low 29 bits near 2^28): such elements
# (about 1 in 250,000 with the wide guard below) are recomputed on the fused path.
_FLOAT32_DROPPED_BITS = 29  # a double keeps 52 fraction bits, a float32 23: rounding reads the other 29
_MIDPOINT = 1 << (_FLOAT32_DROPPED_BITS - 1)
_GUARD_ULPS = 1 << 10  # the unfused results stay within 8 ulps (tests/graph/ops/test_libm.py measures it)


def _split(value: float, bits: int) -> tuple[float, float]:
    """(high, low) with high holding the top ``bits`` significant bits of ``value`` and high + low == value."""
    scaled = (2.0 ** (53 - bits) + 1.0) * value  # Veltkamp's splitter
    high = scaled - (scaled - value)
    return high, value - high


def _near_float32_midpoint(values: np.ndarray) -> np.ndarray:
    """Mask of float64 ``values`` within ``_GUARD_ULPS`` double ulps of a float32 rounding midpoint."""
    low = values.view(np.uint64) & np.uint64((1 << _FLOAT32_DROPPED_BITS) - 1)
    low -= np.uint64(_MIDPOINT - _GUARD_ULPS)  # wraps below the window: one unsigned compare tests both ends
    return low <= np.uint64(2 * _GUARD_ULPS)


# logf: tmp >> 19 holds k (tmp >> 23) and the table index (4 bits), so one index reaches fma(k, ln2, logc)
# (precomputed with the fused emulation for every (k, index) of normal floats in (0, 1]) and 1/c split so
# that z * (1/c)_high is exact: z has 24 significant bits, (1/c)_high 29.
_LOGF_SHIFT = 23 - _LOGF_TABLE_BITS
_LOGF_MIN_BITS, _LOGF_MAX_BITS = 0x00800000, 0x3F800000  # the smallest normal float and 1.0
_LOGF_FIRST = (_LOGF_MIN_BITS - _LOGF_OFF) >> _LOGF_SHIFT
_LOGF_ROWS = np.arange(_LOGF_FIRST, ((_LOGF_MAX_BITS - _LOGF_OFF) >> _LOGF_SHIFT) + 1)
_LOGF_Y0 = fma((_LOGF_ROWS >> _LOGF_TABLE_BITS).astype(np.float64), _LOGF_LN2,
               _LOGF_TABLE[_LOGF_ROWS % (1 << _LOGF_TABLE_BITS), 1])
_LOGF_INVC_HIGH, _LOGF_INVC_LOW = (np.array(half)[_LOGF_ROWS % (1 << _LOGF_TABLE_BITS)]
                                   for half in zip(*(_split(float(v), 29) for v in _LOGF_TABLE[:, 0])))


def logf(x: np.ndarray) -> np.ndarray:
    """glibc logf on float32 values in (0, 1] that are normal numbers."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    shape = x.shape
    bits = x.reshape(-1).view(np.int32)
    if bits.size and (bits.min() < _LOGF_MIN_BITS or bits.max() > _LOGF_MAX_BITS):
        raise ValueError("logf here covers normal floats in (0, 1] only, the range of Box-Muller's u1")
    y = _logf_unfused_double(bits)
    result = y.astype(np.float32)
    redo = _near_float32_midpoint(y)
    if redo.any():
        redo = np.flatnonzero(redo)
        result[redo] = _logf_fused(x.reshape(-1)[redo])
    return result.reshape(shape)


def _logf_unfused_double(bits: np.ndarray) -> np.ndarray:
    """The fast path's float64 logf of int32 float bits, within a few ulps of glibc's before rounding."""
    tmp = bits - np.int32(_LOGF_OFF)
    row = ((tmp >> _LOGF_SHIFT) - np.int32(_LOGF_FIRST)).astype(np.intp)  # intp: take() converts otherwise
    tmp &= np.int32(-(1 << 23))  # the exponent part: z = x / 2^k lands in [OFF, 2 OFF)
    z = (bits - tmp).view(np.float32).astype(np.float64)
    # r = fma(z, invc, -1): z * high is exact and within a factor 2 of 1 (Sterbenz), z * low is exact.
    r = z * np.take(_LOGF_INVC_HIGH, row)
    r -= 1.0
    z *= np.take(_LOGF_INVC_LOW, row)
    r += z
    r2 = r * r
    y = r * _LOGF_A[1]
    y += _LOGF_A[2]
    z = r2 * _LOGF_A[0]  # z is free again
    y += z
    y *= r2
    r += np.take(_LOGF_Y0, row)
    y += r
    return y


_HPI_HIGH, _HPI_LOW = _split(_HPI, 29)  # n * high is exact for n < 2^24; x - n * high is exact (see below)
_TINY = np.float32(2.0 ** -12)
_SINCOSF_LIMIT_BITS = _ABSTOP12_LIMIT << 20


def sincosf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc sincosf on float32 values in [0, 120): (sin, cos) as float32 arrays."""
    y = np.ascontiguousarray(y, dtype=np.float32).reshape(-1)
    bits = y.view(np.int32)  # negative floats are negative int32s; 120.0f and above have larger bits
    if bits.size and (bits.min() < 0 or bits.max() >= _SINCOSF_LIMIT_BITS):
        raise ValueError("sincosf here covers [0, 120) only, the range of Box-Muller's angle")
    x = y.astype(np.float64)
    # reduce_fast; below pi/4 it gives n = 0 and x itself, which is the direct branch's polynomial input.
    n = (x * _HPI_INV_SCALED).astype(np.int32)
    n += np.int32(0x800000)
    n >>= 24
    nf = n.astype(np.float64)
    # fma(-n, pi/2, x): x is a float32 >= 0.75 (a multiple of 2^-24) and n * high a multiple of 2^-28 within
    # a factor 2 of it, so x - n * high is exact; n * low is exact; the one rounding is the fma's.
    r = nf * _HPI_HIGH
    np.subtract(x, r, out=r)
    nf *= _HPI_LOW
    r -= nf
    x2 = r * r
    r *= np.take(_SIGN, (n & 3).astype(np.intp))
    sine, cosine = _poly_unfused(r, x2)
    redo = _near_float32_midpoint(sine)
    redo |= _near_float32_midpoint(cosine)
    # Quadrants 2 and 3 negate the cosine, odd ones swap sine and cosine: done on the float32 bits (a sign
    # flip and an xor swap under a mask), which is exact and cheaper than masked ufuncs.
    sine, cosine = sine.astype(np.float32), cosine.astype(np.float32)
    sine_bits, cosine_bits = sine.view(np.uint32), cosine.view(np.uint32)
    quadrant = n.view(np.uint32)
    cosine_bits ^= (quadrant & np.uint32(2)) << np.uint32(30)
    swap = (sine_bits ^ cosine_bits) & (np.uint32(0) - (quadrant & np.uint32(1)))
    sine_bits ^= swap
    cosine_bits ^= swap
    if redo.any():
        redo = np.flatnonzero(redo)
        sine[redo], cosine[redo] = _sincosf_fused(y[redo])
    if y.size and y.min() < _TINY:
        tiny = np.flatnonzero(y < _TINY)
        sine[tiny], cosine[tiny] = y[tiny], np.float32(1.0)
    return sine, cosine


def _poly_unfused(x: np.ndarray, x2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincosf_poly's table-0 sine and cosine in float64 with plain multiplies and adds (x2 is reused)."""
    c0, c1, c2, c3, c4 = _COS[0]
    s1, s2, s3 = _SIN
    x3 = x2 * x
    sine = x3 * s1
    sine += x
    tail = x2 * s3
    tail += s2
    x3 *= x2  # x^5
    tail *= x3
    sine += tail
    x4 = x2 * x2
    cosine = x2 * c1
    cosine += c0
    tail = x2 * c4
    tail += c3
    tail *= x4 * x2  # x^6 * (c3 + x^2 c4)
    x4 *= c2
    cosine += x4
    cosine += tail
    return sine, cosine
