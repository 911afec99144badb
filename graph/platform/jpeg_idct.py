"""Dequantization and inverse DCT of JPEG blocks, in libjpeg-turbo's integer arithmetic, vectorized over blocks.

Four transforms, chosen by a component's scaled block size (jddctmgr.c):

    8x8, "INTEGER_ACCURATE" (JDCT_ISLOW)  jidctint.c: Loeffler-Ligtenberg-Moschytz, 13-bit constants,
                                          2 extra bits between the column and row passes, rounded shifts
    8x8, "INTEGER_FAST" (JDCT_IFAST)      jidctfst.c: Arai-Agui-Nakajima, 8-bit constants, products
                                          truncated, quantizers pre-scaled by the AAN factors (14-bit)
    4x4, 2x2 (ratio 2, 4)                 jidctred.c: LL&M reduced to the averages of 2 or 4 outputs
    1x1 (ratio 8)                         the DC term / 8

Columns are transformed first (into a work array), then rows; the result is range-limited to 0-255 around
the centre 128.  TensorFlow's libjpeg-turbo runs the x86 SIMD versions of the first three: they dequantize
with 16-bit multiplies (pmullw, which wrap), IFAST runs entirely in wrapping 16-bit lanes
(jidctfst-sse2.asm), ISLOW adds a few pairs in 16 bits and saturates its pass-1 results to 16 bits
(jidctint-avx2.asm), and the final range limit saturates where the C code wraps (``& RANGE_MASK``), so a
plain clamp is right.  The 1x1 transform has no SIMD version and keeps the C table's wrap.  On valid streams the
wraps never happen; on damaged ones they are what TensorFlow computes.
"""

from __future__ import annotations

import numpy as np

from graph.platform.jpeg_tables import AAN_SCALES

__all__ = ["inverse_dct"]

_CENTER = 128
_RANGE_MASK = 1023  # libjpeg's post-IDCT range table covers 10 bits
_ISLOW_BITS, _PASS1_BITS = 13, 2  # jidctint.c CONST_BITS, PASS1_BITS
_IFAST_BITS = 8  # jidctfst.c CONST_BITS
_IFAST_SCALE_BITS, _AAN_BITS = 2, 14  # jdct.h IFAST_SCALE_BITS; jddctmgr.c scales aanscales by 2**14


def _fix(value: float, bits: int = _ISLOW_BITS) -> int:
    """libjpeg's FIX(x): the constant rounded to ``bits`` fraction bits."""
    return int(value * (1 << bits) + 0.5)


def _descale(values: np.ndarray, bits: int) -> np.ndarray:
    """libjpeg's DESCALE: an arithmetic right shift, rounding half up."""
    return (values + (1 << (bits - 1))) >> bits


def _islow_1d(d):
    """One 8-point LL&M pass on the 8 rows ``d[0..7]`` as libjpeg-turbo's AVX2 code computes it (jidctint.c's
    arithmetic, regrouped into 16 x 16-bit multiply-adds); outputs before their descale.  The sums d0 +- d4,
    d7 + d3 and d5 + d1 are taken in wrapping 16-bit lanes, as there."""
    w = _wrap16
    c054, c076, c184 = _fix(0.541196100), _fix(0.765366865), _fix(1.847759065)
    c117, c196, c039 = _fix(1.175875602), _fix(1.961570560), _fix(0.390180644)
    c029, c089, c205, c256 = _fix(0.298631336), _fix(0.899976223), _fix(2.053119869), _fix(2.562915447)
    c150, c307 = _fix(1.501321110), _fix(3.072711026)
    tmp3 = d[2] * (c054 + c076) + d[6] * c054
    tmp2 = d[2] * c054 + d[6] * (c054 - c184)
    tmp0, tmp1 = w(d[0] + d[4]) << _ISLOW_BITS, w(d[0] - d[4]) << _ISLOW_BITS
    tmp10, tmp13, tmp11, tmp12 = tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2
    z3, z4 = w(d[7] + d[3]), w(d[5] + d[1])
    z3, z4 = z3 * (c117 - c196) + z4 * c117, z3 * c117 + z4 * (c117 - c039)
    o0 = d[7] * (c029 - c089) - d[1] * c089 + z3
    o1 = d[5] * (c205 - c256) - d[3] * c256 + z4
    o3 = -d[7] * c089 + d[1] * (c150 - c089) + z4
    o2 = -d[5] * c256 + d[3] * (c307 - c256) + z3
    return [tmp10 + o3, tmp11 + o2, tmp12 + o1, tmp13 + o0, tmp13 - o0, tmp12 - o1, tmp11 - o2, tmp10 - o3]


