"""The hooks that write: CheckpointSaverHook (with CheckpointSaverListener) and SummarySaverHook.

CheckpointSaverHook, as TF's: when the session is created it writes ``graph.pbtxt`` and the graph and
meta graph into the events file, and saves a checkpoint of the current step (``model.ckpt-<step>``);
then every ``save_steps`` steps or ``save_secs`` seconds, and at the end unless the last step was just
saved.  The Saver (the Scaffold's, or the SAVERS collection's) keeps the newest ``max_to_keep`` and
writes the ``checkpoint`` state file.
"""

from __future__ import annotations

import os

from graph.core import graph as graph_lib
from graph.core.graph_keys import GraphKeys
from graph.platform import file_io
from graph.platform import tf_logging as logging
from graph.proto import text_format
from graph.proto.summary import SessionLog
from graph.summary.writer import FileWriterCache
from saver.loops.basic_hooks import SecondOrStepTimer, require_global_step_read
from saver.loops.session_run_hook import SessionRunArgs, SessionRunHook
from saver.meta_graph import export_meta_graph

__all__ = ["CheckpointSaverListener", "CheckpointSaverHook", "SummarySaverHook", "write_graph_text"]


def write_graph_text(graph_def, directory: str, name: str = "graph.pbtxt") -> str:
    """Writes ``graph_def`` in text format to ``directory/name`` (atomically), as tf.train.write_graph does."""
    path = os.path.join(directory, name)
    file_io.makedirs(directory)
    file_io.write_bytes(path, text_format.to_text(graph_def).encode("utf-8"))
    return path


class CheckpointSaverListener:
    """Callbacks around each checkpoint a CheckpointSaverHook saves; ``after_save`` returning True stops training."""

    def begin(self) -> None:
        """Called once before the session is created."""

    def before_save(self, session, global_step_value: int) -> None:
        """Called before each save."""

    def after_save(self, session, global_step_value: int):
        """Called after each save; return True to request a stop."""

    def end(self, session, global_step_value: int) -> None:
        """Called at the end of the session."""


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints every N steps or seconds, at session creation and at the end."""

    def __init__(self, checkpoint_dir: str, save_secs: float | None = None, save_steps: int | None = None,
                 saver=None, checkpoint_basename: str = "model.ckpt", scaffold=None, listeners=None,
                 save_graph_def: bool = True):
        """Raises ValueError for both a saver and a scaffold, or for neither or both of save_secs/save_steps."""
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1
        self._save_graph_def = save_graph_def

    def _set_steps_per_run(self, steps_per_run: int) -> None:
        # TF's private hook for a train op that advances the global step by more than one per run
        self._steps_per_run = steps_per_run

    def begin(self) -> None:
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = require_global_step_read("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord) -> None:
        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            # Written now, not in begin: other hooks may still add to the graph in their begin.
            graph = graph_lib.get_default_graph()
            graph_def = graph.as_graph_def(add_shapes=True)
            write_graph_text(graph_def, self._checkpoint_dir)
            saver = self._get_saver()
            meta_graph_def = export_meta_graph(graph_def=graph_def, graph=graph,
                                               saver_def=saver.saver_def if saver else None)
            self._summary_writer.add_graph(graph)
            self._summary_writer.add_meta_graph(meta_graph_def)
        self._save(session, global_step)  # the state at step ``global_step``
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values) -> None:
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)  # the step after the train op
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session) -> None:
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step) -> bool:
        """Saves a checkpoint; returns whether a listener asked to stop."""
        logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(SessionLog(status=SessionLog.CHECKPOINT,
                                                        checkpoint_path=self._save_path), step)
        logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info(f"A CheckpointSaverListener requested that training be stopped. listener: {listener}")
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = graph_lib.get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver to the collection or "
                               "provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which one to "
                               "use by passing it to the constructor.")
        self._saver = savers[0]
        return self._saver


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every N steps or seconds and writes its output to the events file."""

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None, output_dir=None,
                 summary_writer=None, scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = require_global_step_read("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values) -> None:
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None) -> None:
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]
