"""JFIF colour conversion between RGB and YCbCr in libjpeg's 16-bit fixed point (jdcolor.c, jccolor.c).

Decoding (per sample, Cb and Cr centred on 128, results clamped to 0-255)::

    R = Y + round(1.40200 * Cr)
    G = Y + ((-0.34414 * 2**16 * Cb + 2**15 - 0.71414 * 2**16 * Cr) >> 16)    (constants rounded to integers)
    B = Y + round(1.77200 * Cb)

Encoding::

    Y  = (0.29900 R + 0.58700 G + 0.11400 B) * 2**16 + 2**15            >> 16
    Cb = (-0.16874 R - 0.33126 G + 0.50000 B) * 2**16 + 128 * 2**16 + 2**15 - 1   >> 16
    Cr = (0.50000 R - 0.41869 G - 0.08131 B) * 2**16 + 128 * 2**16 + 2**15 - 1    >> 16

Grey from RGB uses the Y row.  Every constant is libjpeg's FIX(x) = round(x * 2**16).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ycc_to_rgb", "rgb_to_gray", "rgb_to_ycc"]

_SCALE_BITS = 16
_ONE_HALF = 1 << (_SCALE_BITS - 1)
_CENTER = 128
_CBCR_OFFSET = _CENTER << _SCALE_BITS


def _fix(value: float) -> int:
    return int(value * (1 << _SCALE_BITS) + 0.5)


def ycc_to_rgb(y: np.ndarray, cb: np.ndarray, cr: np.ndarray) -> np.ndarray:
    """The ``[..., 3]`` uint8 RGB of same-shaped Y, Cb, Cr sample planes."""
    y, cb, cr = (np.asarray(p, dtype=np.int64) for p in (y, cb, cr))
    cb, cr = cb - _CENTER, cr - _CENTER
    red = y + ((_fix(1.40200) * cr + _ONE_HALF) >> _SCALE_BITS)
    green = y + ((-_fix(0.34414) * cb + _ONE_HALF - _fix(0.71414) * cr) >> _SCALE_BITS)
    blue = y + ((_fix(1.77200) * cb + _ONE_HALF) >> _SCALE_BITS)
    return np.clip(np.stack([red, green, blue], axis=-1), 0, 255).astype(np.uint8)


def rgb_to_gray(red: np.ndarray, green: np.ndarray, blue: np.ndarray) -> np.ndarray:
    """The uint8 luminance of RGB sample planes (jdcolor.c rgb_gray_convert)."""
    red, green, blue = (np.asarray(p, dtype=np.int64) for p in (red, green, blue))
    return ((_fix(0.29900) * red + _fix(0.58700) * green + _fix(0.11400) * blue + _ONE_HALF)
            >> _SCALE_BITS).astype(np.uint8)


def rgb_to_ycc(rgb: np.ndarray) -> tuple:
    """The Y, Cb, Cr int32 planes of a ``[rows, columns, 3]`` uint8 image (jccolor.c rgb_ycc_convert)."""
    red, green, blue = (rgb[..., i].astype(np.int64) for i in range(3))
    luma = rgb_to_gray(red, green, blue).astype(np.int32)
    rounding = _CBCR_OFFSET + _ONE_HALF - 1  # 0.5 - epsilon keeps the maximum at 255
    cb = (-_fix(0.16874) * red - _fix(0.33126) * green + _fix(0.50000) * blue + rounding) >> _SCALE_BITS
    cr = (_fix(0.50000) * red - _fix(0.41869) * green - _fix(0.08131) * blue + rounding) >> _SCALE_BITS
    return luma, cb.astype(np.int32), cr.astype(np.int32)
