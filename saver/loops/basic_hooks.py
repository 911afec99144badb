"""The hooks that watch a training loop: StopAtStepHook, LoggingTensorHook, StepCounterHook, NanTensorHook,
FinalOpsHook, FeedFnHook, GlobalStepWaiterHook, with the step/second timers they share.

Hooks that know the global step read it through one cached tensor (TF's ``global_step_read_op_cache``:
the variable's value if initialized, else its initial value, plus 0), fetched with every run; the value
is the step *before* the run, so a hook that must know the step after it runs that tensor again.
"""

from __future__ import annotations

import time

import numpy as np

from graph import errors
from graph.core import graph as graph_lib
from graph.ops import control_flow_ops, state_ops
from graph.platform import tf_logging as logging
from graph.proto.summary import Summary
from graph.summary.writer import FileWriterCache
from graph.train.global_step import GLOBAL_STEP_READ_KEY, get_global_step
from graph.variables import variable_collections
from graph.variables.variables import Variable
from saver.loops.session_run_hook import SessionRunArgs, SessionRunHook

__all__ = ["SecondOrStepTimer", "NeverTriggerTimer", "global_step_read_tensor", "increment_global_step",
           "require_global_step_read", "StopAtStepHook",
           "LoggingTensorHook", "StepCounterHook", "NanLossDuringTrainingError", "NanTensorHook", "FinalOpsHook",
           "FeedFnHook", "GlobalStepWaiterHook"]


class SecondOrStepTimer:
    """Triggers at most once every N seconds or once every N steps."""

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self) -> None:
        """Forgets the last trigger."""
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step: int) -> bool:
        """Whether the timer should trigger at ``step`` (always the first time, never twice for one step)."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_triggered_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_triggered_step + self._every_steps

    def update_last_triggered_step(self, step: int):
        """Records a trigger at ``step``; returns (seconds, steps) since the previous one, or (None, None)."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self):
        """The step of the last trigger, or None."""
        return self._last_triggered_step


class NeverTriggerTimer:
    """A timer that never triggers."""

    def should_trigger_for_step(self, step: int) -> bool:
        """Always False."""
        return False

    def update_last_triggered_step(self, step: int):
        """Records nothing."""
        return (None, None)

    def last_triggered_step(self):
        """Always None."""
        return None

    def reset(self) -> None:
        """Nothing to forget."""


def global_step_read_tensor(graph=None):
    """The graph's cached read of the global step (created on first use), or None without a global step."""
    graph = graph or graph_lib.get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(cached) == 1:
        return cached[0]
    if len(cached) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. There should be only one.")
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default() as g, g.name_scope(None), g.name_scope(step.op.name + "/"):
        if isinstance(step, Variable):  # readable before the variable is initialized: its initial value
            value = control_flow_ops.cond(variable_collections.is_variable_initialized(step), step.read_value,
                                          lambda: step.initial_value)
        else:
            value = step
        read = value + 0
        g.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


def increment_global_step(increment, graph=None):
    """``assign_add(global_step, increment)`` run after the cached read (TF's ``_increment_global_step``).

    Raises:
        ValueError: if the graph has no global step.
    """
    graph = graph or graph_lib.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by tf.train.get_or_create_global_step before "
                         "calling increment.")
    read = global_step_read_tensor(graph)
    with graph.as_default() as g, g.name_scope(None), g.name_scope(step.op.name + "/"):
        with g.control_dependencies([read]):  # the read sees the step before this increment
            return state_ops.assign_add(step, increment)


