"""graph/platform: the one file-system layer under everything that writes files (see ``file_io``).

Local paths and fsspec URLs, and the one atomic write (temporary file beside the target, fsync,
rename).  It imports only graph/base.
"""