def _islow(dequantized: np.ndarray) -> np.ndarray:
    """jidctint-avx2.asm's two passes: pass-1 results saturated to 16 bits (packssdw), a block whose rows 1-7
    are zero taking the shortcut DC << 2 in wrapping 16-bit arithmetic."""
    def descale_saturate(values, bits):
        return np.clip(_descale(values, bits), -0x8000, 0x7FFF)
    columns = [dequantized[:, k, :] for k in range(8)]
    work = np.stack([descale_saturate(out, _ISLOW_BITS - _PASS1_BITS) for out in _islow_1d(columns)], axis=1)
    flat = ~dequantized[:, 1:, :].any(axis=(1, 2))
    work[flat] = _wrap16(dequantized[flat, :1, :] << _PASS1_BITS)
    rows = [work[:, :, k] for k in range(8)]
    return np.stack([descale_saturate(out, _ISLOW_BITS + _PASS1_BITS + 3) for out in _islow_1d(rows)], axis=2)


def _wrap16(values: np.ndarray) -> np.ndarray:
    """Two's-complement 16-bit wraparound (SSE2's paddw / psubw / psllw / pmullw)."""
    return ((values + 0x8000) & 0xFFFF) - 0x8000


def _pmulhw(values: np.ndarray, constant: int) -> np.ndarray:
    """SSE2 pmulhw: the high 16 bits of a signed 16 x 16-bit product."""
    return (values * constant) >> 16


# jidctfst-sse2.asm's constants: the 8-bit AAN multipliers shifted so that, with inputs pre-shifted by 2 bits,
# pmulhw's ">> 16" is jidctfst.c's ">> 8"; 2.613 does not fit, so it is applied as -(1.613 z) - z.
_PRE_MULTIPLY_BITS = 2
_CONST_SHIFT = 16 - _PRE_MULTIPLY_BITS - _IFAST_BITS
_F1414 = _fix(1.414213562, _IFAST_BITS) << _CONST_SHIFT
_F1847 = _fix(1.847759065, _IFAST_BITS) << _CONST_SHIFT
_MF1613 = -((_fix(2.613125930, _IFAST_BITS) - (1 << _IFAST_BITS)) << _CONST_SHIFT)
_F1082 = _fix(1.082392200, _IFAST_BITS) << _CONST_SHIFT


def _ifast_1d(d):
    """One 8-point AAN pass on ``d[0..7]`` as libjpeg-turbo's SSE2 code computes it: 16-bit lanes that wrap,
    products truncated (jidctfst.c's arithmetic wherever nothing overflows)."""
    w = _wrap16
    tmp11, tmp10 = w(d[0] - d[4]), w(d[0] + d[4])
    tmp13 = w(d[2] + d[6])
    tmp12 = w(_pmulhw(w((d[2] - d[6]) << _PRE_MULTIPLY_BITS), _F1414) - tmp13)
    tmp3, tmp2, tmp0, tmp1 = w(tmp10 - tmp13), w(tmp11 - tmp12), w(tmp10 + tmp13), w(tmp11 + tmp12)
    z12, z10, z11, z13 = w(d[1] - d[7]), w(d[5] - d[3]), w(d[1] + d[7]), w(d[5] + d[3])
    z12_scaled, z10_scaled = w(z12 << _PRE_MULTIPLY_BITS), w(z10 << _PRE_MULTIPLY_BITS)
    tmp7 = w(z11 + z13)
    tmp11 = _pmulhw(w(w(z11 - z13) << _PRE_MULTIPLY_BITS), _F1414)
    z5 = _pmulhw(w(z10_scaled + z12_scaled), _F1847)
    tmp12 = w(w(_pmulhw(z10_scaled, _MF1613) - z10) + z5)
    tmp10 = w(_pmulhw(z12_scaled, _F1082) - z5)
    tmp6 = w(tmp12 - tmp7)
    tmp5 = w(tmp11 - tmp6)
    tmp4 = w(tmp10 + tmp5)
    return [w(tmp0 + tmp7), w(tmp1 + tmp6), w(tmp2 + tmp5), w(tmp3 - tmp4), w(tmp3 + tmp4), w(tmp2 - tmp5),
            w(tmp1 - tmp6), w(tmp0 - tmp7)]


def _reduced4_1d(d):
    """jidctred.c's 8-to-4 step: the averages of adjacent output pairs, before descale."""
    tmp0 = d[0] << (_ISLOW_BITS + 1)
    tmp2 = d[2] * _fix(1.847759065) - d[6] * _fix(0.765366865)
    tmp10, tmp12 = tmp0 + tmp2, tmp0 - tmp2
    odd0 = (-d[7] * _fix(0.211164243) + d[5] * _fix(1.451774981) - d[3] * _fix(2.172734803)
            + d[1] * _fix(1.061594337))
    odd2 = (-d[7] * _fix(0.509795579) - d[5] * _fix(0.601344887) + d[3] * _fix(0.899976223)
            + d[1] * _fix(2.562915447))
    return [tmp10 + odd2, tmp12 + odd0, tmp12 - odd0, tmp10 - odd2]


