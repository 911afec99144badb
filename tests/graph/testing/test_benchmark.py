"""Tests for graph/testing/benchmark.py: tf.test.Benchmark's reports (text, or TF's BenchmarkEntries bytes on
disk), run_op_benchmark, the registry --benchmark_filter runs, and benchmark_config."""

import json

import pytest

import graph.compat.v1 as tf
from graph.proto.benchmark_entries import BenchmarkEntries
from graph.testing import benchmark as benchmark_lib


class ReportingBenchmark(tf.test.Benchmark):
    """Reports from its benchmark methods (the report names the outermost one)."""

    def benchmarkReport(self):
        self.report_benchmark(iters=5, wall_time=0.25, extras={"speed": 3, "kind": "fast"},
                              metrics=[{"name": "accuracy", "value": 0.9, "min_value": 0.5}])

    def benchmarkNamed(self):
        self._helper()

    def _helper(self):
        self.report_benchmark(iters=1, name="custom")


def test_report_prints_the_entry(capsys, monkeypatch):
    monkeypatch.delenv(benchmark_lib.TEST_REPORTER_TEST_ENV, raising=False)
    ReportingBenchmark().benchmarkReport()
    printed = capsys.readouterr().out
    assert printed.startswith('entry {\n  name: "ReportingBenchmark.benchmarkReport"\n  iters: 5\n  wall_time: 0.25\n')
    assert 'extras {\n    key: "kind"\n    value {\n      string_value: "fast"\n    }\n  }\n' in printed
    assert 'metrics {\n    name: "accuracy"\n    value: 0.9\n    min_value {\n      value: 0.5\n    }\n  }' in printed
    ReportingBenchmark().benchmarkNamed()
    assert 'name: "ReportingBenchmark.custom"' in capsys.readouterr().out


def test_report_writes_the_entry_where_asked(tmp_path, monkeypatch):
    prefix = str(tmp_path / "report_")
    monkeypatch.setenv(benchmark_lib.TEST_REPORTER_TEST_ENV, prefix)
    ReportingBenchmark().benchmarkReport()
    with open(prefix + "ReportingBenchmark.benchmarkReport", "rb") as report:
        entries = BenchmarkEntries.FromString(report.read())
    entry = entries.entry[0]
    assert (entry.name, entry.iters, entry.wall_time) == ("ReportingBenchmark.benchmarkReport", 5, 0.25)
    assert entry.extras["speed"].double_value == 3 and entry.extras["kind"].string_value == "fast"
    with pytest.raises(IOError, match="File already exists: .*report_ReportingBenchmark.benchmarkReport"):
        ReportingBenchmark().benchmarkReport()


def test_report_checks_its_arguments():
    bench = ReportingBenchmark()
    assert bench._get_name() == "ReportingBenchmark._get_name"  # called from outside a benchmark method
    with pytest.raises(TypeError, match="extras must be a dict"):
        bench.report_benchmark(extras=[1])
    with pytest.raises(TypeError, match="metrics must be a list"):
        bench.report_benchmark(metrics={"name": "m"})
    with pytest.raises(TypeError, match="metric must has a 'value' field"):
        bench.report_benchmark(metrics=[{"name": "m"}])


def test_run_op_benchmark_times_and_traces(capsys):
    with tf.Session() as sess:
        values = ReportingBenchmark().run_op_benchmark(sess, tf.matmul(tf.ones([8, 8]), tf.ones([8, 8])),
                                                       burn_iters=1, min_iters=4, store_trace=True, mbs=2,
                                                       name="matmul")
    assert values["iters"] == 4 and values["name"] == "matmul" and values["wall_time"] > 0
    assert values["throughput"] == pytest.approx(2 / values["wall_time"])
    assert set(values["extras"]) >= {"full_trace_chrome_format", "wall_time_mean", "wall_time_stdev"}
    trace = json.loads(values["extras"]["full_trace_chrome_format"])
    assert any(event.get("name") == "MatMul" for event in trace["traceEvents"])
    assert 'name: "ReportingBenchmark.matmul"' in capsys.readouterr().out


def test_benchmarks_register_and_run_by_filter(capsys):
    assert ReportingBenchmark in benchmark_lib._REGISTRY and tf.test.Benchmark not in benchmark_lib._REGISTRY
    benchmark_lib.run_benchmarks(r"ReportingBenchmark\.benchmarkNamed")
    assert 'name: "ReportingBenchmark.custom"' in capsys.readouterr().out
    with pytest.raises(ValueError, match="No benchmarks matched the pattern: 'nothing_matches'"):
        benchmark_lib.run_benchmarks("nothing_matches")


def test_evaluate_runs_in_the_default_session():
    with tf.Session():
        assert ReportingBenchmark().evaluate(tf.constant(3)) == 3
    with pytest.raises(ValueError, match="needs a default session"):
        ReportingBenchmark().evaluate(tf.constant(3))


@pytest.mark.tf
def test_benchmark_config_and_report_bytes_match_tensorflow(tf_module, tmp_path, monkeypatch):
    assert tf.test.benchmark_config().SerializeToString() == tf_module.test.benchmark_config().SerializeToString()

    def benchmarkReport(self):
        self.report_benchmark(iters=5, wall_time=0.25, throughput=1.5, extras={"speed": 3},
                              metrics=[{"name": "accuracy", "value": 0.9, "max_value": 1.0}])

    for prefix, module in (("theirs_", tf_module), ("ours_", tf)):
        monkeypatch.setenv(benchmark_lib.TEST_REPORTER_TEST_ENV, str(tmp_path / prefix))
        bench_class = type("Bench", (module.test.Benchmark,), {"benchmarkReport": benchmarkReport})
        bench_class().benchmarkReport()
    theirs = (tmp_path / "theirs_Bench.benchmarkReport").read_bytes()
    assert (tmp_path / "ours_Bench.benchmarkReport").read_bytes() == theirs
