"""Tests for saver/table.py: the spec's 121-byte index, block splitting, key shortening, damage."""

import io
import random

import pytest

from graph.errors import DataLossError, InvalidArgumentError, UnimplementedError
from graph.base import crc
from saver.format.table import BLOCK_SIZE, Table, TableWriter, _short_successor, _shortest_separator

GOLDEN_121 = bytes.fromhex(
    "000006" "0801" "1a020801"
    "00010f76" "08011204120208022808" "35593ce535"
    "0000000001000000" "0030559358"
    "0000000001000000" "00c0f2a1b0"
    "000102770024" "0000000001000000" "009460b2cd"
    "2908360e") + bytes(36) + bytes.fromhex("57fb808b247547db")


def _write(items, block_size=BLOCK_SIZE) -> bytes:
    out = io.BytesIO()
    writer = TableWriter(out, block_size)
    for key, value in items:
        writer.add(key, value)
    size = writer.finish()
    assert size == len(out.getvalue())
    return out.getvalue()


def test_worked_example_121_bytes():
    items = [(b"", bytes.fromhex("08011a020801")), (b"v", bytes.fromhex("080112041202080228083559" "3ce535"))]
    assert len(GOLDEN_121) == 121
    assert _write(items) == GOLDEN_121
    table = Table("one.index", GOLDEN_121)
    assert list(table.items()) == items
    assert table.get(b"v") == items[1][1] and table.get(b"") == items[0][1]
    assert table.get(b"u") is None and table.get(b"w") is None and table.get(b"vv") is None
    assert table.metaindex_handle == (41, 8) and table.index_handle == (54, 14)


def test_empty_table():
    data = _write([])
    table = Table("e", data)
    assert list(table.items()) == [] and table.get(b"") is None


def test_key_shortening_rules():
    assert _shortest_separator(b"k02384xxx", b"k02386xxx") == b"k02385"
    assert _shortest_separator(b"abc", b"abd") == b"abc"       # a[i] + 1 == b[i]: unchanged
    assert _shortest_separator(b"ab", b"abc") == b"ab"         # prefix: unchanged
    assert _shortest_separator(b"a\xffz", b"b\x00") == b"a\xffz"
    assert _shortest_separator(b"a\xff\x01", b"a\xff\x05") == b"a\xff\x02"
    assert _short_successor(b"u8") == b"v" and _short_successor(b"k0abc") == b"l"
    assert _short_successor(b"\xff\xffa") == b"\xff\xffb" and _short_successor(b"\xff") == b"\xff"


def test_many_blocks_restarts_and_lookup():
    rng = random.Random(1)
    keys = sorted({b"k%05d" % i + bytes(rng.randrange(256) for _ in range(rng.randrange(30))) for i in range(5000)})
    items = [(key, bytes(rng.randrange(256) for _ in range(rng.randrange(120)))) for key in keys]
    data = _write(items)
    table = Table("big", data)
    assert table.num_blocks >= 2
    assert list(table.items()) == items
    for key, value in items[::97] + items[-3:]:
        assert table.get(key) == value
        assert table.get(key + b"\x00") is None
    # restart points every 16 entries in data blocks: count them in block 0
    block = table._read_block(*table._index_handles[0])
    entries = sum(1 for _ in table._entries(block))
    assert len(block.restarts) == (entries + 15) // 16
    assert all(block.data[r] == 0 for r in block.restarts)  # shared == 0 at restarts


def test_block_is_cut_at_the_size_estimate():
    value = b"x" * 1000
    items = [(b"%04d" % i, value) for i in range(600)]
    table = Table("t", _write(items))
    first = table._read_block(*table._index_handles[0])
    assert len(first.data) >= BLOCK_SIZE and len(first.data) < BLOCK_SIZE + 1100


def test_writer_rejects_unsorted_keys():
    writer = TableWriter(io.BytesIO())
    writer.add(b"b", b"")
    with pytest.raises(InvalidArgumentError):
        writer.add(b"a", b"")
    with pytest.raises(InvalidArgumentError):
        writer.add(b"b", b"")


def test_truncation_at_every_length_is_data_loss():
    data = _write([(b"", b"h"), (b"a", b"1"), (b"b", b"22")])
    for length in range(len(data)):
        with pytest.raises(DataLossError, match=r"t\.index"):
            list(Table("t.index", data[:length]).items())


