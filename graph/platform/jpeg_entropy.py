"""Huffman decoding of JPEG scans (ITU-T T.81 F.2 and G.2) into quantized DCT coefficients, with libjpeg-turbo's
handling of damaged data (jdhuff.c, jdphuff.c).

Each restart interval's data is read as a bit string, most significant bit first, followed by zero bits: a
decoder that needs bits past the end gets zeros, finishes the MCU it is in, and leaves the interval's later
MCUs all zero ("insufficient data": uniform grey), as libjpeg does.  An interval whose RSTn never came has
its first MCU decoded from zero bits (unless the one before ran out) and the rest zero; the interval a
truncated stream ends in is decoded by `jpeg_truncation`, which follows TensorFlow's source manager.  A code
not in the table consumes 17 bits and reads as symbol 0.  Coefficients are kept per component as a flat list,
64 per block in natural order, blocks row-major over the MCU-padded block grid.
"""

from __future__ import annotations

import numpy as np

from graph.platform.jpeg_huffman import FAST_BITS, defined, extend, long_code, lookup
from graph.platform import jpeg_truncation
from graph.platform.jpeg_markers import ZIGZAG, JpegError

__all__ = ["decode_coefficients", "decode_coefficient_grids"]

class _Bits:
    """An interval's bits as 32-bit windows, one per byte offset, padded with zeros past the end."""

    def __init__(self, data: bytes, padding: int):
        raw = np.frombuffer(data + bytes(padding + 4), dtype=np.uint8).astype(np.int64)
        self.windows = ((raw[:-3] << 24) | (raw[1:-2] << 16) | (raw[2:-1] << 8) | raw[3:]).tolist()
        self.limit = 8 * len(data)