def _reduced2_1d(d):
    """jidctred.c's 8-to-2 step: the averages of each half, before descale."""
    tmp10 = d[0] << (_ISLOW_BITS + 2)
    odd = (-d[7] * _fix(0.720959822) + d[5] * _fix(0.850430095) - d[3] * _fix(1.272758580)
           + d[1] * _fix(3.624509785))
    return [tmp10 + odd, tmp10 - odd]


def _saturate16(values: np.ndarray) -> np.ndarray:
    """SSE2 packssdw: signed saturation to 16 bits."""
    return np.clip(values, -0x8000, 0x7FFF)


def _reduced4(dequantized: np.ndarray) -> np.ndarray:
    """jidctred-sse2.asm's 4x4: pass-1 results saturated to 16 bits; a block whose rows 1-3 and 5-7 are zero
    takes the shortcut DC << 2 in wrapping 16-bit arithmetic."""
    columns = [dequantized[:, k, :] for k in range(8)]
    work = np.stack([_saturate16(_descale(out, _ISLOW_BITS - _PASS1_BITS + 1)) for out in _reduced4_1d(columns)],
                    axis=1)
    flat = ~dequantized[:, [1, 2, 3, 5, 6, 7], :].any(axis=(1, 2))
    work[flat] = _wrap16(dequantized[flat, :1, :] << _PASS1_BITS)
    rows = [work[:, :, k] for k in range(8)]
    return np.stack([_descale(out, _ISLOW_BITS + _PASS1_BITS + 4) for out in _reduced4_1d(rows)], axis=2)


def _reduced2(dequantized: np.ndarray) -> np.ndarray:
    """jidctred-sse2.asm's 2x2: pass 1 in 32 bits, its odd columns saturated to 16 bits before pass 2, whose
    DC term is shifted in wrapping 32-bit lanes."""
    columns = [dequantized[:, k, :] for k in range(8)]
    work = np.stack([_descale(out, _ISLOW_BITS - _PASS1_BITS + 2) for out in _reduced2_1d(columns)], axis=1)
    rows = [work[:, :, 0]] + [_saturate16(work[:, :, k]) for k in range(1, 8)]
    dc = ((rows[0] << (_ISLOW_BITS + 2)) + (1 << 31)) % (1 << 32) - (1 << 31)
    odd = _reduced2_1d(rows)[0] - (rows[0] << (_ISLOW_BITS + 2))
    shift = _ISLOW_BITS + _PASS1_BITS + 5
    return np.stack([_descale(dc + odd, shift), _descale(dc - odd, shift)], axis=2)


def _two_passes(blocks: np.ndarray, transform, first_shift: int, second_shift: int, rounded: bool) -> np.ndarray:
    """Columns then rows of ``[n, 8, 8]`` dequantized blocks; ``transform`` maps 8 inputs to its outputs."""
    shift = _descale if rounded else (lambda values, bits: values >> bits)
    columns = [blocks[:, k, :] for k in range(8)]
    work = np.stack([shift(out, first_shift) if first_shift else out for out in transform(columns)], axis=1)
    rows = [work[:, :, k] for k in range(8)]
    return np.stack([shift(out, second_shift) for out in transform(rows)], axis=2)


def inverse_dct(coefficients: np.ndarray, quant, size: int, fast: bool) -> np.ndarray:
    """The ``[n, size, size]`` uint8 samples of ``[n, 64]`` quantized coefficient blocks (natural order).

    Args:
        coefficients: the blocks' coefficients.
        quant: the component's 64 quantization values.
        size: the scaled block size, 8, 4, 2 or 1 (TensorFlow's ratio 1, 2, 4, 8).
        fast: the 8x8 transform is IFAST ("INTEGER_FAST", TensorFlow's default) rather than ISLOW.
    """
    quant = np.asarray(quant, dtype=np.int64)
    blocks = coefficients.astype(np.int64).reshape(-1, 8, 8)
    if size == 1:
        dc = _descale(blocks[:, 0, 0] * quant[0], 3)
        limited = (dc & _RANGE_MASK)
        samples = np.where(limited < 512, np.minimum(limited + _CENTER, 255),
                           np.where(limited >= 896, limited - 896, 0))  # libjpeg's wrapping range table
        return samples.astype(np.uint8).reshape(-1, 1, 1)
    if size == 8 and fast:
        multipliers = _wrap16(_descale(quant * np.asarray(AAN_SCALES, np.int64), _AAN_BITS - _IFAST_SCALE_BITS))
        values = _two_passes(_wrap16(blocks * multipliers.reshape(8, 8)), _ifast_1d, 0, _PASS1_BITS + 3, False)
    elif size == 8:
        values = _islow(_wrap16(blocks * quant.reshape(8, 8)))
    elif size == 4:
        values = _reduced4(_wrap16(blocks * quant.reshape(8, 8)))
    elif size == 2:
        values = _reduced2(_wrap16(blocks * quant.reshape(8, 8)))
    else:
        raise ValueError(f"no inverse DCT produces {size}x{size} blocks")
    return np.clip(values + _CENTER, 0, 255).astype(np.uint8)
