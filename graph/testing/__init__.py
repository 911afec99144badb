"""``tf.test``: TestCase, the test runner and the helpers TF1 unit tests use (TF's test_util.py, platform/test.py).

The layer sits above the runtime (a TestCase opens Sessions on graphs) and below ``graph.compat``.
"""