def test_single_byte_flips_are_detected():
    items = [(b"", b"h")] + [(b"key%03d" % i, b"v" * (i % 7)) for i in range(40)]
    data = _write(items)
    for position in range(len(data)):
        damaged = bytearray(data)
        damaged[position] ^= 0x01
        try:
            result = list(Table("t", bytes(damaged)).items())
        except DataLossError as error:
            assert "t at offset" in str(error)
        else:  # only the footer's zero padding may change without damage being seen
            assert result == items and len(data) - 48 <= position < len(data) - 8


def test_snappy_block_is_unimplemented():
    data = bytearray(_write([(b"a", b"1")]))
    block_length = data.index(b"\x00\x00\x00\x00\x01\x00\x00\x00") + 8
    data[block_length] = 1  # compression type of data block 0
    data[block_length + 1:block_length + 5] = crc.mask(crc.extend(crc.crc32c(bytes(data[:block_length])), b"\x01")
                                                       ).to_bytes(4, "little")
    with pytest.raises(UnimplementedError, match="snappy"):
        list(Table("t", bytes(data)).items())


def test_lookups_agree_before_and_after_a_block_is_parsed():
    items = [(b"key%05d" % i + b"\xff" * (i % 3), b"v" * (i % 200)) for i in range(3000)]
    table = Table("t", _write(items))
    cold = [table.get(key) for key, _ in items[::7]]  # restart-point search, nothing cached
    assert table.keys() == [key for key, _ in items]  # parses and caches every block
    assert [table.get(key) for key, _ in items[::7]] == cold == [value for _, value in items[::7]]
    assert table.get(b"key") is None and table.get(b"key00001\x00") is None and table.get(b"zzz") is None


def test_keys_out_of_order_inside_a_block_are_data_loss():
    import struct

    from graph.errors import DataLossError
    from graph.base import crc
    data = bytearray(_write([(b"a1", b"x"), (b"a2", b"y")]))
    offset, length = Table("t", bytes(data))._index_handles[0]
    data[data.index(b"a1") + 1] = ord("3")  # the first key becomes a3 > a2
    checksum = crc.mask(crc.extend(crc.crc32c(bytes(data[offset:offset + length])), b"\x00"))
    data[offset + length + 1:offset + length + 5] = struct.pack("<I", checksum)
    table = Table("t", bytes(data))
    with pytest.raises(DataLossError, match="keys out of order"):
        table.keys()


class _RangedSource:
    """A table file served by byte ranges (Table's ``source``), recording each request."""

    def __init__(self, data: bytes):
        self.data, self.size, self.requests = data, len(data), []

    def read(self, offset: int, length: int) -> bytes:
        self.requests.append((offset, length))
        return self.data[offset:offset + length]


def test_a_source_is_read_by_byte_ranges_block_by_block():
    items = [(b"", b"header")] + [(b"k%04d" % i, bytes([i % 251]) * 3000) for i in range(400)]
    data = _write(items)
    whole = Table("t", data)
    source = _RangedSource(data)
    table = Table("t", source=source)
    footer = (len(data) - 48, 48)
    metaindex_start = table.metaindex_handle[0]  # metaindex, index and their trailers: one request
    assert source.requests == [footer, (metaindex_start, footer[0] - metaindex_start)]
    assert table.size == len(data) and table.num_blocks == whole.num_blocks >= 4
    source.requests.clear()
    assert table.get(b"k0300") == whole.get(b"k0300") and table.get(b"k0300x") is None
    block = next(h for h, key in zip(whole._index_handles, whole._index_keys) if key >= b"k0300")
    assert source.requests == [(block[0], block[1] + 5)]  # the block holding the key, with its trailer
    assert table.get(b"k0301") == whole.get(b"k0301") and len(source.requests) == 1  # the same block, kept
    assert table.get(b"") == b"header" and len(source.requests) == 2 and len(table._blocks) == 1  # one kept
    assert list(table.items()) == items
    assert sum(length for _, length in source.requests) < 2 * len(data)


def test_damage_read_by_ranges_is_data_loss():
    data = bytearray(_write([(b"", b"h")] + [(b"k%04d" % i, b"v" * 2000) for i in range(300)]))
    data[10] ^= 0x01  # inside data block 0
    table = Table("t.remote", source=_RangedSource(bytes(data)))  # footer and index are intact
    assert table.get(b"k0299") == b"v" * 2000
    with pytest.raises(DataLossError, match=r"t\.remote at offset 0: block checksum mismatch"):
        table.get(b"")
    with pytest.raises(DataLossError, match="bad magic"):
        Table("t", source=_RangedSource(bytes(data[:-1])))
