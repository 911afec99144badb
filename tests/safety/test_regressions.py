"""Deterministic regression tests for what the crash, concurrency and fuzz tests found.

1. A save over an existing prefix renamed the data before the index, and the sharded merge wrote the
   index in place: a crash in between left a torn checkpoint (old index over new data, or a
   half-written index) that latest_checkpoint named.  Now: both files complete under temp names, the
   old index removed, data renamed, index renamed (bundle_writer.py, merge.py).
2. A reader opening a checkpoint while it was being replaced read the old index with the new data
   (checksum errors); one whose checkpoint was deleted by retention after it opened lost it.  Now:
   data files are opened with the index and the index re-checked (bundle_reader.py).
3. Hostile headers: a V1 tensor of unknown dtype raised TypeError, ranks 65..254 raised numpy's
   ValueError (bundle_reader.py, v1.py).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from graph.errors import DataLossError, NotFoundError, UnimplementedError
from saver.format import bundle_reader
from saver.format.bundle import BundleReader, merge_bundles, write_checkpoint


def _values(prefix):
    with BundleReader(prefix) as reader:
        return {key: reader.lookup(key) for key in reader.keys()}


class _Stop(Exception):
    pass


def _crash_at_replace(monkeypatch, nth: int, target_suffix: str):
    """Makes the nth os.replace onto a name ending with target_suffix raise (a crash there)."""
    real = os.replace
    seen = {"n": 0}

    def replace(src, dst, *args, **kwargs):
        if str(dst).endswith(target_suffix):
            seen["n"] += 1
            if seen["n"] == nth:
                raise _Stop(dst)
        return real(src, dst, *args, **kwargs)
    monkeypatch.setattr(os, "replace", replace)


def test_resave_interrupted_at_the_index_rename_never_leaves_a_torn_checkpoint(tmp_path, monkeypatch):
    prefix = write_checkpoint(str(tmp_path / "m"), {"v": np.arange(4, dtype=np.float32)})
    _crash_at_replace(monkeypatch, 1, ".index")
    with pytest.raises(_Stop):
        write_checkpoint(prefix, {"v": np.arange(4, dtype=np.float32) + 1})
    monkeypatch.undo()
    # The new data is in place, the new index is not: the checkpoint must be absent, not torn.
    with pytest.raises(NotFoundError):
        _values(prefix)


def test_merge_interrupted_at_the_index_never_leaves_a_torn_index(tmp_path, monkeypatch):
    parts = [write_checkpoint(str(tmp_path / "m_temp" / ("part-%05d-of-00002" % k)),
                              {"v%d" % k: np.float32(k)}) for k in range(2)]
    merged = str(tmp_path / "m")
    write_checkpoint(merged, {"old": np.float32(7)})  # an older checkpoint of the same prefix
    _crash_at_replace(monkeypatch, 1, "m.index")
    with pytest.raises(_Stop):
        merge_bundles(parts, merged)
    monkeypatch.undo()
    with pytest.raises(NotFoundError):  # absent, never the old index over the new data files
        _values(merged)
    assert not [n for n in os.listdir(tmp_path) if "tempstate" in n]  # the temp index was removed


def test_reader_opens_again_when_the_checkpoint_is_replaced_while_opening(tmp_path, monkeypatch):
    prefix = write_checkpoint(str(tmp_path / "m"), {"v": np.arange(3, dtype=np.int64)})
    real = BundleReader._open_data_files
    calls = {"n": 0}

    def open_data_files(self):
        calls["n"] += 1
        if calls["n"] == 1:  # another process replaces the checkpoint right now
            write_checkpoint(prefix, {"v": np.arange(3, dtype=np.int64) * 10})
        return real(self)
    monkeypatch.setattr(BundleReader, "_open_data_files", open_data_files)
    with BundleReader(prefix) as reader:
        assert reader.lookup("v").tolist() == [0, 10, 20]
    assert calls["n"] == 2


def test_reader_keeps_a_checkpoint_deleted_after_opening(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "m"), {"v": np.arange(3, dtype=np.int64)})
    with BundleReader(prefix) as reader:
        for name in os.listdir(tmp_path):  # retention of another process deletes it
            os.remove(tmp_path / name)
        assert reader.lookup("v").tolist() == [0, 1, 2]


def test_eager_data_files_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(bundle_reader, "_MAX_EAGER_SHARDS", 1)
    prefix = write_checkpoint(str(tmp_path / "m"), {"v": np.float32(1)})
    with BundleReader(prefix) as reader:
        assert reader.lookup("v") == np.float32(1)


def test_v1_unknown_dtype_and_high_rank_are_library_errors(tmp_path):
    from _targets import Workspace, target_v1_meta
    from test_fuzz import _v1_meta
    ws = Workspace(str(tmp_path))
    with pytest.raises(DataLossError, match="unknown dtype"):
        target_v1_meta(ws, _v1_meta((2,), dtype=99))
    with pytest.raises(UnimplementedError, match="rank 300"):
        target_v1_meta(ws, _v1_meta((1,) * 300))
