"""Decoding the restart interval a truncated JPEG stream ends in, as TensorFlow's ``try_recover_truncated`` does.

TensorFlow feeds libjpeg from memory (core/lib/jpeg/jpeg_handle.cc MemFillInputBuffer).  libjpeg's Huffman
decoder keeps the source position in locals during an MCU and stores it back only when the MCU is done
(jdhuff.h BITREAD_LOAD_STATE / BITREAD_SAVE_STATE); when it runs out of bytes mid-MCU it asks the source for
more, and TensorFlow's source, still seeing the bytes left at the MCU's start, answers "there is more" without
moving: the decoder reloads that start position and reads the MCU's bytes again, round and round.  Only when
an MCU starts with every byte already in the bit buffer does the source insert its fake EOI, after which the
decoder reads zero bits and leaves the rest of the interval zero (libjpeg's "insufficient data").

So the bits decoded depend on exactly when libjpeg refills its 64-bit buffer, which this module tracks:

    slow path (jdhuff.c decode_mcu_slow, all of jdphuff.c): before a Huffman code when under 8 bits remain,
        before the 9th bit of a longer code, before each later bit when none remain, and before n raw bits
        when under n remain; a refill tops the buffer up to at least 57 bits (MIN_GET_BITS)
    fast path (decode_mcu_fast: sequential scans without restarts, while at least 512 bytes per block of the
        MCU remain in the source): 6 more bytes before each code and before each value when at most 16 remain
"""

from __future__ import annotations

from graph.platform.jpeg_huffman import FAST_BITS, extend, long_code
from graph.platform.jpeg_markers import ZIGZAG

__all__ = ["CutSource", "decode_cut_interval", "HARMLESS_MARKERS"]

_MIN_GET_BITS = 57  # jdhuff.h: BIT_BUF_SIZE (64) - 7
_LOOKAHEAD = 8  # jdhuff.h HUFF_LOOKAHEAD
_FAST_LOW_WATER, _FAST_BYTES = 16, 6  # jdhuff.c FILL_BIT_BUFFER_FAST on a 64-bit buffer
# markers libjpeg skips after a scan (RSTn, TEM) or ends on (EOI); any other "marker" read from re-read
# bytes is an error when it reads the markers after the scan (jdmarker.c read_markers)
HARMLESS_MARKERS = frozenset(range(0xD0, 0xD8)) | {0x01, 0xD9}
_FAST_BYTES_PER_BLOCK = 512  # jdhuff.c BUFSIZE: the bytes per block decode_mcu wants left for its fast path


class CutSource:
    """libjpeg's bit buffer reading the destuffed bytes of a cut interval through TensorFlow's source."""

    def __init__(self, data: bytes, fast_allowed: bool, blocks_in_mcu: int, lone_ff: bool = False):
        self.data, self.fast_allowed, self.blocks_in_mcu = data, fast_allowed, blocks_in_mcu
        self.raw_size = len(data) + data.count(0xFF) + lone_ff  # each 0xFF data byte was stuffed as FF 00
        self.end = len(data) + lone_ff  # positions: destuffed bytes, then the lone 0xFF
        self.loaded, self.position, self.pointer, self.mcu_start = bytearray(), 0, 0, 0
        self.ended, self.fast, self.marker = False, False, None

    def start_mcu(self) -> None:
        """The decoder's state at an MCU's start: where the source is, and which path decodes it."""
        self.mcu_start = self.pointer
        remaining = self.raw_size - self.pointer - self.data.count(0xFF, 0, self.pointer)
        self.fast = self.fast_allowed and remaining >= _FAST_BYTES_PER_BLOCK * self.blocks_in_mcu

    @property
    def overran(self) -> bool:
        """Whether zero bits past the fake EOI were decoded (libjpeg's insufficient_data)."""
        return self.position > 8 * len(self.loaded)

    def _next(self):
        """The next source byte (None at the fake EOI); past the end, the source hands back the MCU's start."""
        if self.pointer == self.end:
            if self.mcu_start == self.end:
                return None
            self.pointer = self.mcu_start
        byte = self.data[self.pointer] if self.pointer < len(self.data) else 0xFF
        self.pointer += 1
        return byte

    def _load_byte(self) -> bool:
        byte = self._next()
        if byte is not None and self.pointer == self.end and self.end > len(self.data):
            following = self._next()  # the lone 0xFF's second byte: 00 (or FF 00) makes it data, else a marker
            if following not in (None, 0, 0xFF):
                self.marker, self.ended = following, True
                return False
        if byte is None:
            self.ended = True  # the fake EOI: a marker, after which only zero bits come
            return False
        self.loaded.append(byte)
        return True

    def _left(self) -> int:
        return 8 * len(self.loaded) - self.position

    def _need(self, bits: int) -> None:
        if self._left() < bits and not self.ended:
            while self._left() < _MIN_GET_BITS and self._load_byte():
                pass

    def _fast_fill(self) -> None:
        if self._left() <= _FAST_LOW_WATER:
            for _ in range(_FAST_BYTES):
                self._load_byte()

    def _peek(self, bits: int) -> int:
        start = self.position >> 3
        chunk = bytes(self.loaded[start:start + 4]).ljust(4, b"\0")
        return (int.from_bytes(chunk, "big") >> (32 - bits - (self.position & 7))) & ((1 << bits) - 1)

    def bits(self, count: int) -> int:
        """``count`` raw bits (a value, an EOB run length, a correction bit)."""
        if not count:
            return 0
        if self.fast:
            self._fast_fill()
        else:
            self._need(count)
        value = self._peek(count)
        self.position += count
        return value

    def symbol(self, table) -> int:
        """The next Huffman symbol of ``table`` (`jpeg_huffman.lookup`'s form), read bit by bit past 8 bits as
        jdhuff.c jpeg_huff_decode does, so that every refill happens where libjpeg's does."""
        fast, longest, symbols = table
        if self.fast:
            self._fast_fill()
        else:
            self._need(_LOOKAHEAD)
        if self.fast or self._left() < _LOOKAHEAD:  # fast: 17+ bits are there; else past the fake EOI: zeros
            window = self._peek(16)
            entry = fast[window >> (16 - FAST_BITS)] or long_code(table, window)
            self.position += entry >> 8
            return entry & 0xFF
        entry = fast[self._peek(_LOOKAHEAD) << (FAST_BITS - _LOOKAHEAD)]
        if entry and entry >> 8 <= _LOOKAHEAD:
            self.position += entry >> 8
            return entry & 0xFF
        self._need(FAST_BITS)
        code = self._peek(FAST_BITS)
        self.position += FAST_BITS
        if fast[code] and fast[code] >> 8 == FAST_BITS:
            return fast[code] & 0xFF
        for _, largest, correction in longest:  # lengths 10 to 16
            self._need(1)
            code = (code << 1) | self._peek(1)
            self.position += 1
            if code <= largest:
                return symbols[code + correction]
        self._need(1)
        self.position += 1  # the 17th bit: a bad code, read as symbol 0
        return 0


