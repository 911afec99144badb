"""tf.train.CheckpointManager in graph mode: numbered saves, retention, the ``checkpoint`` state file.

As TensorFlow's checkpoint_management.CheckpointManager: ``save()`` bumps the Checkpoint's save_counter in
the default session, writes ``<directory>/<checkpoint_name>-<n>``, records every kept checkpoint with its
timestamp and ``last_preserved_timestamp`` in the state file, then deletes checkpoints beyond
``max_to_keep`` unless ``keep_checkpoint_every_n_hours`` preserves them.  A new manager on an existing
directory picks the kept checkpoints up from the state file.
"""

from __future__ import annotations

import collections
import logging
import os
import time

from graph.core.default_session import get_default_session
from graph.platform import file_io
from graph.variables.variables import Variable
from saver.storage import state as state_lib

__all__ = ["CheckpointManager"]

logger = logging.getLogger(__name__)


def _evaluate(value) -> int:
    """A step counter's value in the default session (a Python int passes through)."""
    if isinstance(value, int):
        return value
    session = get_default_session()
    if session is None:
        raise ValueError("CheckpointManager needs a default session to read the step counter in graph mode "
                         "(run inside `with tf.Session() as sess:`)")
    return int(session.run(value))


def _delete_file_if_exists(pattern: str) -> None:
    for name in file_io.glob(pattern):
        file_io.remove(name)


class CheckpointManager:
    """Manages multiple checkpoints by keeping some and deleting unneeded ones (tf.train.CheckpointManager)."""

    def __init__(self, checkpoint, directory, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter=None, checkpoint_interval: int | None = None, init_fn=None,
                 last_checkpoint_step: int | None = None):
        """Recovers kept checkpoints from `directory`'s state file, if any.

        Raises:
          ValueError: for a non-positive `max_to_keep`, or `checkpoint_interval` without `step_counter`.
        """
        self._checkpoint = checkpoint
        self._save_counter_assign = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got %d." % (max_to_keep,))
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        directory = os.fspath(directory)
        self._directory = directory
        self._checkpoint_prefix = os.path.join(directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
            self._last_checkpoint_step = last_checkpoint_step
            self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        recovered = state_lib.get_checkpoint_state(directory)
        current_clock = time.time()
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        if recovered is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = current_clock - 1.0
            return
        self._latest_checkpoint = recovered.model_checkpoint_path
        self._last_preserved_timestamp = recovered.last_preserved_timestamp
        if current_clock < self._last_preserved_timestamp:
            logger.warning("time.time() returned a value %f seconds behind the last preserved checkpoint "
                           "timestamp.", self._last_preserved_timestamp - current_clock)
            self._last_preserved_timestamp = current_clock
        paths = recovered.all_model_checkpoint_paths
        timestamps = recovered.all_model_checkpoint_timestamps or [self._last_preserved_timestamp] * len(paths)
        for filename, timestamp in zip(paths, timestamps):
            timestamp = min(timestamp, current_clock)
            if timestamp > self._last_preserved_timestamp:
                self._maybe_delete[filename] = timestamp

    @property
    def directory(self) -> str:
        """The directory checkpoints are saved in."""
        return self._directory

    @property
    def checkpoint_interval(self) -> int | None:
        """Minimum steps between two saves (with step_counter), or None."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoints, oldest first (preserved ones excluded)."""
        return list(self._maybe_delete.keys())

    @property
    def checkpoint(self):
        """The managed tf.train.Checkpoint."""
        return self._checkpoint

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            filename, timestamp = self._maybe_delete.popitem(last=False)
            if self._keep_checkpoint_every_n_hours and \
                    timestamp - self._keep_checkpoint_every_n_hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = timestamp
                continue
            _delete_file_if_exists(filename + ".index")
            _delete_file_if_exists(filename + ".data-?????-of-?????")

    def _record_state(self) -> None:
        filenames, timestamps = zip(*self._maybe_delete.items())
        state_lib.update_checkpoint_state_internal(
            self._directory, model_checkpoint_path=self.latest_checkpoint, all_model_checkpoint_paths=filenames,
            all_model_checkpoint_timestamps=timestamps, last_preserved_timestamp=self._last_preserved_timestamp,
            save_relative_paths=True)

    def save(self, checkpoint_number=None, check_interval: bool = True) -> str | None:
        """Saves a numbered checkpoint in the default session; returns its prefix (None if the interval
        since the last save is too short).

        Args:
          checkpoint_number: the number in the file name (an int, or a variable/tensor such as the global
            step); default: the Checkpoint's save_counter after its increment.
          check_interval: honour checkpoint_interval.
        """
        if self._checkpoint_interval is not None:
            current_step = _evaluate(self._step_counter)
            if self._last_checkpoint_step is not None:
                if current_step == self._last_checkpoint_step:
                    return None
                if check_interval and current_step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = current_step
        session = get_default_session()
        if session is None:
            raise ValueError("CheckpointManager.save() runs in the default session in graph mode: call it inside "
                             "`with tf.Session() as sess:` (or `with sess.as_default():`)")
        newly_created = self._checkpoint._save_counter is None
        save_counter = self._checkpoint.save_counter
        if newly_created:
            session.run(save_counter.initializer)
        if self._save_counter_assign is None:
            self._save_counter_assign = save_counter.assign_add(1, read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = save_counter
        if not isinstance(checkpoint_number, int):
            checkpoint_number = int(session.run(checkpoint_number if not isinstance(checkpoint_number, Variable)
                                                else checkpoint_number.value()))
        prefix = "%s-%d" % (self._checkpoint_prefix, checkpoint_number)
        save_path = self._checkpoint.write(prefix, session=session)
        timestamp = time.time()
        if save_path in self._maybe_delete:
            del self._maybe_delete[save_path]
        self._maybe_delete[save_path] = timestamp
        self._latest_checkpoint = save_path
        self._record_state()
        self._sweep()
        self._record_state()  # again, as TF: the sweep may have changed what is kept
        return save_path

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint (returning its path; run the status's ops in a session), else runs
        init_fn and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _evaluate(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
            logger.info("Customized initialization is done through the passed `init_fn`.")
        return None
