"""Paths from files are data, not commands: hostile ``checkpoint`` state files and moved directories.

* A state file naming paths outside its directory, ``..`` segments, absolute paths from another
  machine, NUL bytes, huge names: read exactly as TensorFlow reads them (relative paths joined with the
  directory, nothing normalized, a missing checkpoint gives None), and never a crash.
* Retention never deletes anything outside the run (a path this Saver wrote, or one in the same directory
  with the same name up to its numbers), even when a hostile state
  file is fed to ``recover_last_checkpoints`` (the TF1 idiom after a restart) or a V1 saver would glob.
* A checkpoint directory moved elsewhere still restores: by prefix always, through ``latest_checkpoint``
  when the state file holds relative paths (``save_relative_paths=True``), as in TensorFlow.
"""

from __future__ import annotations

import logging
import os
import shutil

import numpy as np
import pytest

from _model import Model, expected_values, values_equal
from graph.errors import NotFoundError, OpError
from saver.storage import state as state_lib
from saver.format.bundle import write_checkpoint
from saver.storage.reader import load_checkpoint


def _victim(directory: str) -> dict[str, bytes]:
    """Files a hostile state file points at: a real checkpoint and plain files; returns path -> bytes."""
    os.makedirs(directory, exist_ok=True)
    write_checkpoint(os.path.join(directory, "important"), {"w": np.arange(3, dtype=np.float32)})
    for name in ("important.meta", "notes.txt", "x.data-00000-of-00001", "x.index", "x.meta"):
        with open(os.path.join(directory, name), "wb") as file:
            file.write(b"precious " + name.encode())
    out = {}
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), "rb") as file:
            out[os.path.join(directory, name)] = file.read()
    return out


def _intact(files: dict[str, bytes]) -> None:
    for path, content in files.items():
        assert os.path.exists(path), "retention deleted %s, which this Saver never wrote" % path
        with open(path, "rb") as file:
            assert file.read() == content


def _write_state(directory: str, model_path: str, all_paths) -> None:
    lines = ['model_checkpoint_path: "%s"' % model_path] + ['all_model_checkpoint_paths: "%s"' % p for p in all_paths]
    with open(os.path.join(directory, "checkpoint"), "w") as file:
        file.write("\n".join(lines) + "\n")


# --------------------------------------------------------------------------- reading like TF


def test_relative_dotdot_and_absolute_paths_read_as_tensorflow(tmp_path):
    base = str(tmp_path)
    directory = os.path.join(base, "run")
    os.makedirs(directory)
    other = write_checkpoint(os.path.join(base, "other", "m-1"), {"v": np.float32(1)})
    _write_state(directory, "../other/m-1", ["../other/m-1", "/nonexistent/host/train/m-0"])
    checkpoint_state = state_lib.get_checkpoint_state(directory)
    # TF joins a relative path with the directory and normalizes nothing.
    assert checkpoint_state.model_checkpoint_path == os.path.join(directory, "../other/m-1")
    assert checkpoint_state.all_model_checkpoint_paths[1] == "/nonexistent/host/train/m-0"
    assert state_lib.latest_checkpoint(directory) == os.path.join(directory, "../other/m-1")
    with load_checkpoint(directory) as reader:
        assert os.path.normpath(reader.prefix) == os.path.normpath(other)
        assert reader.get_tensor("v") == np.float32(1)
    _write_state(directory, "/nonexistent/host/train/m-0", [])
    assert state_lib.latest_checkpoint(directory) is None  # TF: None (and an error logged)
    with pytest.raises((ValueError, NotFoundError)):
        load_checkpoint(directory)


@pytest.mark.parametrize("path", ["a\\000b", "x" * 5000, "/" * 3, ".", "..", "checkpoint", "sub/../../../../../etc/passwd",
                                  "\\xff\\xfe", "m-1\\nmodel_checkpoint_path: evil"])
def test_strange_paths_never_crash(tmp_path, path):
    directory = str(tmp_path)
    _write_state(directory, path, [path])
    logging.disable(logging.CRITICAL)
    try:
        try:
            latest = state_lib.latest_checkpoint(directory)
        except ValueError:
            latest = None
        assert latest is None or os.path.exists(latest + ".index") or os.path.exists(latest)
        try:
            with load_checkpoint(directory) as reader:
                reader.get_variable_to_shape_map()
        except (ValueError, OpError):
            pass
    finally:
        logging.disable(logging.NOTSET)


# --------------------------------------------------------------------------------- retention


