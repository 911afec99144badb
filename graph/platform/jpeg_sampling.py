"""Chroma resampling of JPEG planes, as libjpeg-turbo does it: upsampling when decoding (jdsample.c) and
downsampling when encoding (jcsample.c), vectorized over whole planes.

Decoding, a plane of ``[rows, columns]`` samples grows by whole factors:

    fancy h2v1  each output is 3/4 of its nearer input plus 1/4 of the next: (3a + b + 1) >> 2 to the left,
                (3a + b + 2) >> 2 to the right; the first and last columns copy their input
    fancy h2v2  the same in both directions on column sums 3 * nearer row + farther row:
                (3s + s_left + 8) >> 4 and (3s + s_right + 7) >> 4
    fancy h1v2  (3 * nearer + farther + 1) >> 2 above, + 2 below
    box         every input repeated (libjpeg's h2v1 / h2v2 / int_upsample, and its merged upsampler)

Rows past the plane's edges repeat its first and last rows (jdmainct.c's context pointers); columns past the
edges act as copies of the first and last column, which is what the special cases at both ends compute.

Encoding, h2v1 averages pairs with a bias alternating 0, 1, h2v2 averages 2x2 squares with a bias
alternating 1, 2 along a row and h1v2 (libjpeg's generic int_downsample) rounds half up, after the image is
padded by repeating its last column (and the plane by repeating its last row) out to whole blocks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["upsample", "downsample", "pad_plane"]


def _fancy_h2v1(plane: np.ndarray) -> np.ndarray:
    left = np.concatenate([plane[:, :1], plane[:, :-1]], axis=1)
    right = np.concatenate([plane[:, 1:], plane[:, -1:]], axis=1)
    out = np.empty((plane.shape[0], 2 * plane.shape[1]), dtype=np.int32)
    out[:, 0::2] = (3 * plane + left + 1) >> 2
    out[:, 1::2] = (3 * plane + right + 2) >> 2
    return out


def _fancy_h1v2(plane: np.ndarray) -> np.ndarray:
    above = np.concatenate([plane[:1], plane[:-1]], axis=0)
    below = np.concatenate([plane[1:], plane[-1:]], axis=0)
    out = np.empty((2 * plane.shape[0], plane.shape[1]), dtype=np.int32)
    out[0::2] = (3 * plane + above + 1) >> 2
    out[1::2] = (3 * plane + below + 2) >> 2
    return out


def _fancy_h2v2(plane: np.ndarray) -> np.ndarray:
    above = np.concatenate([plane[:1], plane[:-1]], axis=0)
    below = np.concatenate([plane[1:], plane[-1:]], axis=0)
    sums = np.empty((2 * plane.shape[0], plane.shape[1]), dtype=np.int32)
    sums[0::2] = 3 * plane + above
    sums[1::2] = 3 * plane + below
    left = np.concatenate([sums[:, :1], sums[:, :-1]], axis=1)
    right = np.concatenate([sums[:, 1:], sums[:, -1:]], axis=1)
    out = np.empty((sums.shape[0], 2 * sums.shape[1]), dtype=np.int32)
    out[:, 0::2] = (3 * sums + left + 8) >> 4
    out[:, 1::2] = (3 * sums + right + 7) >> 4
    return out


def upsample(plane: np.ndarray, horizontal: int, vertical: int, fancy: bool) -> np.ndarray:
    """``plane`` (its real samples only) grown by the whole factors ``horizontal`` x ``vertical``.

    Args:
        plane: ``[rows, columns]`` samples.
        horizontal, vertical: the factors.
        fancy: use the triangle filters where libjpeg has them (2x1, 2x2, 1x2); callers decide libjpeg's
            other conditions (scaled IDCT, plane at least 3 wide).
    """
    plane = plane.astype(np.int32)
    if fancy and (horizontal, vertical) == (2, 1):
        return _fancy_h2v1(plane)
    if fancy and (horizontal, vertical) == (2, 2):
        return _fancy_h2v2(plane)
    if fancy and (horizontal, vertical) == (1, 2):
        return _fancy_h1v2(plane)
    return np.repeat(np.repeat(plane, vertical, axis=0), horizontal, axis=1)


def pad_plane(plane: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """``plane`` extended to ``rows`` x ``columns`` by repeating its last row and column (jcsample.c's
    expand_right_edge, jcprepct.c's bottom padding)."""
    return np.pad(plane, ((0, rows - plane.shape[0]), (0, columns - plane.shape[1])), mode="edge")


def downsample(plane: np.ndarray, horizontal: int, vertical: int) -> np.ndarray:
    """A padded ``[rows, columns]`` plane shrunk by ``horizontal`` x ``vertical`` (1 or 2 each), with
    jcsample.c's rounding biases (h2v1: alternating 0, 1; h2v2: alternating 1, 2; h1v2: 1)."""
    plane = plane.astype(np.int32)
    if (horizontal, vertical) == (1, 1):
        return plane
    if (horizontal, vertical) == (2, 1):
        bias = np.tile(np.array([0, 1], np.int32), plane.shape[1] // 4 + 1)[:plane.shape[1] // 2]
        return (plane[:, 0::2] + plane[:, 1::2] + bias) >> 1
    if (horizontal, vertical) == (1, 2):  # jcsample.c int_downsample: rounding half up
        return (plane[0::2] + plane[1::2] + 1) >> 1
    if (horizontal, vertical) == (2, 2):
        bias = np.tile(np.array([1, 2], np.int32), plane.shape[1] // 4 + 1)[:plane.shape[1] // 2]
        return (plane[0::2, 0::2] + plane[0::2, 1::2] + plane[1::2, 0::2] + plane[1::2, 1::2] + bias) >> 2
    raise ValueError(f"downsampling by {horizontal}x{vertical} is not done here")
