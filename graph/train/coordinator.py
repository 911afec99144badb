"""tf.train.Coordinator and LooperThread: stopping a set of threads together and reporting their errors.

A Coordinator holds one stop event.  Any thread may ``request_stop`` (optionally with the exception that
made it stop: the first one reported is re-raised by ``join``); loops poll ``should_stop``.  Exceptions of
``clean_stop_exception_types`` (OutOfRangeError by default: an input queue ran dry) stop cleanly, without
being reported.  ``join`` waits for the registered threads, then gives stragglers a grace period.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

from graph import errors
from graph.platform import tf_logging as logging

__all__ = ["Coordinator", "LooperThread"]


class Coordinator:
    """A coordinator for threads: one stop request for all, the first error re-raised at join."""

    def __init__(self, clean_stop_exception_types=None):
        """``clean_stop_exception_types``: exceptions that stop the threads without being an error."""
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(self, ex):
        instance = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(instance, self._clean_stop_exception_types) else ex

    def request_stop(self, ex=None) -> None:
        """Requests that the threads stop; ``ex`` (an exception or an exc_info tuple) is reported to ``join``.

        Raises:
            The exception ``ex`` itself if the coordinator was already joined (a late error is not lost).
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined and ex is not None:
                raise ex[1] if isinstance(ex, tuple) else ex
            if self._stop_event.is_set():
                return
            if ex is not None and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    logging.info("Error reported to Coordinator: %s", ex[1], exc_info=ex)
                    self._exc_info_to_raise = ex
                else:
                    logging.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                    info = sys.exc_info()
                    # Called outside the handler of ``ex``: keep ``ex`` itself (TF would report a ValueError).
                    self._exc_info_to_raise = info if info[1] is ex else (type(ex), ex, ex.__traceback__)
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop flag and any reported error, so the coordinator can be reused."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context manager that requests a stop with any exception raised inside it (and swallows it)."""
        try:
            yield
        except BaseException:  # noqa: BLE001 - TF's contract: every exception is reported, none escapes
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits until a stop is requested (or ``timeout`` seconds); returns whether one was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        """Adds ``thread`` to those ``join`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs: float = 120, ignore_live_threads: bool = False) -> None:
        """Waits for the threads to end (or a stop request), then ``stop_grace_period_secs`` for stragglers.

        Raises:
            The first exception passed to ``request_stop``; RuntimeError naming the threads still running
            after the grace period (unless ``ignore_live_threads``).
        """
        with self._lock:
            threads = list(self._registered_threads if threads is None else self._registered_threads | set(threads))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        wait = 0.001  # short, doubling sleeps: threads usually end within a few milliseconds of the stop
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(wait)
            stop_grace_period_secs -= wait
            wait = max(min(2 * wait, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    logging.info("Coordinator stopped with threads still running: %s", " ".join(stragglers))
                else:
                    raise RuntimeError("Coordinator stopped with threads still running: " + " ".join(stragglers))

    @property
    def joined(self) -> bool:
        """Whether ``join`` has run."""
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raises the exception reported to ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]


class LooperThread(threading.Thread):
    """A daemon thread that calls ``run_loop`` (or ``target``) repeatedly until the coordinator stops."""

    def __init__(self, coord: Coordinator, timer_interval_secs: float | None, target=None, args=None, kwargs=None):
        """Calls every ``timer_interval_secs`` seconds (None: back to back); registers with ``coord``."""
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if target:
            self._args, self._kwargs = args or (), kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        coord.register_thread(self)

    @staticmethod
    def loop(coord: Coordinator, timer_interval_secs: float | None, target, args=None, kwargs=None):
        """Starts and returns a LooperThread calling ``target``."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(next_time - time.time()):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once when the thread starts."""

    def stop_loop(self) -> None:
        """Called once when the thread ends."""

    def run_loop(self) -> None:
        """One iteration: calls ``target``."""
        if self._target:
            self._target(*self._args, **self._kwargs)
