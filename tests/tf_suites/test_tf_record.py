"""TensorFlow's TFRecordWriter / tf_record_iterator suite, on both backends.

Port of tensorflow/python/lib/io/tf_record_test.py (tensorflow/tensorflow at 009c3b1daf07): the same
test methods, inputs and expected values, rewritten against ``harness.tf`` (``tf.python_io``).  The
original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import gzip
import os
import zlib

from tests.tf_suites.harness import TestCase, tf

# A poem long enough to make a record of about 5 MB when repeated (the original uses Poe's 'Eldorado').
_TEXT = b"".join(b"Line %d of a long text, repeated to make a large record.\n" % i for i in range(40))


def _compression(name):
    return getattr(tf.python_io.TFRecordCompressionType, name)


class TFCompressionTestCase(TestCase):

    def setUp(self):
        self._num_files = 2
        self._num_records = 7

    def _Record(self, f, r):
        return ("Record %d of file %d" % (r, f)).encode()

    def _CreateFiles(self, options=None, prefix=""):
        filenames = []
        for i in range(self._num_files):
            records = [self._Record(i, j) for j in range(self._num_records)]
            filenames.append(self._WriteRecordsToFile(records, prefix + "tfrecord.%d.txt" % i, options))
        return filenames

    def _WriteRecordsToFile(self, records, name="tfrecord", options=None):
        path = os.path.join(self.get_temp_dir(), name)
        with tf.python_io.TFRecordWriter(path, options=options) as writer:
            for record in records:
                writer.write(record)
        return path

    def _ZlibCompressFile(self, infile, name="tfrecord.z"):
        with open(infile, "rb") as f:
            data = zlib.compress(f.read())
        path = os.path.join(self.get_temp_dir(), name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _GzipCompressFile(self, infile, name="tfrecord.gz"):
        with open(infile, "rb") as f:
            data = f.read()
        path = os.path.join(self.get_temp_dir(), name)
        with gzip.GzipFile(path, "wb") as f:
            f.write(data)
        return path

    def _ZlibDecompressFile(self, infile, name="tfrecord"):
        with open(infile, "rb") as f:
            data = zlib.decompress(f.read())
        path = os.path.join(self.get_temp_dir(), name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _GzipDecompressFile(self, infile, name="tfrecord"):
        with gzip.GzipFile(infile, "rb") as f:
            data = f.read()
        path = os.path.join(self.get_temp_dir(), name)
        with open(path, "wb") as f:
            f.write(data)
        return path


class TFRecordWriterTest(TFCompressionTestCase):

    def _AssertFilesEqual(self, a, b, equal):
        for first, second in zip(a, b):
            with open(first, "rb") as f, open(second, "rb") as g:
                if equal:
                    self.assertEqual(f.read(), g.read())
                else:
                    self.assertNotEqual(f.read(), g.read())

    def testWriteReadZLibFiles(self):
        files = self._CreateFiles(tf.python_io.TFRecordOptions(_compression("NONE")), prefix="uncompressed")
        zlib_files = [self._ZlibCompressFile(fn, "tfrecord_%s.z" % i) for i, fn in enumerate(files)]
        self._AssertFilesEqual(files, zlib_files, False)
        compressed = self._CreateFiles(tf.python_io.TFRecordOptions(_compression("ZLIB")), prefix="compressed")
        self._AssertFilesEqual(compressed, zlib_files, True)
        uncompressed = [self._ZlibDecompressFile(fn, "tfrecord_%s.z" % i) for i, fn in enumerate(compressed)]
        self._AssertFilesEqual(uncompressed, files, True)

    def testWriteReadGzipFiles(self):
        files = self._CreateFiles(tf.python_io.TFRecordOptions(_compression("NONE")), prefix="uncompressed")
        gzip_files = [self._GzipCompressFile(fn, "tfrecord_%s.gz" % i) for i, fn in enumerate(files)]
        self._AssertFilesEqual(files, gzip_files, False)
        compressed = self._CreateFiles(tf.python_io.TFRecordOptions(_compression("GZIP")), prefix="compressed")
        # (gzip's own files carry a name and time, so only the decompressed contents compare)
        uncompressed = [self._GzipDecompressFile(fn, "tfrecord_%s.gz" % i) for i, fn in enumerate(compressed)]
        self._AssertFilesEqual(uncompressed, files, True)


class TFRecordWriterZlibTest(TFCompressionTestCase):

    def testZLibFlushRecord(self):
        original = [b"small record"]
        path = self._WriteRecordsToFile(original, "small_record")
        with open(path, "rb") as h:
            data = h.read()
        # Many blocks and trailing empty blocks must not break reading.
        compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS)
        output = b""
        for byte in data:
            output += compressor.compress(bytes([byte]))
            output += compressor.flush(zlib.Z_FULL_FLUSH)
        output += compressor.flush(zlib.Z_FULL_FLUSH)
        output += compressor.flush(zlib.Z_FULL_FLUSH)
        output += compressor.flush(zlib.Z_FINISH)
        with open(path, "wb") as h:
            h.write(output)
        options = tf.python_io.TFRecordOptions(_compression("ZLIB"))
        self.assertEqual(list(tf.python_io.tf_record_iterator(path, options=options)), original)

    def testZlibReadWrite(self):
        original = [b"foo", b"bar"]
        path = self._WriteRecordsToFile(original, "zlib_read_write.tfrecord")
        zpath = self._ZlibCompressFile(path, "zlib_read_write.tfrecord.z")
        options = tf.python_io.TFRecordOptions(_compression("ZLIB"))
        self.assertEqual(list(tf.python_io.tf_record_iterator(zpath, options=options)), original)

    def testZlibReadWriteLarge(self):
        original = [_TEXT * 2048]
        path = self._WriteRecordsToFile(original, "zlib_read_write_large.tfrecord")
        zpath = self._ZlibCompressFile(path, "zlib_read_write_large.tfrecord.z")
        options = tf.python_io.TFRecordOptions(_compression("ZLIB"))
        self.assertEqual(list(tf.python_io.tf_record_iterator(zpath, options=options)), original)

    def testGzipReadWrite(self):
        original = [b"foo", b"bar"]
        path = self._WriteRecordsToFile(original, "gzip_read_write.tfrecord")
        gzpath = self._GzipCompressFile(path, "tfrecord.gz")
        options = tf.python_io.TFRecordOptions(_compression("GZIP"))
        self.assertEqual(list(tf.python_io.tf_record_iterator(gzpath, options=options)), original)


class TFRecordIteratorTest(TFCompressionTestCase):

    def testIterator(self):
        records = [self._Record(0, i) for i in range(self._num_records)]
        options = tf.python_io.TFRecordOptions(_compression("ZLIB"))
        path = self._WriteRecordsToFile(records, "compressed_records", options)
        reader = tf.python_io.tf_record_iterator(path, options)
        for expected in records:
            self.assertAllEqual(expected, next(reader))
        with self.assertRaises(StopIteration):
            next(reader)

    def testWriteZlibRead(self):
        original = [b"foo", b"bar"]
        options = tf.python_io.TFRecordOptions(_compression("ZLIB"))
        path = self._WriteRecordsToFile(original, "write_zlib_read.tfrecord.z", options)
        plain = self._ZlibDecompressFile(path, "write_zlib_read.tfrecord")
        self.assertEqual(list(tf.python_io.tf_record_iterator(plain)), original)

    def testWriteZlibReadLarge(self):
        original = [_TEXT * 2048]
        options = tf.python_io.TFRecordOptions(_compression("ZLIB"))
        path = self._WriteRecordsToFile(original, "write_zlib_read_large.tfrecord.z", options)
        plain = self._ZlibDecompressFile(path, "write_zlib_read_large.tfrecord")
        self.assertEqual(list(tf.python_io.tf_record_iterator(plain)), original)

    def testWriteGzipRead(self):
        original = [b"foo", b"bar"]
        options = tf.python_io.TFRecordOptions(_compression("GZIP"))
        path = self._WriteRecordsToFile(original, "write_gzip_read.tfrecord.gz", options)
        plain = self._GzipDecompressFile(path, "write_gzip_read.tfrecord")
        self.assertEqual(list(tf.python_io.tf_record_iterator(plain)), original)

    def testBadFile(self):
        path = os.path.join(self.get_temp_dir(), "bad_file")
        with tf.python_io.TFRecordWriter(path) as writer:
            writer.write(b"123")
        truncated = os.path.join(self.get_temp_dir(), "bad_file_truncated")
        with open(path, "rb") as f, open(truncated, "wb") as g:
            g.write(f.read(14))  # past the 12-byte header, so the loss is in the data
        with self.assertRaises(tf.errors.DataLossError):
            for _ in tf.python_io.tf_record_iterator(truncated):
                pass


class TFRecordWriterCloseAndFlushTests(TestCase):
    compression_type = "NONE"

    def setUp(self):
        self._fn = os.path.join(self.get_temp_dir(), "tf_record_writer_test.txt")
        self._options = tf.python_io.TFRecordOptions(_compression(self.compression_type))
        self._writer = tf.python_io.TFRecordWriter(self._fn, self._options)
        self._num_records = 20

    def _Record(self, r):
        return ("Record %d" % r).encode()

    def testWriteAndLeaveOpen(self):
        for record in map(self._Record, range(self._num_records)):
            self._writer.write(record)

    def testWriteAndRead(self):
        records = list(map(self._Record, range(self._num_records)))
        for record in records:
            self._writer.write(record)
        self._writer.close()
        self.assertListEqual(list(tf.python_io.tf_record_iterator(self._fn, self._options)), records)

    def testDoubleClose(self):
        self._writer.write(self._Record(0))
        self._writer.close()
        self._writer.close()

    def testFlushAfterCloseIsError(self):
        self._writer.write(self._Record(0))
        self._writer.close()
        with self.assertRaises(tf.errors.FailedPreconditionError):
            self._writer.flush()

    def testWriteAfterClose(self):
        self._writer.write(self._Record(0))
        self._writer.close()
        # The stored source expects no error here (it had no way to report one); TensorFlow 2.21 raises
        # FailedPreconditionError "Writer is closed.", as flush() does.
        with self.assertRaises(tf.errors.FailedPreconditionError):
            self._writer.write(self._Record(1))


class TFRecordWriterCloseAndFlushGzipTests(TFRecordWriterCloseAndFlushTests):
    compression_type = "GZIP"


class TFRecordWriterCloseAndFlushZlibTests(TFRecordWriterCloseAndFlushTests):
    compression_type = "ZLIB"
