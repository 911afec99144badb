"""libjpeg-turbo 2.1's block smoothing (jdcoefct.c smoothing_ok, decompress_smooth_data, after T.81 K.8): a
progressive image whose scans leave low AC coefficients unrefined (a cut stream, or a script that stops
early) gets those coefficients estimated from the DC values of the 5x5 blocks around each block.

Per component, ``coef_bits[k]`` is the Al of the last scan that coded coefficient k (-1: none yet; 0: exact).
Smoothing is on when every component has some DC and some component has a coefficient 1-9 not exact.  A
coefficient still zero and not exact becomes ``round(Q00 * sum(weights * DCs) / (256 Qk))`` (truncated toward
zero, capped below 2**Al); when no AC coefficient 1-9 was ever coded (``change_dc``), five more coefficients
and the DC itself are estimated with wider 5x5 weights.  Rows past the last iMCU row decoded while data lasted
use the coefficient bits as they were before the last scan.

The 5x5 window follows libjpeg-turbo 2.1's pointers and sliding registers, quirks included: rows two away
are read only from iMCU rows it has buffered (else the nearer row repeats), and the columns to the right stop
at the last block.
"""

from __future__ import annotations

import numpy as np

__all__ = ["coefficient_bits", "smoothing_applies", "smooth"]

SAVED = 10  # jdcoefct.c SAVED_COEFS: coefficients 0-9 (zig-zag) are watched
_POSITIONS = (0, 1, 8, 16, 9, 2, 3, 10, 17, 24)  # natural index of zig-zag coefficients 0-9

# num = Q00 * sum(weight * DC[row][column]) over the 5x5 window (rows top to bottom, columns left to right);
# DC01-DC25 of jdcoefct.c are the window read row by row.
_NARROW = {  # coefficients 1-5 when some AC coefficient was coded
    1: {(2, 0): -7, (2, 1): 50, (2, 3): -50, (2, 4): 7},
    2: {(0, 2): -7, (1, 2): 50, (3, 2): -50, (4, 2): 7},
    3: {(0, 2): -1, (1, 2): 13, (2, 2): -24, (3, 2): 13, (4, 2): -1},
    4: {(1, 4): 1, (3, 0): 1, (3, 1): -10, (3, 3): 10, (0, 1): -1, (3, 4): -1, (4, 1): 1, (4, 3): -1, (0, 3): 1,
        (1, 0): -1, (1, 1): 10, (1, 3): -10},
    5: {(2, 0): -1, (2, 1): 13, (2, 2): -24, (2, 3): 13, (2, 4): -1},
}
_WIDE = {  # change_dc: coefficients 1-9 and the DC
    1: {(0, 0): -1, (0, 1): -1, (0, 3): 1, (0, 4): 1, (1, 0): -3, (1, 1): 13, (1, 3): -13, (1, 4): 3,
        (2, 0): -3, (2, 1): 38, (2, 3): -38, (2, 4): 3, (3, 0): -3, (3, 1): 13, (3, 3): -13, (3, 4): 3,
        (4, 0): -1, (4, 1): -1, (4, 3): 1, (4, 4): 1},
    2: {(0, 0): -1, (0, 1): -3, (0, 2): -3, (0, 3): -3, (0, 4): -1, (1, 0): -1, (1, 1): 13, (1, 2): 38,
        (1, 3): 13, (1, 4): -1, (3, 0): 1, (3, 1): -13, (3, 2): -38, (3, 3): -13, (3, 4): 1, (4, 0): 1,
        (4, 1): 3, (4, 2): 3, (4, 3): 3, (4, 4): 1},
    3: {(0, 2): 1, (1, 1): 2, (1, 2): 7, (1, 3): 2, (2, 1): -5, (2, 2): -14, (2, 3): -5, (3, 1): 2, (3, 2): 7,
        (3, 3): 2, (4, 2): 1},
    4: {(0, 0): -1, (0, 4): 1, (1, 1): 9, (1, 3): -9, (3, 1): -9, (3, 3): 9, (4, 0): 1, (4, 4): -1},
    5: {(1, 1): 2, (1, 2): -5, (1, 3): 2, (2, 0): 1, (2, 1): 7, (2, 2): -14, (2, 3): 7, (2, 4): 1, (3, 1): 2,
        (3, 2): -5, (3, 3): 2},
    6: {(1, 1): 1, (1, 3): -1, (2, 1): 2, (2, 3): -2, (3, 1): 1, (3, 3): -1},
    7: {(1, 1): 1, (1, 2): -3, (1, 3): 1, (3, 1): -1, (3, 2): 3, (3, 3): -1},
    8: {(1, 1): 1, (1, 3): -1, (2, 1): -3, (2, 3): 3, (3, 1): 1, (3, 3): -1},
    9: {(1, 1): 1, (1, 2): 2, (1, 3): 1, (3, 1): -1, (3, 2): -2, (3, 3): -1},
    0: {(r, c): w for r, row in enumerate(((-2, -6, -8, -6, -2), (-6, 6, 42, 6, -6), (-8, 42, 152, 42, -8),
                                            (-6, 6, 42, 6, -6), (-2, -6, -8, -6, -2)))
        for c, w in enumerate(row)},
}


