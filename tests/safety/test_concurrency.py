"""Concurrency: two processes saving into one directory, readers opening checkpoints as they change.

* Two forked processes save different prefixes (``a-N``, ``b-N``) into one directory at once while
  the parent reads the shared ``checkpoint`` state file and the checkpoint it names, as fast as it can:
  the state file always parses (never torn: it is renamed into place), and the checkpoint it names
  reads back whole with the values of one save (or is already gone: NotFoundError, never DataLoss).
* A process re-saves one prefix (no global_step) over and over while the parent opens it and reads
  every tensor: each read sees one save's values for every tensor, or no checkpoint; never a mix,
  never a checksum error.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time

import pytest

from _model import Model, values_equal
from graph.errors import DataLossError, NotFoundError
from saver.storage import state as state_lib
from saver.storage.reader import load_checkpoint

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
SECONDS = float(os.environ.get("SAFETY_CONCURRENCY_SECONDS", "3"))


def _fork_saver(model: Model, directory: str, name: str, first_step: int, seconds: float,
                global_step: bool = True) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        logging.disable(logging.CRITICAL)
        stop = time.time() + seconds
        step = first_step
        while time.time() < stop:
            model.set_step(step)
            model.save(os.path.join(directory, name), step if global_step else None)
            step += 1
        code = 0
    except BaseException:  # noqa: BLE001
        import traceback
        traceback.print_exc()
    finally:
        os._exit(code)


def _alive(pids: list[int]) -> bool:
    running = False
    for pid in list(pids):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            pids.remove(pid)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "a saving process failed"
        else:
            running = True
    return running


def _read(prefix: str) -> dict:
    with load_checkpoint(prefix) as reader:
        return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_two_processes_save_into_one_directory(tmp_path, safety_report):
    directory = str(tmp_path)
    model = Model(max_to_keep=2)
    pids = [_fork_saver(model, directory, "a", 0, SECONDS), _fork_saver(model, directory, "b", 1000, SECONDS)]
    counts = {"state_reads": 0, "whole_reads": 0, "gone_meanwhile": 0, "no_state_yet": 0}
    state_file = os.path.join(directory, "checkpoint")
    logging.disable(logging.CRITICAL)
    try:
        while _alive(pids):
            if not os.path.exists(state_file):
                counts["no_state_yet"] += 1
                continue
            with open(state_file, "rb") as file:
                text = file.read().decode("utf-8")
            checkpoint_state = state_lib.CheckpointState.from_text(text)  # raises if torn
            assert checkpoint_state.model_checkpoint_path, text
            counts["state_reads"] += 1
            prefix = checkpoint_state.model_checkpoint_path
            step = int(re.search(r"-(\d+)$", prefix).group(1))
            try:
                values = _read(prefix)
            except NotFoundError:
                counts["gone_meanwhile"] += 1  # its writer's retention deleted it after we read the name
                continue
            assert values_equal(values, step), "%s read back wrong: %r" % (prefix, values)
            counts["whole_reads"] += 1
    finally:
        logging.disable(logging.NOTSET)
    names = os.listdir(directory)
    assert any(n.startswith("a-") for n in names) and any(n.startswith("b-") for n in names)
    for name in names:  # each process's retention kept its own newest two, whole
        if name.endswith(".index"):
            prefix = os.path.join(directory, name[:-len(".index")])
            assert values_equal(_read(prefix), int(re.search(r"-(\d+)$", prefix).group(1)))
    safety_report.setdefault("concurrency", {})["two_writers"] = counts
    assert counts["whole_reads"] > 0


def test_reader_while_the_same_prefix_is_replaced(tmp_path, safety_report):
    directory = str(tmp_path)
    model = Model(max_to_keep=2)
    model.set_step(0)
    prefix = model.save(os.path.join(directory, "m"), None)
    pids = [_fork_saver(model, directory, "m", 1, SECONDS, global_step=False)]
    counts = {"whole_reads": 0, "absent": 0}
    seen_steps = set()
    while _alive(pids):
        try:
            values = _read(prefix)
        except NotFoundError:
            counts["absent"] += 1  # between removing the old index and renaming the new one in
            continue
        except DataLossError as error:
            raise AssertionError("a reader saw a torn checkpoint: %s" % error) from error
        step = int(values["b"])
        assert values_equal(values, step), "tensors of different saves mixed: %r" % values
        seen_steps.add(step)
        counts["whole_reads"] += 1
    counts["distinct_saves_seen"] = len(seen_steps)
    safety_report.setdefault("concurrency", {})["reader_during_replace"] = counts
    assert counts["whole_reads"] > 0 and len(seen_steps) > 1
