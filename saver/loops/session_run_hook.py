"""SessionRunHook: the callbacks a MonitoredSession makes around session creation and every run.

A hook's ``before_run`` may return SessionRunArgs: more fetches (their values come back to ``after_run``
in SessionRunValues.results), feeds and options merged into the caller's run.  ``run_context.request_stop()``
makes the monitored session's ``should_stop()`` true after the run.
"""

from __future__ import annotations

import collections

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"]


class SessionRunHook:
    """Hook to extend calls to MonitoredSession.run(); every method does nothing by default."""

    def begin(self) -> None:
        """Called once before the session is created; the graph may still change here."""

    def after_create_session(self, session, coord) -> None:
        """Called when a (new) session is created, the graph finalized and variables initialized or restored."""

    def before_run(self, run_context):
        """Called before each run; may return SessionRunArgs to add fetches, feeds or options."""
        return None

    def after_run(self, run_context, run_values) -> None:
        """Called after each run with the values of the fetches ``before_run`` asked for."""

    def end(self, session) -> None:
        """Called at the end of the session (not after an error)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: ``fetches`` (any structure Session.run takes), ``feed_dict``, ``options``."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The run a hook is called for: the caller's arguments, the session, and stop requests."""

    def __init__(self, original_args: SessionRunArgs, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    original_args = property(lambda self: self._original_args, doc="The caller's SessionRunArgs.")
    session = property(lambda self: self._session, doc="The raw session (runs without hooks).")
    stop_requested = property(lambda self: self._stop_requested, doc="Whether a hook requested a stop.")

    def request_stop(self) -> None:
        """Asks the monitored session to stop after this run."""
        self._stop_requested = True


SessionRunValues = collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
SessionRunValues.__doc__ = "The values of a hook's fetches (``results``), the run options and metadata."
