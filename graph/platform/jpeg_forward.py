"""The JPEG encoder's sample-to-coefficient stage as libjpeg-turbo 2.1.4 runs it: quality-scaled quantization
tables (jcparam.c), the accurate integer forward DCT (jfdctint.c, ISLOW, libjpeg's default) and quantization by
reciprocal multiplication (jcdctmgr.c), vectorized over blocks.

The forward DCT is LL&M with 13-bit constants: rows first, kept 2 bits (PASS1_BITS) larger, then columns,
leaving every coefficient 8 times the true DCT's.  Quantization therefore divides by ``8 * q`` and rounds half
away from zero, computed as libjpeg does: ``((|x| + c) * f) >> r`` with the reciprocal ``f``, correction ``c``
and shift ``r`` of jcdctmgr.c compute_reciprocal (identical to the SIMD quantizer's two multiplies).
"""

from __future__ import annotations

import numpy as np

from graph.platform.jpeg_tables import CHROMINANCE_QUANT, LUMINANCE_QUANT

__all__ = ["quality_tables", "forward_dct", "quantize"]

_CONST_BITS, _PASS1_BITS = 13, 2  # jfdctint.c
_CENTER = 128
_DCT_SCALE_BITS = 3  # the DCT's outputs are 8x a true DCT's
_DIVISOR_BITS = 16  # sizeof(DCTELEM) * 8 with SIMD: the reciprocal's extra precision
_BASELINE_MAX = 255  # force_baseline clamps quantizers to 8 bits
_QUANT_MAX = 32767


def _fix(value: float) -> int:
    return int(value * (1 << _CONST_BITS) + 0.5)


def quality_scaling(quality: int) -> int:
    """jcparam.c jpeg_quality_scaling: the percentage the base tables are scaled by."""
    quality = min(max(quality, 1), 100)
    return 5000 // quality if quality < 50 else 200 - quality * 2


def quality_tables(quality: int, force_baseline: bool = True) -> tuple:
    """The luminance and chrominance quantization tables (natural order) for ``quality`` (jpeg_set_quality)."""
    scale = quality_scaling(quality)
    tables = []
    for base in (LUMINANCE_QUANT, CHROMINANCE_QUANT):
        values = [min(max((b * scale + 50) // 100, 1), _QUANT_MAX) for b in base]
        tables.append(tuple(min(v, _BASELINE_MAX) if force_baseline else v for v in values))
    return tuple(tables)


def _fdct_1d(d, second: bool):
    """One 8-point LL&M forward pass on ``d[0..7]`` (rows, or columns when ``second``)."""
    tmp0, tmp7 = d[0] + d[7], d[0] - d[7]
    tmp1, tmp6 = d[1] + d[6], d[1] - d[6]
    tmp2, tmp5 = d[2] + d[5], d[2] - d[5]
    tmp3, tmp4 = d[3] + d[4], d[3] - d[4]
    tmp10, tmp13, tmp11, tmp12 = tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2
    bits = _CONST_BITS + _PASS1_BITS if second else _CONST_BITS - _PASS1_BITS

    def descale(values, shift=bits):
        return (values + (1 << (shift - 1))) >> shift
    out = [None] * 8
    if second:
        out[0], out[4] = descale(tmp10 + tmp11, _PASS1_BITS), descale(tmp10 - tmp11, _PASS1_BITS)
    else:
        out[0], out[4] = (tmp10 + tmp11) << _PASS1_BITS, (tmp10 - tmp11) << _PASS1_BITS
    z1 = (tmp12 + tmp13) * _fix(0.541196100)
    out[2] = descale(z1 + tmp13 * _fix(0.765366865))
    out[6] = descale(z1 - tmp12 * _fix(1.847759065))
    z1, z2, z3, z4 = tmp4 + tmp7, tmp5 + tmp6, tmp4 + tmp6, tmp5 + tmp7
    z5 = (z3 + z4) * _fix(1.175875602)
    tmp4, tmp5 = tmp4 * _fix(0.298631336), tmp5 * _fix(2.053119869)
    tmp6, tmp7 = tmp6 * _fix(3.072711026), tmp7 * _fix(1.501321110)
    z1, z2 = z1 * -_fix(0.899976223), z2 * -_fix(2.562915447)
    z3, z4 = z3 * -_fix(1.961570560) + z5, z4 * -_fix(0.390180644) + z5
    out[7] = descale(tmp4 + z1 + z3)
    out[5] = descale(tmp5 + z2 + z4)
    out[3] = descale(tmp6 + z2 + z3)
    out[1] = descale(tmp7 + z1 + z4)
    return out


def forward_dct(blocks: np.ndarray) -> np.ndarray:
    """The ``[n, 8, 8]`` DCT outputs (8x scaled, natural order) of ``[n, 8, 8]`` uint8 sample blocks."""
    samples = blocks.astype(np.int64) - _CENTER
    rows = np.stack(_fdct_1d([samples[:, :, k] for k in range(8)], False), axis=2)
    return np.stack(_fdct_1d([rows[:, k, :] for k in range(8)], True), axis=1)


def _reciprocal(divisor: int) -> tuple:
    """jcdctmgr.c compute_reciprocal: (reciprocal, correction, shift) with ``x / divisor`` rounded half away
    from zero equal to ``((x + correction) * reciprocal) >> shift`` for x >= 0."""
    if divisor == 1:
        return 1, 0, 0
    floor_log2 = divisor.bit_length() - 1
    shift = _DIVISOR_BITS + floor_log2
    reciprocal, remainder = divmod(1 << shift, divisor)
    correction = divisor // 2
    if remainder == 0:  # a power of two: the reciprocal is one bit too wide for 16 bits
        reciprocal >>= 1
        shift -= 1
    elif remainder <= divisor // 2:
        correction += 1
    else:
        reciprocal += 1
    return reciprocal, correction, shift


def quantize(coefficients: np.ndarray, quant) -> np.ndarray:
    """``[n, 8, 8]`` DCT outputs divided by 8x the 64 quantizers (natural order), as int32 coefficients."""
    parts = np.array([_reciprocal(int(q) << _DCT_SCALE_BITS) for q in quant], dtype=np.int64).reshape(8, 8, 3)
    reciprocal, correction, shift = parts[..., 0], parts[..., 1], parts[..., 2]
    magnitude = ((np.abs(coefficients) + correction) * reciprocal) >> shift
    return np.where(coefficients < 0, -magnitude, magnitude).astype(np.int32)
