"""Edits that write a new checkpoint: ``rename`` (map, prefix, regex), ``drop`` and ``keep`` (patterns).

Every edit reads the source and writes a whole new V2 bundle (partitioned tensors keep their
slices).  In a TF2 checkpoint the object graph's checkpoint keys follow the renames, and attributes
whose tensors were dropped leave the graph.

``--in-place`` commits with one rename, so a kill at any moment leaves the original checkpoint or
the new one, whole (tests/safety/test_edit_crash_safety.py)::

    write <prefix>.rewrite<hex>.data-00000-of-00001 and .index       (temp names; old checkpoint intact)
    rename the data to <prefix>.data-*-of-<M>                         M = 2 if the original has 1 data
    (M = 2: an empty <prefix>.data-00001-of-00002, written then renamed)  file, else 1: names the old
    write the index with num_shards M under a temp name                   index never reads
    rename it over <prefix>.index                                     the commit point
    remove the original's data files (and a V1 original's file)

The new checkpoint's data-file count differs from the original's, so the new data never replaces
a file the original index reads.  Temporary files a killed edit or save left for the prefix are
removed first (bundle_files.remove_stranded).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
from typing import TextIO
from collections.abc import Callable

import numpy as np

from graph.platform import file_io
from saver.cli.output import EXIT_NOT_FOUND, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CliError, dump_json, progress
from saver.cli.sources import check_output_free, open_reader, output_prefix, record_output
from saver.format.bundle import BundleReader, BundleWriter, data_filename, index_filename
from saver.format.bundle_stream import raw_chunks, stored_record, streamable
from saver.format.bundle_files import remove_stranded, rewrite_prefix
from saver.format.bundle_writer import write_index
from saver.format.proto import BundleHeaderProto, TrackableObjectGraph
from saver.format.v1 import v1_files
from saver.storage import remote

__all__ = ["add_parsers", "rewrite_checkpoint", "rename_mapping", "select_keys"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _add_output_options(parser) -> None:
    parser.add_argument("-o", "--output", help="new checkpoint prefix (or directory) to write")
    parser.add_argument("--in-place", action="store_true", help="replace the source checkpoint")
    parser.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite an existing output checkpoint")


def add_parsers(subparsers, common: argparse.ArgumentParser) -> None:
    """Adds ``rename``, ``drop`` and ``keep``."""
    parser = subparsers.add_parser(
        "rename", parents=[common], help="rename keys (map, prefix or regex)",
        description="Write a checkpoint with keys renamed. Exact --map entries win; other keys go through "
                    "--strip-prefix, then each --regex, then --add-prefix. Unmatched keys keep their name.")
    parser.add_argument("checkpoint")
    parser.add_argument("--map", action="append", default=[], metavar="OLD=NEW", help="rename one key")
    parser.add_argument("--map-file", metavar="JSON", help='a JSON object {"old key": "new key", ...}')
    parser.add_argument("--strip-prefix", metavar="PREFIX", help="remove this prefix where keys have it")
    parser.add_argument("--add-prefix", metavar="PREFIX", help="put this prefix before every key")
    parser.add_argument("--regex", nargs=2, action="append", default=[], metavar=("PATTERN", "REPLACEMENT"),
                        help="re.sub(PATTERN, REPLACEMENT, key) (repeatable, applied in order)")
    _add_output_options(parser)
    parser.set_defaults(run=run_rename)
    for name, verb in (("drop", "without"), ("keep", "with only")):
        parser = subparsers.add_parser(
            name, parents=[common], help=f"write a checkpoint {verb} the keys matching patterns",
            description=f"Write a checkpoint {verb} the keys matching any PATTERN (shell-style globs such as "
                        "'optimizer/*', or regular expressions with --regex). A pattern matching nothing is an "
                        "error." + (" The object graph of a TF2 checkpoint is always kept." if name == "keep" else ""))
        parser.add_argument("checkpoint")
        parser.add_argument("patterns", nargs="+", metavar="PATTERN")
        parser.add_argument("--regex", action="store_true", help="patterns are regular expressions (re.search)")
        _add_output_options(parser)
        parser.set_defaults(run=run_select, keep=name == "keep")


# ------------------------------------------------------------------------------------------ mappings


def rename_mapping(keys: list[str], exact: dict[str, str], strip: str | None = None,
                   add: str | None = None, regexes=()) -> dict[str, str]:
    """old key -> new key for every key (unchanged keys map to themselves).

    Raises:
        CliError: for an exact rename of a missing key, a bad regex, or two keys given one name.
    """
    missing = sorted(set(exact) - set(keys))
    if missing:
        raise CliError(f"--map: no key {missing[0]!r} in the checkpoint", EXIT_NOT_FOUND)
    try:
        compiled = [(re.compile(pattern), replacement) for pattern, replacement in regexes]
    except re.error as error:
        raise CliError(f"--regex: bad pattern: {error}", EXIT_USAGE) from error
    mapping = {}
    for key in keys:
        if key in exact:
            mapping[key] = exact[key]
            continue
        new = key
        if key != OBJECT_GRAPH_KEY:  # the object graph's own key keeps its name unless mapped exactly
            if strip and new.startswith(strip):
                new = new[len(strip):]
            for pattern, replacement in compiled:
                try:
                    new = pattern.sub(replacement, new)
                except (re.error, IndexError) as error:
                    raise CliError(f"--regex {pattern.pattern!r} {replacement!r}: {error}", EXIT_USAGE) from error
            if add:
                new = add + new
        mapping[key] = new
    seen: dict[str, str] = {}
    for old, new in mapping.items():
        if not new:
            raise CliError(f"rename: key {old!r} would get an empty name", EXIT_USAGE)
        if new in seen:
            raise CliError(f"rename: {seen[new]!r} and {old!r} would both be named {new!r}", EXIT_REFUSED)
        seen[new] = old
    return mapping


def select_keys(keys: list[str], patterns: list[str], use_regex: bool) -> list[str]:
    """The keys matching any pattern; a pattern matching nothing is an error (exit 3)."""
    matchers: list[Callable[[str], bool]] = []
    for pattern in patterns:
        if use_regex:
            try:
                matchers.append(re.compile(pattern).search)
            except re.error as error:
                raise CliError(f"bad regular expression {pattern!r}: {error}", EXIT_USAGE) from error
        else:
            matchers.append(lambda key, pattern=pattern: fnmatch.fnmatchcase(key, pattern))
    for pattern, matcher in zip(patterns, matchers):
        if not any(matcher(key) for key in keys):
            raise CliError(f"pattern {pattern!r} matches no key (see `inspect` for the keys)", EXIT_NOT_FOUND)
    return [key for key in keys if any(matcher(key) for matcher in matchers)]


# ------------------------------------------------------------------------------------------ rewriting


def _rewrite_object_graph(data: bytes, mapping: dict[str, str], keys: list[str]) -> bytes:
    """The serialized object graph with checkpoint keys renamed, attributes of dropped keys removed."""
    proto = TrackableObjectGraph.from_bytes(data)
    for node in proto.nodes:
        kept = []
        for attribute in node.attributes:
            key = attribute.checkpoint_key
            if key in mapping:
                attribute.checkpoint_key = mapping[key]
                kept.append(attribute)
                continue
            saved = [k for k in keys if k.startswith(key)] if key else []  # ITERATOR saves ITERATOR_STATE
            if not saved:
                kept.append(attribute)  # nothing of it was in the checkpoint: leave it as it was
                continue
            renamed = [mapping[k] for k in saved if k in mapping]
            if not renamed:
                continue  # every tensor of the attribute was dropped
            suffix = saved[0][len(key):]
            new = mapping.get(saved[0], "")
            if new.endswith(suffix):
                attribute.checkpoint_key = new[:len(new) - len(suffix)]
            kept.append(attribute)
        node.attributes = kept
    return proto.to_bytes()


def rewrite_checkpoint(reader, prefix: str, mapping: dict[str, str], enabled_progress=None) -> int:
    """Writes the tensors of ``mapping`` (old key -> new key) from ``reader`` as a V2 checkpoint at prefix."""
    types = reader.get_variable_to_dtype_map()
    bundle = BundleReader(reader.prefix) if reader.format == "V2" else None
    count = 0
    try:
        with BundleWriter(prefix) as writer:
            for old in progress(sorted(mapping), len(mapping), "writing", enabled_progress):
                new, dtype = mapping[old], types[old]
                slices = bundle.lookup_tensor_slices(old) if bundle is not None else []
                if old == OBJECT_GRAPH_KEY:
                    value = reader.get_tensor(old)
                    value = value.item() if isinstance(value, np.ndarray) else value
                    writer.add(new, np.array(_rewrite_object_graph(value, mapping, list(types)), dtype=object))
                elif slices:
                    shape = reader.get_variable_to_shape_map()[old]
                    for part in slices:
                        writer.add_slice(new, shape, part, bundle.lookup_slice(old, part), dtype)
                elif bundle is not None and not bundle.byteswap and streamable(bundle, old):  # numeric: byte for byte
                    writer.add_stream(new, stored_record(bundle, old), raw_chunks(bundle, old))
                else:
                    value = reader.get_tensor(old)
                    writer.add(new, value if isinstance(value, np.ndarray) else np.array(value, dtype=object), dtype)
                count += 1
    finally:
        if bundle is not None:
            bundle.close()
    return count


def _write(args, reader, mapping: dict[str, str], out: TextIO, changes: list[str]) -> int:
    if args.dry_run:
        if args.json:
            dump_json({"checkpoint": reader.prefix, "dry_run": True, "changes": changes,
                       "tensors_written": len(mapping)}, out)
        else:
            for change in changes:
                out.write(change + "\n")
            out.write(f"dry run: {len(changes)} change(s); {len(mapping)} tensor(s) would be written\n")
        return EXIT_OK
    if args.in_place == bool(args.output):
        raise CliError("give exactly one of -o/--output PREFIX and --in-place", EXIT_USAGE)
    if args.in_place:
        if file_io.local_path(args.checkpoint) is None:
            raise CliError("--in-place works on local checkpoints only; give -o URL", EXIT_USAGE)
        target = reader.prefix
        count = edit_in_place(reader, mapping, args.progress)
    else:
        target = output_prefix(args.output)
        check_output_free(target, args.force)
        with remote.local_output(target) as local:
            count = rewrite_checkpoint(reader, local, mapping, args.progress)
        record_output(args.output, target)
    if args.json:
        dump_json({"checkpoint": reader.prefix, "output": target, "changes": changes, "tensors_written": count}, out)
    else:
        for change in changes:
            out.write(change + "\n")
        out.write(f"wrote {target} ({count} tensors, {len(changes)} change(s))\n")
    return EXIT_OK


def _original_files(reader) -> tuple[int, list[str]]:
    """(data-file count, files) of the checkpoint being replaced: its data files, or a V1 original's files."""
    if reader.format == "V2":
        with BundleReader(reader.prefix) as bundle:
            shards = bundle.num_shards
        return shards, [data_filename(reader.prefix, k, shards) for k in range(shards)]
    return 0, sorted(v1_files(reader.prefix))


