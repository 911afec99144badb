"""saver/format/bundle_stream.py: tensors read, copied, compared and exported chunk by chunk, memory bounded."""

import tracemalloc

import numpy as np
import pytest

from graph.errors import DataLossError
from saver.cli import main
from saver.cli.diff import compare_tensors, compare_values
from saver.format.bundle import write_checkpoint
from saver.format.bundle_files import CHUNK_SIZE
from saver.format.bundle_reader import BundleReader
from saver.format.bundle_stream import StreamedArray, element_chunks, raw_chunks, stored_record, streamable
from saver.format.bundle_writer import BundleWriter
from saver.storage import export
from saver.storage.reader import load_checkpoint

BIG = 6 * CHUNK_SIZE // 4 + 3  # float32 elements: six chunks and a bit (24 MiB)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A checkpoint with one tensor of several chunks and small ones of other dtypes."""
    prefix = str(tmp_path_factory.mktemp("stream") / "m")
    rng = np.random.default_rng(0)
    values = {"big": rng.standard_normal(BIG, dtype=np.float32), "half": np.arange(7, dtype=np.float16),
              "empty": np.zeros((0, 3), np.int64), "text": np.array([b"x", b"yz"], dtype=object)}
    write_checkpoint(prefix, values)
    return prefix, values


def _peak(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_element_chunks_give_the_values(checkpoint):
    prefix, values = checkpoint
    with BundleReader(prefix) as reader:
        chunks = list(element_chunks(reader, "big", 1 << 20))
        assert [c.size for c in chunks] == [1 << 20] * 6 + [3]
        assert np.array_equal(np.concatenate(chunks), values["big"])
        assert list(element_chunks(reader, "empty", 10)) == []
        assert streamable(reader, "big") and not streamable(reader, "text")


def test_damaged_bytes_fail_after_the_last_chunk(checkpoint, tmp_path):
    prefix, values = checkpoint
    damaged = str(tmp_path / "d")
    write_checkpoint(damaged, {"big": values["big"]})
    with open(damaged + ".data-00000-of-00001", "r+b") as file:
        file.seek(5 * CHUNK_SIZE)
        byte = file.read(1)
        file.seek(5 * CHUNK_SIZE)
        file.write(bytes([byte[0] ^ 1]))
    with BundleReader(damaged) as reader:
        chunks = element_chunks(reader, "big", CHUNK_SIZE // 4)
        for _ in range(6):
            next(chunks)
        with pytest.raises(DataLossError, match="Checksum does not match for key big"):
            next(chunks)
        with BundleWriter(str(tmp_path / "copy")) as writer, pytest.raises(DataLossError, match="Copying big"):
            writer.add_stream("big", stored_record(reader, "big"), raw_chunks(reader, "big"))


def test_byte_copies_are_identical_and_bounded(checkpoint, tmp_path):
    prefix, values = checkpoint
    copy = str(tmp_path / "copy")
    with BundleReader(prefix) as reader:
        def run():
            with BundleWriter(copy) as writer:
                writer.add_stream("renamed", stored_record(reader, "big"), raw_chunks(reader, "big"))
        peak = _peak(run)
    assert peak < 2 * CHUNK_SIZE < values["big"].nbytes / 3
    with open(copy + ".data-00000-of-00001", "rb") as file:
        assert file.read() == values["big"].tobytes()
    with BundleReader(copy) as reader:
        assert reader.lookup_entry("renamed").crc32c == BundleReader(prefix).lookup_entry("big").crc32c


def test_cli_rename_diff_export_stream(checkpoint, tmp_path, capsys):
    prefix, values = checkpoint
    renamed = str(tmp_path / "r")
    peak = _peak(lambda: main(["rename", prefix, "--map", "big=w", "-o", renamed]))
    assert peak < 3 * CHUNK_SIZE
    with load_checkpoint(renamed) as reader:
        assert np.array_equal(reader.get_tensor("w"), values["big"]) and reader.get_tensor("text").tolist() == [b"x", b"yz"]
    other = str(tmp_path / "o")
    changed = values["big"].copy()
    changed[[3, BIG - 1]] += 1.0
    write_checkpoint(other, {**values, "big": changed})
    with load_checkpoint(prefix) as a, load_checkpoint(other) as b:
        peak = _peak(lambda: compare_tensors(a, b, "big"))
        assert compare_tensors(a, b, "big") == compare_values(values["big"], changed) == \
            f"2 of {BIG} elements differ, max |a-b| = 1"
        assert compare_tensors(a, b, "half") is None
        assert compare_tensors(a, b, "big", atol=1.5) is None
    assert peak < 3 * CHUNK_SIZE
    capsys.readouterr()
    for fmt in ("npz", "safetensors"):
        path = str(tmp_path / f"e.{fmt}")
        peak = _peak(lambda: export.export_checkpoint(prefix, path))
        assert peak < 3 * CHUNK_SIZE, fmt
        got = {t.key: t.value for t in export.read_tensors(path)}
        assert np.array_equal(got["big"], values["big"]) and got["half"].dtype == np.float16
        assert got["text"].tolist() == [b"x", b"yz"] and got["empty"].shape == (0, 3)


def test_streamed_array_reads_whole_when_asked(checkpoint):
    prefix, values = checkpoint
    with BundleReader(prefix) as reader:
        streamed = StreamedArray(reader, "half")
        assert streamed.shape == (7,) and streamed.dtype == np.float16 and streamed.nbytes == 14
        assert np.array_equal(np.asarray(streamed), values["half"])
        assert np.asarray(streamed.byte_view()).tobytes() == values["half"].tobytes()
