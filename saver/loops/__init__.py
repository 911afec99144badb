"""Managed training loops: MonitoredTrainingSession, its session creators and hooks, Scaffold, SessionManager,
Supervisor.  They drive sessions and checkpoints, so they sit above the Saver.

* ``saver.loops.session_run_hook``: SessionRunHook and the run arguments, context and values hooks see.
* ``saver.loops.basic_hooks``: step timers and the hooks that only watch (stop, log, count steps, NaN, feeds).
* ``saver.loops.saving_hooks``: the hooks that write (CheckpointSaverHook with its listeners, SummarySaverHook).
* ``saver.loops.session_manager``: Scaffold and SessionManager (initialize, or restore the latest checkpoint).
* ``saver.loops.monitored_session``: session creators, MonitoredSession, SingularMonitoredSession and
  MonitoredTrainingSession.
* ``saver.loops.supervisor``: the older tf.train.Supervisor.
"""
