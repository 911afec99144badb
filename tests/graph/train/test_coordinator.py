"""Coordinator and LooperThread (graph/train/coordinator.py): stop requests, error reporting, join."""

import sys
import threading
import time

import pytest

import graph.compat.v1 as ours
from graph import errors
from graph.train.coordinator import Coordinator, LooperThread


def test_stop_request_reaches_every_thread_and_join_returns():
    coord = Coordinator()
    seen = []

    def worker():
        while not coord.should_stop():
            time.sleep(0.001)
        seen.append(True)
    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    assert not coord.should_stop()
    coord.request_stop()
    coord.join(threads)
    assert seen == [True] * 3 and coord.joined


def test_first_error_is_raised_by_join_and_clean_stop_errors_are_not():
    coord = Coordinator()
    coord.request_stop(errors.OutOfRangeError(None, None, "queue drained"))
    coord.join([])
    coord.clear_stop()
    assert not coord.should_stop()
    coord = Coordinator()

    def failing():
        with coord.stop_on_exception():
            raise RuntimeError("first")
    thread = threading.Thread(target=failing)
    thread.start()
    coord.request_stop(ValueError("second, ignored"))
    with pytest.raises((RuntimeError, ValueError)):  # whichever reached the coordinator first
        coord.join([thread])
    with pytest.raises(ValueError, match="late"):  # after join a reported error is raised at once
        coord.request_stop(ValueError("late"))


def test_exc_info_tuple_and_raise_requested_exception():
    coord = Coordinator()
    try:
        raise KeyError("k")
    except KeyError:
        coord.request_stop(sys.exc_info())
    with pytest.raises(KeyError):
        coord.raise_requested_exception()


def test_join_names_stragglers_after_the_grace_period():
    coord = Coordinator()
    release = threading.Event()
    straggler = threading.Thread(target=release.wait, name="slow-one")
    straggler.start()
    coord.register_thread(straggler)
    coord.request_stop()
    with pytest.raises(RuntimeError, match="Coordinator stopped with threads still running: slow-one"):
        coord.join(stop_grace_period_secs=0.01)
    release.set()
    straggler.join()


def test_looper_thread_calls_its_target_until_stopped():
    coord = Coordinator()
    calls = []
    looper = LooperThread.loop(coord, 0.001, calls.append, args=(1,))
    while len(calls) < 3:
        time.sleep(0.001)
    coord.request_stop()
    coord.join([looper])
    with pytest.raises(ValueError, match="must be a Coordinator"):
        LooperThread("no", 1)
    assert ours.train.LooperThread is LooperThread