class _ScanDecoder:
    """Decodes one scan's MCUs into the component coefficient lists."""

    def __init__(self, frame, scan, coefficients, grid_widths):
        self.frame, self.scan, self.coefficients, self.grid_widths = frame, scan, coefficients, grid_widths
        self.dc = [lookup(defined(t), True) if self._needs_dc() else None for t in scan.dc_tables]
        self.ac = [lookup(defined(t), False) if self._needs_ac() else None for t in scan.ac_tables]

    def _needs_dc(self) -> bool:  # a sequential scan codes every coefficient whatever its Ss, Se, Ah say
        return not self.frame.progressive or (self.scan.ss == 0 and self.scan.ah == 0)

    def _needs_ac(self) -> bool:
        return not self.frame.progressive or self.scan.se > 0

    def mcu_blocks(self):
        """For each MCU in scan order, the (component position, block offset) of its blocks."""
        frame, scan = self.frame, self.scan
        if len(scan.components) == 1:
            index = scan.components[0]
            component = frame.components[index]
            width = self.grid_widths[index]
            for row in range(component.height_in_blocks):
                for column in range(component.width_in_blocks):
                    yield ((0, 64 * (row * width + column)),)
            return
        for mcu_row in range(frame.mcu_rows):
            for mcu_column in range(frame.mcus_per_row):
                blocks = []
                for position, index in enumerate(scan.components):
                    component, width = frame.components[index], self.grid_widths[index]
                    for y in range(component.v):
                        for x in range(component.h):
                            block = (mcu_row * component.v + y) * width + mcu_column * component.h + x
                            blocks.append((position, 64 * block))
                yield tuple(blocks)

    def run(self) -> int:
        """Decodes the scan; returns the iMCU row of the last MCU decoded while data lasted (libjpeg's
        last_good_iMCU_row)."""
        scan = self.scan
        mcus = list(self.mcu_blocks())
        interval = scan.restart_interval or len(mcus) or 1
        blocks_in_mcu = max((len(m) for m in mcus), default=1)
        complete, last = True, len(mcus) - 1
        for number, start in enumerate(range(0, len(mcus), interval)):
            chunk = mcus[start:start + interval]
            if number >= len(scan.segments):
                if complete:  # no RSTn came: libjpeg decodes this interval's first MCU from zero bits
                    self.decode_cut(b"", chunk[:1], blocks_in_mcu)
                    last = start
                break  # and leaves the rest zero
            if scan.truncated and number == len(scan.segments) - 1:
                decoded = self.decode_cut(scan.segments[number], chunk, blocks_in_mcu)
            else:
                decoded = self.decode_interval(_Bits(scan.segments[number], blocks_in_mcu * 64 * 34 // 8 + 8), chunk)
            complete = decoded == len(chunk)
            if not complete:
                last = start + decoded - 1
        if len(scan.components) > 1:
            return last // self.frame.mcus_per_row
        component = self.frame.components[scan.components[0]]
        return last // component.width_in_blocks // component.v

    def decode_cut(self, data: bytes, mcus, blocks_in_mcu: int) -> int:
        """Decodes an interval the stream ends in (`jpeg_truncation`); returns how many MCUs it decoded."""
        scan = self.scan
        source = jpeg_truncation.CutSource(data, not self.frame.progressive and not scan.restart_interval,
                                           blocks_in_mcu, scan.lone_ff and data == scan.segments[-1])
        complete = jpeg_truncation.decode_cut_interval(
            source, scan, self.frame.progressive, [self.coefficients[i] for i in scan.components],
            self.dc, self.ac, mcus)
        if source.marker is not None and source.marker not in jpeg_truncation.HARMLESS_MARKERS:
            raise JpegError(f"Unsupported marker type 0x{source.marker:02x}")
        return complete

    def decode_interval(self, bits, mcus) -> int:
        """Decodes ``mcus`` from ``bits``; returns how many (fewer when the data ran out: the rest stay zero)."""
        scan, frame = self.scan, self.frame
        lists = [self.coefficients[i] for i in scan.components]
        dc_tables = [self.dc[p] for p in range(len(scan.components))]
        ac_tables = [self.ac[p] for p in range(len(scan.components))]
        windows, limit = bits.windows, bits.limit
        state = {"pos": 0, "eobrun": 0, "pred": [0] * len(scan.components)}
        if not frame.progressive:
            decode = self._sequential_block
        elif scan.ss == 0:
            decode = self._dc_first if scan.ah == 0 else self._dc_refine
        else:
            decode = self._ac_first if scan.ah == 0 else self._ac_refine
        for count, mcu in enumerate(mcus, start=1):
            for position, offset in mcu:
                decode(windows, state, lists[position], offset, dc_tables[position], ac_tables[position],
                       position)
            if state["pos"] > limit:
                return count  # ran out of data within this MCU: the rest of the interval stays zero
        return len(mcus)

    # Each block decoder reads from ``windows`` at bit ``state["pos"]``.

    def _sequential_block(self, windows, state, coefs, offset, dc, ac, position):
        pos = state["pos"]
        window = (windows[pos >> 3] >> (16 - (pos & 7))) & 0xFFFF
        entry = dc[0][window >> (16 - FAST_BITS)] or long_code(dc, window)
        pos += entry >> 8
        size = entry & 0xFF
        if size:
            value = (windows[pos >> 3] >> (32 - size - (pos & 7))) & ((1 << size) - 1)
            pos += size
            state["pred"][position] += extend(value, size)
        dc_value = state["pred"][position]
        coefs[offset] = ((dc_value + 0x8000) & 0xFFFF) - 0x8000  # JCOEF is 16 bits
        k = 1
        while k < 64:
            window = (windows[pos >> 3] >> (16 - (pos & 7))) & 0xFFFF
            entry = ac[0][window >> (16 - FAST_BITS)] or long_code(ac, window)
            pos += entry >> 8
            symbol = entry & 0xFF
            run, size = symbol >> 4, symbol & 15
            if size:
                k += run
                value = (windows[pos >> 3] >> (32 - size - (pos & 7))) & ((1 << size) - 1)
                pos += size
                coefs[offset + ZIGZAG[k]] = extend(value, size)
            elif run != 15:
                break
            else:
                k += 15
            k += 1
        state["pos"] = pos

    def _dc_first(self, windows, state, coefs, offset, dc, ac, position):
        pos = state["pos"]
        window = (windows[pos >> 3] >> (16 - (pos & 7))) & 0xFFFF
        entry = dc[0][window >> (16 - FAST_BITS)] or long_code(dc, window)
        pos += entry >> 8
        size = entry & 0xFF
        if size:
            value = (windows[pos >> 3] >> (32 - size - (pos & 7))) & ((1 << size) - 1)
            pos += size
            state["pred"][position] += extend(value, size)
        value = state["pred"][position] * (1 << self.scan.al)
        coefs[offset] = ((value + 0x8000) & 0xFFFF) - 0x8000
        state["pos"] = pos

    def _dc_refine(self, windows, state, coefs, offset, dc, ac, position):
        pos = state["pos"]
        if (windows[pos >> 3] >> (31 - (pos & 7))) & 1:
            coefs[offset] |= 1 << self.scan.al
        state["pos"] = pos + 1

    def _ac_first(self, windows, state, coefs, offset, dc, ac, position):
        if state["eobrun"] > 0:
            state["eobrun"] -= 1
            return
        pos, scan = state["pos"], self.scan
        k, se, al = scan.ss, scan.se, scan.al
        while k <= se:
            window = (windows[pos >> 3] >> (16 - (pos & 7))) & 0xFFFF
            entry = ac[0][window >> (16 - FAST_BITS)] or long_code(ac, window)
            pos += entry >> 8
            symbol = entry & 0xFF
            run, size = symbol >> 4, symbol & 15
            if size:
                k += run
                value = (windows[pos >> 3] >> (32 - size - (pos & 7))) & ((1 << size) - 1)
                pos += size
                coefs[offset + ZIGZAG[k]] = ((extend(value, size) * (1 << al) + 0x8000) & 0xFFFF) - 0x8000
            elif run == 15:
                k += 15
            else:
                eobrun = 1 << run
                if run:
                    eobrun += (windows[pos >> 3] >> (32 - run - (pos & 7))) & ((1 << run) - 1)
                    pos += run
                state["eobrun"] = eobrun - 1
                break
            k += 1
        state["pos"] = pos

    def _ac_refine(self, windows, state, coefs, offset, dc, ac, position):
        pos, scan = state["pos"], self.scan
        k, se = scan.ss, scan.se
        plus, minus = 1 << scan.al, -1 << scan.al
        if state["eobrun"] == 0:
            while k <= se:
                window = (windows[pos >> 3] >> (16 - (pos & 7))) & 0xFFFF
                entry = ac[0][window >> (16 - FAST_BITS)] or long_code(ac, window)
                pos += entry >> 8
                symbol = entry & 0xFF
                run, size = symbol >> 4, symbol & 15
                new_value = 0
                if size:  # size should be 1 (libjpeg warns otherwise and goes on)
                    new_value = plus if (windows[pos >> 3] >> (31 - (pos & 7))) & 1 else minus
                    pos += 1
                elif run != 15:
                    eobrun = 1 << run
                    if run:
                        eobrun += (windows[pos >> 3] >> (32 - run - (pos & 7))) & ((1 << run) - 1)
                        pos += run
                    state["eobrun"] = eobrun
                    break
                while k <= se:  # correction bits for nonzero coefficients passed over, up to the target zero
                    index = offset + ZIGZAG[k]
                    if coefs[index]:
                        if (windows[pos >> 3] >> (31 - (pos & 7))) & 1 and not coefs[index] & plus:
                            coefs[index] += plus if coefs[index] >= 0 else minus
                        pos += 1
                    else:
                        run -= 1
                        if run < 0:
                            break
                    k += 1
                if new_value:
                    coefs[offset + ZIGZAG[k]] = new_value
                k += 1
        if state["eobrun"] > 0:
            while k <= se:
                index = offset + ZIGZAG[k]
                if coefs[index]:
                    if (windows[pos >> 3] >> (31 - (pos & 7))) & 1 and not coefs[index] & plus:
                        coefs[index] += plus if coefs[index] >= 0 else minus
                    pos += 1
                k += 1
            state["eobrun"] -= 1
        state["pos"] = pos


def decode_coefficient_grids(jpeg) -> tuple:
    """Every component's quantized coefficients after all scans, as int32 arrays ``[rows, columns, 64]``
    (natural order) over the MCU-padded block grid, and the last scan's last good iMCU row (`_ScanDecoder.run`)."""
    frame = jpeg.frame
    widths = [frame.mcus_per_row * c.h for c in frame.components]
    heights = [frame.mcu_rows * c.v for c in frame.components]
    coefficients = [[0] * (64 * w * h) for w, h in zip(widths, heights)]
    last_good_row = 0
    for scan in jpeg.scans:
        last_good_row = _ScanDecoder(frame, scan, coefficients, widths).run()
    grids = [np.array(flat, dtype=np.int32).reshape(height, width, 64)
             for flat, width, height in zip(coefficients, widths, heights)]
    return grids, last_good_row


def decode_coefficients(jpeg) -> list:
    """Every component's coefficients ``[height_in_blocks, width_in_blocks, 64]``, cropped from its grid."""
    grids, _ = decode_coefficient_grids(jpeg)
    return [grid[:c.height_in_blocks, :c.width_in_blocks] for grid, c in zip(grids, jpeg.frame.components)]