def _sync(path: str) -> None:
    """fsyncs a finished file in durable mode (file_io.sync_file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        file_io.sync_file(fd)
    finally:
        os.close(fd)


def edit_in_place(reader, mapping: dict[str, str], enabled_progress=None) -> int:
    """Replaces ``reader``'s checkpoint by the tensors of ``mapping``, committed by one index rename.

    Returns the number of tensors written.  See the module docstring for the steps.
    """
    target = reader.prefix
    remove_stranded(target)
    original_shards, original_files = _original_files(reader)
    shards = 2 if original_shards == 1 else 1
    temp = rewrite_prefix(target)
    try:
        count = rewrite_checkpoint(reader, temp, mapping, enabled_progress)
        index_path = index_filename(target)
        if shards == 2:  # re-headed index naming two data files, the second empty
            with BundleReader(temp) as bundle:
                entries = dict(bundle.raw_items())
                header = BundleHeaderProto.from_bytes(bundle.header.to_bytes())
            header.num_shards = 2
            new_index = file_io.temp_filename(index_path)
            write_index(new_index, header, entries)
            os.remove(index_filename(temp))
            empty = file_io.temp_filename(data_filename(target, 1, 2))
            with open(empty, "xb") as file:
                file_io.sync_file(file.fileno())
            os.replace(empty, data_filename(target, 1, 2))
        else:
            new_index = index_filename(temp)
        os.replace(data_filename(temp, 0, 1), data_filename(target, 0, shards))
        file_io.sync_directory(index_path)  # durable mode: the new data files' names before the index's
        os.replace(new_index, index_path)   # the commit point
        file_io.sync_directory(index_path)
    finally:
        remove_stranded(target)  # after a failure: the half-written new bundle
    kept = {data_filename(target, k, shards) for k in range(shards)}
    for path in original_files:
        if path not in kept:
            os.remove(path)
    return count


def run_rename(args, out: TextIO) -> int:
    """The ``rename`` command."""
    exact = {}
    for item in args.map:
        old, sep, new = item.partition("=")
        if not sep:
            raise CliError(f"--map {item!r}: expected OLD=NEW", EXIT_USAGE)
        exact[old] = new
    if args.map_file:
        try:
            with open(args.map_file, encoding="utf-8") as file:
                loaded = json.load(file)
        except FileNotFoundError as error:
            raise CliError(f"{args.map_file}: no such file", EXIT_NOT_FOUND) from error
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise CliError(f"{args.map_file}: not a JSON object of key renames: {error}", EXIT_USAGE) from error
        if not isinstance(loaded, dict) or not all(isinstance(v, str) for v in loaded.values()):
            raise CliError(f"{args.map_file}: expected a JSON object {{\"old\": \"new\", ...}}", EXIT_USAGE)
        exact.update(loaded)
    if not (exact or args.strip_prefix or args.add_prefix or args.regex):
        raise CliError("rename: give --map, --map-file, --strip-prefix, --add-prefix or --regex", EXIT_USAGE)
    with open_reader(args.checkpoint) as reader:
        keys = sorted(reader.get_variable_to_dtype_map())
        mapping = rename_mapping(keys, exact, args.strip_prefix, args.add_prefix, args.regex)
        changes = [f"{old} -> {new}" for old, new in mapping.items() if old != new]
        return _write(args, reader, mapping, out, changes)


def run_select(args, out: TextIO) -> int:
    """The ``drop`` and ``keep`` commands."""
    with open_reader(args.checkpoint) as reader:
        keys = sorted(reader.get_variable_to_dtype_map())
        matched = set(select_keys(keys, args.patterns, args.regex))
        if args.keep:
            chosen = [k for k in keys if k in matched or k == OBJECT_GRAPH_KEY]
        else:
            chosen = [k for k in keys if k not in matched]
        mapping = {key: key for key in chosen}
        changes = [f"drop {key}" for key in keys if key not in mapping]
        return _write(args, reader, mapping, out, changes)