def _sequential(source, coefs, offset, dc, ac, state, position, scan):
    size = source.symbol(dc)
    if size:
        state["pred"][position] += extend(source.bits(size), size)
    coefs[offset] = ((state["pred"][position] + 0x8000) & 0xFFFF) - 0x8000
    k = 1
    while k < 64:
        symbol = source.symbol(ac)
        run, size = symbol >> 4, symbol & 15
        if size:
            k += run
            coefs[offset + ZIGZAG[k]] = extend(source.bits(size), size)
        elif run != 15:
            break
        else:
            k += 15
        k += 1


def _dc_first(source, coefs, offset, dc, ac, state, position, scan):
    size = source.symbol(dc)
    if size:
        state["pred"][position] += extend(source.bits(size), size)
    coefs[offset] = ((state["pred"][position] * (1 << scan.al) + 0x8000) & 0xFFFF) - 0x8000


def _dc_refine(source, coefs, offset, dc, ac, state, position, scan):
    if source.bits(1):
        coefs[offset] |= 1 << scan.al


def _ac_first(source, coefs, offset, dc, ac, state, position, scan):
    if state["eobrun"] > 0:
        state["eobrun"] -= 1
        return
    k = scan.ss
    while k <= scan.se:
        symbol = source.symbol(ac)
        run, size = symbol >> 4, symbol & 15
        if size:
            k += run
            value = extend(source.bits(size), size) * (1 << scan.al)
            coefs[offset + ZIGZAG[k]] = ((value + 0x8000) & 0xFFFF) - 0x8000
        elif run == 15:
            k += 15
        else:
            state["eobrun"] = (1 << run) + source.bits(run) - 1
            break
        k += 1


def _correct(source, coefs, index, plus, minus):
    if coefs[index]:
        if source.bits(1) and not coefs[index] & plus:
            coefs[index] += plus if coefs[index] >= 0 else minus


def _ac_refine(source, coefs, offset, dc, ac, state, position, scan):
    k, plus, minus = scan.ss, 1 << scan.al, -1 << scan.al
    if state["eobrun"] == 0:
        while k <= scan.se:
            symbol = source.symbol(ac)
            run, size = symbol >> 4, symbol & 15
            new_value = 0
            if size:
                new_value = plus if source.bits(1) else minus
            elif run != 15:
                state["eobrun"] = (1 << run) + source.bits(run)
                break
            while k <= scan.se:
                index = offset + ZIGZAG[k]
                if coefs[index]:
                    _correct(source, coefs, index, plus, minus)
                else:
                    run -= 1
                    if run < 0:
                        break
                k += 1
            if new_value:
                coefs[offset + ZIGZAG[k]] = new_value
            k += 1
    if state["eobrun"] > 0:
        while k <= scan.se:
            _correct(source, coefs, offset + ZIGZAG[k], plus, minus)
            k += 1
        state["eobrun"] -= 1


def decode_cut_interval(source: CutSource, scan, progressive: bool, lists, dc_tables, ac_tables, mcus) -> int:
    """Decodes ``mcus`` (each a list of (scan position, block offset)) from ``source`` into the coefficient
    ``lists``; returns how many it decoded (fewer than all when it ran past the fake EOI: the rest stay zero)."""
    if not progressive:
        decode = _sequential
    elif scan.ss == 0:
        decode = _dc_first if scan.ah == 0 else _dc_refine
    else:
        decode = _ac_first if scan.ah == 0 else _ac_refine
    state = {"eobrun": 0, "pred": [0] * len(lists)}
    for count, mcu in enumerate(mcus, start=1):
        source.start_mcu()
        for position, offset in mcu:
            decode(source, lists[position], offset, dc_tables[position], ac_tables[position], state, position, scan)
        if source.overran:
            return count
    return len(mcus)
