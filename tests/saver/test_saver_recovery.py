"""Saver.recover_last_checkpoints after a restart: the same checkpoints deleted, the same files on disk as TF."""

import os

import numpy as np
import pytest

import graph.compat.v1 as ours
from saver.storage import state as state_lib


def _files(directory):
    return sorted(os.listdir(directory))


def _run(tf, directory, steps, max_to_keep, recover):
    """One process's life: a new graph and Saver, optionally recovering the state file's list, saving `steps`."""
    with tf.Graph().as_default():
        v = tf.Variable(np.float32(0), name="v")
        saver = tf.train.Saver(max_to_keep=max_to_keep)
        with tf.Session() as sess:
            sess.run(v.initializer)
            if recover:
                ckpt = tf.train.get_checkpoint_state(directory)
                saver.recover_last_checkpoints(ckpt.all_model_checkpoint_paths)
            for step in steps:
                sess.run(v.assign(float(step)))
                saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=step)
        return saver.last_checkpoints


@pytest.mark.tf
@pytest.mark.parametrize("recover", [True, False])
def test_restart_deletes_the_same_checkpoints_as_tensorflow(tf_module, tmp_path, recover):
    seen = {}
    for name, tf in (("tf", tf_module), ("ours", ours)):
        directory = str(tmp_path / name)
        first = _run(tf, directory, range(0, 3), 2, recover=False)
        after_first = _files(directory)
        last = _run(tf, directory, range(3, 5), 2, recover=recover)
        seen[name] = ([os.path.basename(p) for p in first], after_first, [os.path.basename(p) for p in last],
                      _files(directory), open(os.path.join(directory, "checkpoint")).read().replace(directory, "<d>"))
    assert seen["ours"] == seen["tf"]
    ours_files = seen["ours"][3]
    # Recovering lets the second life delete model.ckpt-1 and -2; without it they stay forever.
    assert ("model.ckpt-1.index" in ours_files) == (not recover)


@pytest.mark.tf
def test_recovered_list_and_state_file_like_tensorflow(tf_module, tmp_path):
    seen = {}
    for name, tf in (("tf", tf_module), ("ours", ours)):
        directory = str(tmp_path / name)
        _run(tf, directory, range(0, 4), 3, recover=False)
        os.remove(os.path.join(directory, "model.ckpt-2.index"))  # a lost checkpoint is not recovered
        with tf.Graph().as_default():
            tf.Variable(np.float32(0), name="v")
            saver = tf.train.Saver(max_to_keep=3)
            ckpt = state_lib.get_checkpoint_state(directory)
            saver.recover_last_checkpoints(ckpt.all_model_checkpoint_paths)
            seen[name] = [os.path.basename(p) for p in saver.last_checkpoints]
    assert seen["ours"] == seen["tf"] == ["model.ckpt-1", "model.ckpt-3"]


def test_recovered_paths_outside_the_run_are_kept(tmp_path):
    directory = str(tmp_path / "run")
    _run(ours, directory, range(0, 2), 1, recover=False)
    # someone else's checkpoint in the same directory, listed in the state file
    with ours.Graph().as_default():
        v = ours.Variable(np.float32(7), name="v")
        with ours.Session() as sess:
            sess.run(v.initializer)
            ours.train.Saver().save(sess, os.path.join(directory, "keep.ckpt"), write_state=False)
    ckpt = state_lib.get_checkpoint_state(directory)
    paths = [os.path.join(directory, "keep.ckpt")] + list(ckpt.all_model_checkpoint_paths)
    with ours.Graph().as_default():
        v = ours.Variable(np.float32(0), name="v")
        saver = ours.train.Saver(max_to_keep=1)
        with ours.Session() as sess:
            sess.run(v.initializer)
            saver.recover_last_checkpoints(paths)
            for step in range(2, 6):
                saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=step)
    files = _files(directory)
    assert "keep.ckpt.index" in files and "model.ckpt-1.index" not in files and "model.ckpt-5.index" in files
