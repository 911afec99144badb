"""``tf.test.Benchmark`` and ``tf.test.benchmark_config``: timed runs reported as TF's BenchmarkEntries.

Every subclass of ``Benchmark`` is registered when defined; ``tf.test.main()`` given ``--benchmark_filter=REGEX``
runs the registered ``benchmark*`` methods whose ``module.Class.method`` name matches (``all`` runs every one)
instead of the tests.  ``report_benchmark`` prints the entry in text format, or writes its bytes to
``$TEST_REPORT_FILE_PREFIX<name>`` (``/`` in the name as ``__``) when that variable is set, as TF does.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import sys
import time
from collections.abc import Callable

from absl import app

from graph.core import default_session
from graph.platform import gfile, tf_logging
from graph.proto.config import ConfigProto, RewriterConfig
from graph.proto.benchmark_entries import BenchmarkEntries
from graph.runtime.config import RunMetadata, RunOptions
from graph.viz.timeline import Timeline

__all__ = ["Benchmark", "benchmark_config", "benchmarks_main", "run_benchmarks"]

TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"
OVERRIDE_GLOBAL_THREADPOOL = "TF_OVERRIDE_GLOBAL_THREADPOOL"
_REGISTRY: set[type] = set()


def _report(name: str, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None,
            metrics=None) -> None:
    """Logs, then prints or writes, one BenchmarkEntry (TF's _global_report_benchmark).

    Raises:
        TypeError: when ``extras`` is not a dict, ``metrics`` not a list, or a metric lacks name or value.
        IOError: when the report file already exists.
    """
    tf_logging.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, extras: %s, metrics: %s",
                    name, iters if iters is not None else -1, wall_time if wall_time is not None else -1,
                    cpu_time if cpu_time is not None else -1, throughput if throughput is not None else -1,
                    str(extras) if extras else "None", str(metrics) if metrics else "None")
    entries = BenchmarkEntries()
    entry = entries.entry.add()
    entry.name = name
    for field, value in (("iters", iters), ("cpu_time", cpu_time), ("wall_time", wall_time),
                         ("throughput", throughput)):
        if value is not None:
            setattr(entry, field, value)
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for key, value in extras.items():
            if isinstance(value, numbers.Number):
                entry.extras[key].double_value = value
            else:
                entry.extras[key].string_value = str(value)
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            if "name" not in metric:
                raise TypeError("metric must has a 'name' field")
            if "value" not in metric:
                raise TypeError("metric must has a 'value' field")
            metric_entry = entry.metrics.add()
            metric_entry.name, metric_entry.value = metric["name"], metric["value"]
            if "min_value" in metric:
                metric_entry.min_value.value = metric["min_value"]
            if "max_value" in metric:
                metric_entry.max_value.value = metric["max_value"]
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if prefix is None:  # no report file asked for: show the entry
        print(str(entries))
        return
    output_path = "%s%s" % (prefix, name.replace("/", "__"))
    if gfile.Exists(output_path):
        raise IOError("File already exists: %s" % output_path)
    with gfile.GFile(output_path, "wb") as out:
        out.write(entries.SerializeToString())


class _Registered(type):
    """Registers every concrete Benchmark class when it is defined."""

    def __new__(mcs, name, bases, attrs):
        cls = super().__new__(mcs, name, bases, attrs)
        if not cls.is_abstract():
            _REGISTRY.add(cls)
        return cls


class Benchmark(metaclass=_Registered):
    """Base of benchmark classes: ``report_benchmark`` and ``run_op_benchmark`` (``tf.test.Benchmark``)."""

    def __init__(self):
        # TF lets each benchmark start its own threadpool; kept for scripts that read it.
        os.environ[OVERRIDE_GLOBAL_THREADPOOL] = "1"
        super().__init__()

    @classmethod
    def is_abstract(cls) -> bool:
        """True for Benchmark itself (its MRO is Benchmark, object), whose subclasses are the benchmarks."""
        return len(cls.__mro__) <= 2

    def _get_name(self, overwrite_name: str | None = None) -> str:
        """``Class.method`` of the outermost benchmark method on the stack (or ``Class.overwrite_name``)."""
        frame, calling, method = sys._getframe(), None, None
        while frame is not None:
            candidate = frame.f_locals.get("self")
            if isinstance(candidate, Benchmark):
                calling, method = candidate, frame.f_code.co_name
            frame = frame.f_back
        if calling is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        return "%s.%s" % (type(calling).__name__, overwrite_name or method)

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, name=None,
                         metrics=None) -> None:
        """Reports one result, named ``Class.method`` of the benchmark method running (or ``Class.name``)."""
        _report(self._get_name(overwrite_name=name), iters=iters, cpu_time=cpu_time, wall_time=wall_time,
                throughput=throughput, extras=extras, metrics=metrics)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters: int = 2, min_iters: int = 10,
                         store_trace: bool = False, store_memory_usage: bool = True, name=None, extras=None,
                         mbs=0) -> dict:
        """Runs ``op_or_tensor`` ``burn_iters`` times, then times ``min_iters`` runs and reports their median.

        ``store_trace`` adds one traced run, its Chrome trace in the returned extras (``full_trace_chrome_format``,
        not reported).  ``store_memory_usage`` is accepted and adds nothing: TF reports each allocator's peak
        from the trace's allocation records, which this emulator's traced runs do not carry.

        Returns:
            The values reported, with ``wall_time_mean`` and ``wall_time_stdev`` added to the extras.
        """
        del store_memory_usage  # no allocation records to report (see above)
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = extras if extras is not None else {}
        unreported_extras = {}
        if store_trace:
            run_metadata = RunMetadata()
            sess.run(op_or_tensor, feed_dict=feed_dict, options=RunOptions(trace_level=RunOptions.FULL_TRACE),
                     run_metadata=run_metadata)
            unreported_extras["full_trace_chrome_format"] = Timeline(
                run_metadata.step_stats).generate_chrome_trace_format()
        ordered = sorted(deltas)
        median = (ordered[len(ordered) // 2] + ordered[(len(ordered) - 1) // 2]) / 2.0 if ordered else -1
        values = {"iters": min_iters, "wall_time": median, "extras": extras, "name": name,
                  "throughput": mbs / median}
        self.report_benchmark(**values)
        mean = sum(deltas) / len(deltas) if deltas else -1
        stdev = (math.sqrt(sum((d - mean) ** 2 for d in deltas) / (len(deltas) - 1)) if len(deltas) > 1 else -1)
        unreported_extras["wall_time_mean"] = mean
        unreported_extras["wall_time_stdev"] = stdev
        values["extras"].update(unreported_extras)
        return values

    def evaluate(self, tensors):
        """The values of ``tensors`` in the default session.

        Raises:
            ValueError: outside a default session (TF's fallback names a method Benchmark does not have).
        """
        sess = default_session.get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session: run it inside `with tf.Session():`")
        return sess.run(tensors)


def benchmark_config() -> ConfigProto:
    """A ConfigProto with Grappler's dependency optimizer off (TF's advice for benchmarks)."""
    config = ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = RewriterConfig.OFF
    return config


def run_benchmarks(regex: str) -> None:
    """Runs every registered ``benchmark*`` method whose ``module.Class.method`` matches ``regex`` ("all": every one).

    Raises:
        ValueError: when none matches.
    """
    selected = []
    for benchmark in list(_REGISTRY):
        class_name = "%s.%s" % (benchmark.__module__, benchmark.__name__)
        instance = None
        for attribute in dir(benchmark):
            if not attribute.startswith("benchmark") or not callable(getattr(benchmark, attribute)):
                continue
            full_name = "%s.%s" % (class_name, attribute)
            if regex == "all" or re.search(regex, full_name):
                selected.append(full_name)
                instance = instance or benchmark()
                getattr(instance, attribute)()
    if not selected:
        raise ValueError("No benchmarks matched the pattern: '{}'".format(regex))


def benchmarks_main(true_main: Callable[[], object], argv: list[str] | None = None) -> None:
    """Runs the benchmarks ``--benchmark_filter=REGEX`` in ``argv`` (default ``sys.argv``) selects, else ``true_main``.

    The flag is removed from ``argv`` before absl parses the rest, as TF does.
    """
    if argv is None:
        argv = sys.argv
    found = [arg for arg in argv if arg.startswith(("--benchmark_filter=", "-benchmark_filter="))]
    if found:
        argv.remove(found[0])
        regex = found[0].split("=")[1]
        app.run(lambda _: run_benchmarks(regex), argv=argv)
    else:
        true_main()