def _recovering_saver_run(tmp_path, hostile_paths, **model_kwargs):
    directory = str(tmp_path / "run")
    os.makedirs(directory)
    model = Model(max_to_keep=1, **model_kwargs)
    # A restarted job: recover the list of checkpoints from the state file (TF1's idiom), which
    # here was written by someone else.
    _write_state(directory, hostile_paths[-1], hostile_paths)
    checkpoint_state = state_lib.get_checkpoint_state(directory)
    with model.graph.as_default():
        model.saver.recover_last_checkpoints(checkpoint_state.all_model_checkpoint_paths)
    prefixes = []
    for step in range(6):
        model.set_step(step)
        prefixes.append(model.save(os.path.join(directory, "m"), step))
    return directory, model, prefixes


def test_retention_never_deletes_what_it_did_not_write(tmp_path):
    victims = _victim(str(tmp_path / "victim"))
    hostile = [str(tmp_path / "victim" / "important"), "../victim/x", str(tmp_path / "victim" / "x")]
    directory, model, prefixes = _recovering_saver_run(tmp_path, hostile)
    _intact(victims)
    # Its own old checkpoints are still deleted (one per save, as TF); the recovered foreign paths
    # took places in the kept list, so they go a few saves later than without them.
    kept = [p for p in prefixes if os.path.exists(p + ".index")]
    assert prefixes[0] not in kept and kept == prefixes[-len(kept):] and len(kept) <= 3
    assert values_equal(model.restored_values(state_lib.latest_checkpoint(directory)), 5)


def test_v1_retention_never_globs_someone_elses_files(tmp_path):
    victims = _victim(str(tmp_path / "victim"))
    hostile = [str(tmp_path / "victim" / "*"), str(tmp_path / "victim" / "?????????")]
    directory, model, prefixes = _recovering_saver_run(tmp_path, hostile, write_version=1)
    _intact(victims)


def test_set_last_checkpoints_with_foreign_paths_is_not_a_delete_list(tmp_path):
    victims = _victim(str(tmp_path / "victim"))
    directory = str(tmp_path / "run")
    model = Model(max_to_keep=1)
    with model.graph.as_default():
        model.saver.set_last_checkpoints([str(tmp_path / "victim" / "x")])
        model.saver.set_last_checkpoints_with_time([(str(tmp_path / "victim" / "important"), 0.0),
                                                    (str(tmp_path / "victim" / "x"), 0.0)])
    for step in range(3):
        model.set_step(step)
        model.save(os.path.join(directory, "m"), step)
    _intact(victims)


def test_prefix_with_dotdot_segments_saves_and_restores(tmp_path):
    model = Model(max_to_keep=2)
    (tmp_path / "a" / "b").mkdir(parents=True)
    save_path = str(tmp_path / "a" / "b" / ".." / "m")
    for step in range(3):
        model.set_step(step)
        prefix = model.save(save_path, step)
    assert prefix == save_path + "-2"
    assert state_lib.latest_checkpoint(str(tmp_path / "a" / "b" / "..")) == prefix
    assert values_equal(model.restored_values(prefix), 2)
    assert not os.path.exists(save_path + "-0.index") and os.path.exists(save_path + "-1.index")


# ------------------------------------------------------------------------------ moved directory


@pytest.mark.parametrize("sharded", [False, True])
def test_moved_directory_restores(tmp_path, sharded):
    model = Model(sharded=sharded, save_relative_paths=True)
    first = str(tmp_path / "first")
    os.makedirs(first)  # a sharded save needs the parent directory (as in TF)
    for step in range(3):
        model.set_step(step)
        model.save(os.path.join(first, "m"), step)
    moved = str(tmp_path / "elsewhere" / "moved")
    os.makedirs(os.path.dirname(moved))
    shutil.move(first, moved)
    latest = state_lib.latest_checkpoint(moved)
    assert latest == os.path.join(moved, "m-2")
    assert values_equal(model.restored_values(latest), 2)
    with load_checkpoint(moved) as reader:
        assert np.array_equal(reader.get_tensor("a"), expected_values(2)["a"])


def test_moved_directory_with_absolute_paths_restores_by_prefix(tmp_path):
    model = Model()
    first = str(tmp_path / "first")
    for step in range(2):
        model.set_step(step)
        model.save(os.path.join(first, "m"), step)
    moved = str(tmp_path / "moved")
    shutil.move(first, moved)
    logging.disable(logging.CRITICAL)
    try:
        assert state_lib.latest_checkpoint(moved) is None  # absolute paths name the old place, as in TF
    finally:
        logging.disable(logging.NOTSET)
    assert values_equal(model.restored_values(os.path.join(moved, "m-1")), 1)  # the files hold no paths
