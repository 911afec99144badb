"""saver/storage/retention.py: the recovered list as TF's, and which recovered paths retention may delete."""

import os

import numpy as np

from saver.format.bundle import write_checkpoint
from saver.storage import retention


def test_checkpoints_with_mtimes_keeps_existing_checkpoints_in_order(tmp_path):
    first = write_checkpoint(str(tmp_path / "m-3"), {"v": np.float32(1)})
    second = write_checkpoint(str(tmp_path / "m-1"), {"v": np.float32(2)})
    os.utime(first + ".index", (1000, 1000.7))
    recovered = retention.checkpoints_with_mtimes([first, str(tmp_path / "missing-2"), second])
    assert [path for path, _ in recovered] == [first, second]
    assert recovered[0][1] == 1000.0  # whole seconds, as TF's get_checkpoint_mtimes
    assert retention.checkpoints_with_mtimes([]) == []


def test_belongs_to_run(tmp_path):
    run = str(tmp_path / "run")
    written = [os.path.join(run, "model.ckpt-12")]
    belongs = lambda path: retention.belongs_to_run(path, written)  # noqa: E731
    assert belongs(os.path.join(run, "model.ckpt-12"))
    assert belongs(os.path.join(run, "model.ckpt-0"))  # a checkpoint from before the restart
    assert belongs(os.path.join(run, "sub", "..", "model.ckpt-3"))  # the same directory, spelled otherwise
    assert not belongs(os.path.join(run, "other.ckpt-0"))  # another name in the directory
    assert not belongs(os.path.join(run, "model.ckpt"))
    assert not belongs(os.path.join(str(tmp_path), "victim", "model.ckpt-0"))  # another directory
    assert not belongs(os.path.join(run, "..", "victim", "model.ckpt-0"))
    assert not belongs(os.path.join(run, "*"))
    assert not belongs(os.path.join(run, "model.ckpt-[0-9]"))
    assert not belongs("")
    assert not retention.belongs_to_run(os.path.join(run, "model.ckpt-0"), [])
    # V1 sharded prefixes carry '?' by design; their numbers still match
    v1 = [os.path.join(run, "m-4-?????-of-00002")]
    assert retention.belongs_to_run(os.path.join(run, "m-0-?????-of-00002"), v1)
    assert not retention.belongs_to_run(os.path.join(run, "m-?????-of-00002"), v1)