def coefficient_bits(jpeg) -> tuple:
    """Per component, libjpeg's ``coef_bits`` and the previous-scan copy of coefficients 0-9 after every scan
    started (jdphuff.c start_pass_phuff_decoder), latched as smoothing_ok latches them."""
    current = [[-1] * SAVED for _ in jpeg.frame.components]
    previous = [[-1] * SAVED for _ in jpeg.frame.components]
    for number, scan in enumerate(jpeg.scans, start=1):
        for index in scan.components:
            for k in range(min(scan.ss, 1), min(max(scan.se, SAVED - 1), SAVED - 1) + 1):
                previous[index][k] = current[index][k] if number > 1 else 0
            for k in range(scan.ss, min(scan.se, SAVED - 1) + 1):
                current[index][k] = scan.al
    if len(jpeg.scans) <= 1:
        previous = [[-1] * SAVED for _ in jpeg.frame.components]
    return current, previous


def smoothing_applies(jpeg) -> bool:
    """jdcoefct.c smoothing_ok: progressive, DC known everywhere, some low AC coefficient not exact."""
    if not jpeg.frame.progressive:
        return False
    current, _ = coefficient_bits(jpeg)
    if any(c.quant is None or not all(c.quant[p] for p in _POSITIONS) for c in jpeg.frame.components):
        return False
    return all(bits[0] >= 0 for bits in current) and any(any(bits[1:]) for bits in current)


def _window_rows(height: int, v: int, total_rows: int) -> np.ndarray:
    """For each real block row, the 5 rows libjpeg-turbo 2.1's window reads (two above, itself, two below):
    a row further than the iMCU rows buffered around the current one repeats the nearer neighbour, which for
    v = 2 components also happens inside the image."""
    rows, last = [], total_rows - 1
    for imcu in range(total_rows):
        count = v if imcu < last else (height % v or v)
        for offset in range(count):
            current = imcu * v + offset
            above = current - 1 if (offset > 0 or imcu > 0) else current
            above2 = current - 2 if (offset > 1 or imcu > 1) else above
            below = current + 1 if (offset < count - 1 or imcu < last) else current
            below2 = current + 2 if (offset < count - 2 or imcu + 1 < last) else below
            rows.append((above2, above, current, below, below2))
    return np.array(rows[:height])


def _window_columns(width: int, first: int, last_output: int) -> np.ndarray:
    """For each block column from ``first`` to ``last_output``, the 5 columns of libjpeg's sliding DC
    registers (started at ``first``: a crop's first column)."""
    last = width - 1
    slots, columns = [first] * 5, []
    for block in range(first, last_output + 1):
        if block == first and block < last:
            slots[3] = slots[4] = first + 1
        if block + 1 < last:
            slots[4] = block + 2
        columns.append(tuple(slots))
        slots = slots[1:] + slots[4:]
    return np.array(columns)


def _estimate(numerator: np.ndarray, quant: int, al: int, capped: bool) -> np.ndarray:
    magnitude = ((quant << 7) + np.abs(numerator)) // (quant << 8)
    if capped and al > 0:
        magnitude = np.minimum(magnitude, (1 << al) - 1)
    return np.where(numerator >= 0, magnitude, -magnitude)


def _smoothed(blocks, dcs, quant, bits) -> np.ndarray:
    wide = all(b == -1 for b in bits[1:])
    weights = _WIDE if wide else _NARROW
    out = blocks.copy()
    for k in (range(1, 10) if wide else range(1, 6)):
        position = _POSITIONS[k]
        if bits[k] == 0:
            continue
        numerator = quant[0] * sum(w * dcs[r][c] for (r, c), w in weights[k].items())
        estimate = _estimate(numerator, quant[position], bits[k], True)
        out[..., position] = np.where(blocks[..., position] == 0, estimate, blocks[..., position])
    if wide:
        out[..., 0] = _estimate(quant[0] * sum(w * dcs[r][c] for (r, c), w in weights[0].items()), quant[0], 0,
                                False)
    return out


def smooth(grid: np.ndarray, component, quant, bits, previous_bits, last_good_row: int, total_rows: int,
           columns: tuple | None = None) -> np.ndarray:
    """``component``'s real blocks ``[height_in_blocks, width_in_blocks, 64]`` after smoothing (only the
    block ``columns`` (first, last) a crop decodes are smoothed, the window starting at the first).

    Args:
        grid: the component's MCU-padded coefficient grid (natural order).
        component: its `jpeg_markers.Component` (block counts, vertical sampling).
        quant: its quantization table.
        bits, previous_bits: its latched coefficient bits (`coefficient_bits`).
        last_good_row: the last iMCU row decoded while data lasted; later rows use ``previous_bits``.
        total_rows: the image's iMCU rows.
        columns: the first and last block columns decoded (all when None).
    """
    height, width = component.height_in_blocks, component.width_in_blocks
    first, last = columns if columns is not None else (0, width - 1)
    rows, window = _window_rows(height, component.v, total_rows), _window_columns(width, first, last)
    dc = grid[..., 0].astype(np.int64)
    dcs = [[dc[rows[:, r][:, None], window[:, c][None, :]] for c in range(5)] for r in range(5)]
    blocks = grid[:height, first:last + 1].astype(np.int64)
    quant = [int(q) for q in quant]
    good = (np.arange(height) // component.v <= last_good_row)[:, None, None]
    result = np.where(good, _smoothed(blocks, dcs, quant, bits), _smoothed(blocks, dcs, quant, previous_bits))
    out = grid[:height, :width].copy()
    out[:, first:last + 1] = ((result + 0x8000) & 0xFFFF) - 0x8000  # JCOEF
    return out
