"""graph/summary: TensorBoard event files: the writer (``tf.summary.FileWriter``) and reader (``summary_iterator``).

The summary ops themselves are op families (graph/ops/summary_ops.py, summary_image_ops.py); the
messages are graph/proto/summary.py and the record framing graph/platform/tfrecord.py.
"""
