"""Tests for graph/platform/tf_logging.py: the records tf.logging calls make, compared with TensorFlow's."""

import logging

import pytest

from graph.platform import tf_logging


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append((record.levelname, record.getMessage(), record.funcName))


def _log_session(module) -> list:
    """One fixed sequence of tf.logging calls; the (level, message, calling function) of each record."""
    logger = logging.getLogger("tensorflow")
    handler, old_level = _Records(), logger.level
    logger.addHandler(handler)
    try:
        module.set_verbosity(module.INFO)
        verbosity = module.get_verbosity()
        module.debug("hidden %d", 1)
        module.info("info %s", "x")
        module.warn("warn")
        module.warning("warning %r", [1])
        module.error("error")
        module.fatal("fatal")
        module.log(module.ERROR, "log %d", 2)
        module.vlog(module.WARN, "vlog")
        module.log_if(module.INFO, "if %d", True, 3)
        module.log_if(module.INFO, "not shown", False)
        module.TaskLevelStatusMessage("status")
        module.set_verbosity(module.DEBUG)
        module.debug("shown")
        return [verbosity, module.get_verbosity()] + handler.records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


@pytest.mark.tf
def test_same_records_as_tensorflow(tf_module):
    ours, theirs = _log_session(tf_logging), _log_session(tf_module.logging)
    assert ours == theirs
    assert ("INFO", "info x", "_log_session") in ours and ("DEBUG", "hidden 1", "_log_session") not in ours


def test_log_every_n_and_first_n_count_per_call_site():
    # TF documents per-call-site counts; TF 2.21 keys them by the caller's caller (one counter for a whole
    # script), so these are checked against the documented behaviour.
    logger = logging.getLogger("tensorflow")
    handler, old_level = _Records(), logger.level
    logger.addHandler(handler)
    try:
        tf_logging.set_verbosity(tf_logging.INFO)
        for step in range(7):
            tf_logging.log_every_n(tf_logging.INFO, "every %d", 3, step)
            tf_logging.log_first_n(tf_logging.INFO, "first %d", 2, step)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert [message for _, message, _ in handler.records] == [
        "every 0", "first 0", "first 1", "every 3", "every 6"]
    assert {function for _, _, function in handler.records} == {"test_log_every_n_and_first_n_count_per_call_site"}


@pytest.mark.tf
def test_levels_and_names_as_tensorflow(tf_module):
    for name in ("DEBUG", "INFO", "WARN", "ERROR", "FATAL"):
        assert getattr(tf_logging, name) == getattr(tf_module.logging, name)
    assert tf_logging.get_logger() is tf_module.get_logger()
    with pytest.raises(NotImplementedError):
        tf_logging.flush()


def test_set_verbosity_also_governs_the_emulator_logger():
    emulator, logger = logging.getLogger("graph"), logging.getLogger("tensorflow")
    old = emulator.level, logger.level
    try:
        tf_logging.set_verbosity(tf_logging.ERROR)
        assert emulator.level == logger.level == logging.ERROR and tf_logging.get_verbosity() == logging.ERROR
    finally:
        emulator.setLevel(old[0])
        logger.setLevel(old[1])
