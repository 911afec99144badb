"""``export`` a checkpoint to .npz / .safetensors and ``import`` such a file back into a checkpoint."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from saver.cli.edit import select_keys
from saver.cli.output import EXIT_NOT_FOUND, EXIT_OK, CliError, dump_json, progress
from saver.cli.sources import check_output_free, open_reader, output_prefix, record_output
from saver.storage import export
from saver.storage import remote

__all__ = ["add_parsers"]


def add_parsers(subparsers, common: argparse.ArgumentParser) -> None:
    """Adds ``export`` and ``import``."""
    parser = subparsers.add_parser(
        "export", parents=[common], help="write tensors to a .npz or .safetensors file",
        description="Export every tensor (or those matching --keys patterns) to one .npz or .safetensors "
                    "file. dtypes numpy and safetensors lack (bfloat16, strings, quantized) and partitions are "
                    "described in the file, so `import` restores the checkpoint exactly. No pickling.")
    parser.add_argument("checkpoint")
    parser.add_argument("output", help="OUT.npz or OUT.safetensors")
    parser.add_argument("--format", choices=("npz", "safetensors"), help="instead of the file extension")
    parser.add_argument("--keys", nargs="+", metavar="PATTERN", help="only keys matching these globs")
    parser.add_argument("--compress", action="store_true", help="deflate the .npz members")
    parser.add_argument("--force", action="store_true", help="overwrite an existing output file")
    parser.set_defaults(run=run_export)

    parser = subparsers.add_parser(
        "import", parents=[common], help="write a checkpoint from a .npz or .safetensors file",
        description="Write a V2 checkpoint from an exported file (or any .npz/.safetensors of arrays, each "
                    "array under its own name).")
    parser.add_argument("input", help="IN.npz or IN.safetensors")
    parser.add_argument("-o", "--output", required=True, help="checkpoint prefix (or directory) to write")
    parser.add_argument("--format", choices=("npz", "safetensors"), help="instead of the file extension")
    parser.add_argument("--force", action="store_true", help="overwrite an existing checkpoint")
    parser.set_defaults(run=run_import)


def run_export(args, out: TextIO) -> int:
    """The ``export`` command."""
    fmt = export.format_of(args.output, args.format)
    check_output_free(args.output, args.force, what="file")
    with open_reader(args.checkpoint) as reader:
        keys = sorted(reader.get_variable_to_dtype_map())
        if args.keys:
            keys = select_keys(keys, args.keys, use_regex=False)
        count = export.write_tensors(progress(export.checkpoint_tensors(reader, keys), len(keys), "exporting",
                                              args.progress), args.output, fmt, args.compress)
        size = os.path.getsize(args.output)
        if args.json:
            dump_json({"checkpoint": reader.prefix, "output": args.output, "format": fmt, "tensors": count,
                       "bytes": size}, out)
        else:
            out.write(f"wrote {args.output} ({fmt}, {count} tensors, {size} bytes)\n")
    return EXIT_OK


def run_import(args, out: TextIO) -> int:
    """The ``import`` command."""
    if not os.path.exists(args.input):
        raise CliError(f"{args.input}: no such file", EXIT_NOT_FOUND)
    fmt = export.format_of(args.input, args.format)
    target = output_prefix(args.output)
    check_output_free(target, args.force)
    counted = []

    def count(tensors):
        for tensor in progress(tensors, None, "importing", args.progress):
            counted.append(tensor.key)
            yield tensor
    with remote.local_output(target) as local:
        export.import_checkpoint(args.input, local, fmt, progress=count)
    record_output(args.output, target)
    if args.json:
        dump_json({"input": args.input, "output": target, "format": fmt, "tensors": len(counted)}, out)
    else:
        out.write(f"wrote {target} ({len(counted)} tensors from {fmt})\n")
    return EXIT_OK