def require_global_step_read(hook: str):
    """The global step read tensor, or RuntimeError naming ``hook``, which needs one."""
    step = global_step_read_tensor()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook}.")
    return step


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps`` past its value at start)."""

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self) -> None:
        self._global_step_tensor = require_global_step_read("StopAtStepHook")

    def after_create_session(self, session, coord) -> None:
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values) -> None:
        if run_values.results + 1 >= self._last_step:
            # The fetched step predates the run: read it again to know whether this run reached the last step.
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


def _as_graph_element(obj):
    graph = graph_lib.get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", None) is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs (at least 2).")


class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors every N steps or seconds (and/or at the end), as ``tag = value, ...``."""

    def __init__(self, tensors, every_n_iter: int | None = None, every_n_secs: float | None = None,
                 at_end: bool = False, formatter=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = NeverTriggerTimer() if only_at_end else SecondOrStepTimer(every_secs=every_n_secs,
                                                                                every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(tensor) for tag, tensor in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, values: dict) -> None:
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        try:
            if self._formatter:
                logging.info(self._formatter(values))
            else:
                stats = ", ".join(f"{tag} = {values[tag]}" for tag in self._tag_order)
                if elapsed_secs is not None:
                    logging.info("%s (%.3f sec)", stats, elapsed_secs)
                else:
                    logging.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values) -> None:
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session) -> None:
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StepCounterHook(SessionRunHook):
    """Logs (and writes as the ``global_step/sec`` summary) the training speed every N steps or seconds."""

    def __init__(self, every_n_steps: int | None = 100, every_n_secs: float | None = None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1

    def _set_steps_per_run(self, steps_per_run: int) -> None:
        # TF's private hook for a train op that advances the global step by more than one per run
        self._steps_per_run = steps_per_run

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = require_global_step_read("StepCounterHook")
        self._summary_tag = get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps: int, elapsed_time: float, global_step: int) -> None:
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            summary = Summary(value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values) -> None:
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            logging.log_first_n(
                logging.WARN, "It seems that global step (tf.train.get_global_step) has not been increased. Current "
                "value (could be stable): %s vs previous value: %s. You could increase the global step by passing "
                "tf.train.get_global_step() to Optimizer.apply_gradients or Optimizer.minimize.", 5,
                stale_global_step, self._last_global_step)
        self._last_global_step = stale_global_step


class NanLossDuringTrainingError(RuntimeError):
    """Raised by NanTensorHook when the loss is NaN."""

    def __str__(self) -> str:
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (NanLossDuringTrainingError) or requests a stop when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss: bool = True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values) -> None:
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(message)
                raise NanLossDuringTrainingError
            logging.warning(message)
            run_context.request_stop()


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are in ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        """The values of the final ops (None before the session ended)."""
        return self._final_ops_values

    def end(self, session) -> None:
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)
            except (errors.OutOfRangeError, StopIteration):
                # TF's warning: a final op that reads input again (a metric's value_op) is a user bug
                logging.warning(
                    "An OutOfRangeError or StopIteration exception is raised by the code in FinalOpsHook. This "
                    "typically means the Ops running by the FinalOpsHook have a dependency back to some input "
                    "source, which should not happen. For example, for metrics in tf.estimator.Estimator, all "
                    "metrics functions return two Ops: `value_op` and  `update_op`. Estimator.evaluate calls the "
                    "`update_op` for each batch of the data in input source and, once it is exhausted, it call the "
                    "`value_op` to get the metric values. The `value_op` here should have dependency back to "
                    "variables reading only, rather than reading another batch from input. Otherwise, the "
                    "`value_op`, executed by `FinalOpsHook`, triggers another data reading, which ends "
                    "OutOfRangeError/StopIteration. Please fix that.")
                raise


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s feeds to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first run until the global step reaches ``wait_until_step`` (a worker waiting for the chief)."""

    def __init__(self, wait_until_step: int):
        self._wait_until_step = wait_until_step

    def begin(self) -> None:
        self._worker_is_started = False
        self._global_step_tensor = require_global_step_read("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started or self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        last_logged = None
        while True:
            current = run_context.session.run(self._global_step_tensor)
            if current >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current != last_logged:
                logging.info("Waiting for global step %d before starting training; now %d.",
                             self._wait_until_step, current)
                last_logged = current
            time.sleep(0.5)
