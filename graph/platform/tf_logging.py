"""``tf.logging``: TensorFlow 1's logging functions over Python's ``tensorflow`` logger.

As in TensorFlow the logger is ``logging.getLogger('tensorflow')``; the first use gives it a stderr
handler in Python's basic format unless the root logger is already configured.  ``set_verbosity``
also sets the level of the emulator's own ``graph`` logger: in TensorFlow the one call governs
TensorFlow's own messages, which here come from ``graph``.
"""

from __future__ import annotations

import logging
import sys
import threading

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "get_logger", "log", "debug", "info", "warn", "warning",
           "error", "fatal", "vlog", "log_if", "log_every_n", "log_first_n", "TaskLevelStatusMessage", "flush",
           "get_verbosity", "set_verbosity"]

DEBUG, INFO, WARN, ERROR, FATAL = logging.DEBUG, logging.INFO, logging.WARN, logging.ERROR, logging.FATAL

_EMULATOR_LOGGER = "graph"
_logger: logging.Logger | None = None
_logger_lock = threading.Lock()
_counts_per_call_site: dict[tuple[str, int], int] = {}


def get_logger() -> logging.Logger:
    """The ``tensorflow`` logger, given a stderr handler on first use unless the root logger has handlers."""
    global _logger
    with _logger_lock:
        if _logger is None:
            logger = logging.getLogger("tensorflow")
            if not logging.getLogger().handlers:  # a configured root logger would print every line twice
                handler = logging.StreamHandler(sys.stderr)
                handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
        return _logger


# stacklevel=2 names the caller of these functions in records, as TF's findCaller override does.
def log(level: int, msg, *args, **kwargs) -> None:
    """Logs ``msg % args`` at ``level``."""
    get_logger().log(level, msg, *args, stacklevel=2, **kwargs)


def debug(msg, *args, **kwargs) -> None:
    """Logs at DEBUG."""
    get_logger().debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs) -> None:
    """Logs at INFO."""
    get_logger().info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs) -> None:
    """Logs at WARN."""
    get_logger().warning(msg, *args, stacklevel=2, **kwargs)


def warn(msg, *args, **kwargs) -> None:
    """Logs at WARN (TF1's older name)."""
    get_logger().warning(msg, *args, stacklevel=2, **kwargs)


def error(msg, *args, **kwargs) -> None:
    """Logs at ERROR."""
    get_logger().error(msg, *args, stacklevel=2, **kwargs)


def fatal(msg, *args, **kwargs) -> None:
    """Logs at FATAL (the program goes on, as in TensorFlow's Python logging)."""
    get_logger().fatal(msg, *args, stacklevel=2, **kwargs)


def vlog(level: int, msg, *args, **kwargs) -> None:
    """Logs at ``level`` (TF1's verbose-log spelling of ``log``)."""
    get_logger().log(level, msg, *args, stacklevel=2, **kwargs)


def log_if(level: int, msg, condition, *args) -> None:
    """Logs ``msg % args`` at ``level`` if ``condition`` holds."""
    if condition:
        get_logger().log(level, msg, *args, stacklevel=3)


def _next_count(depth: int = 3) -> int:
    """How many times the call site ``depth`` frames up came here before (0 the first time)."""
    frame = sys._getframe(depth - 1)
    site = (frame.f_code.co_filename, frame.f_lineno)
    _counts_per_call_site[site] = _counts_per_call_site.get(site, -1) + 1
    return _counts_per_call_site[site]


def log_every_n(level: int, msg, n: int, *args) -> None:
    """Logs on the 1st, (n+1)th, (2n+1)th ... call from the same line."""
    if not _next_count() % n:
        get_logger().log(level, msg, *args, stacklevel=2)


def log_first_n(level: int, msg, n: int, *args) -> None:
    """Logs on the first ``n`` calls from the same line only."""
    if _next_count() < n:
        get_logger().log(level, msg, *args, stacklevel=2)


def TaskLevelStatusMessage(msg) -> None:
    """Logs a task status message (at ERROR, as TensorFlow does)."""
    get_logger().error(msg, stacklevel=2)


def flush() -> None:
    """Not supported, as in TensorFlow (its tf.logging.flush raises too; Python's logging handlers flush themselves).

    Raises:
        NotImplementedError: always.
    """
    raise NotImplementedError("tf.logging.flush is not supported (TensorFlow's raises NotImplementedError too)")


def get_verbosity() -> int:
    """The effective level of the ``tensorflow`` logger."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v: int) -> None:
    """Sets the threshold of the ``tensorflow`` logger (and of the emulator's own ``graph`` logger)."""
    get_logger().setLevel(v)
    logging.getLogger(_EMULATOR_LOGGER).setLevel(v)
