"""Listings of one checkpoint: ``inspect`` (keys, dtypes, shapes, sizes, shards, slices, values) and ``tree``."""

from __future__ import annotations

import argparse
import contextlib
from typing import TextIO

import numpy as np

from saver.cli.output import EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, CliError, dump_json, human_size, json_value, \
    count_option, shape_text, table
from saver.cli.sources import describe_entries, open_reader
from saver.storage.object_graph import object_graph_from_checkpoint

__all__ = ["add_parsers"]


def add_parsers(subparsers, common: argparse.ArgumentParser) -> None:
    """Adds ``inspect`` and ``tree``."""
    parser = subparsers.add_parser(
        "inspect", parents=[common], help="list keys, dtypes, shapes, sizes, shards, slices; print values",
        description="List a checkpoint's tensors, or print values (TF's inspect_checkpoint flags work).")
    parser.add_argument("checkpoint", nargs="?", help="checkpoint prefix, directory, one of its files, or URL")
    parser.add_argument("--file_name", dest="file_name", help="same as the positional argument (TF's flag)")
    parser.add_argument("--tensor_name", action="append", default=[], metavar="KEY",
                        help="print this tensor's value (repeatable)")
    parser.add_argument("--all_tensors", action="store_true", help="print every tensor's value")
    parser.add_argument("--all_tensor_names", action="store_true", help="print every key, one per line")
    parser.add_argument("--printoptions", default="", metavar="K=V,...",
                        help="numpy print options for values, e.g. threshold=100000,precision=3")
    parser.set_defaults(run=run_inspect)

    parser = subparsers.add_parser(
        "tree", parents=[common], help="the object graph of a TF2 checkpoint",
        description="Print the object graph of a TF2 (object-based) checkpoint as an indented tree.")
    parser.add_argument("checkpoint", help="checkpoint prefix, directory, one of its files, or URL")
    parser.add_argument("--max-depth", type=count_option, default=64, help="deepest level printed (default 64)")
    parser.set_defaults(run=run_tree)


def _print_options(text: str) -> dict:
    options = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if not value:
            raise CliError(f"--printoptions: {item!r} is not NAME=VALUE", EXIT_USAGE)
        options[name] = int(value) if value.lstrip("-").isdigit() else {"True": True, "False": False}.get(value, value)
    try:
        with np.printoptions(**options):  # validates names and values
            pass
    except (TypeError, ValueError) as error:
        raise CliError(f"--printoptions: {text!r}: {error}", EXIT_USAGE) from error
    return options


def run_inspect(args, out: TextIO) -> int:
    """The ``inspect`` command."""
    path = args.checkpoint or args.file_name
    if not path:
        raise CliError("inspect: give a checkpoint (positional or --file_name)", EXIT_USAGE)
    options = _print_options(args.printoptions)
    with open_reader(path) as reader:
        entries = describe_entries(reader)
        names = list(args.tensor_name) or (sorted(entries) if args.all_tensors else [])
        for name in names:
            if not reader.has_tensor(name):
                similar = [k for k in entries if name.lower() in k.lower()][:3]
                hint = f" (similar: {', '.join(similar)})" if similar else ""
                raise CliError(f"{reader.prefix}: no tensor named {name!r}{hint}", EXIT_NOT_FOUND)
        if args.json:
            document = {"checkpoint": reader.prefix, "format": reader.format,
                        "resolved_from": reader.resolved_from,
                        "tensors": [vars(e) for e in entries.values()]}
            if names:
                document["values"] = {n: json_value(_array(reader.get_tensor(n))) for n in names}
            dump_json(document, out)
            return EXIT_OK
        if args.all_tensor_names:
            for key in entries:
                out.write(key + "\n")
            return EXIT_OK
        if names:
            with np.printoptions(**options) if options else contextlib.nullcontext():
                for name in names:
                    out.write(f"tensor_name:  {name}\n{_array(reader.get_tensor(name))}\n")
            return EXIT_OK
        _summary(reader, entries, out)
    return EXIT_OK


def _array(value):
    return value if isinstance(value, np.ndarray) else np.array(value, dtype=object)


def _summary(reader, entries, out: TextIO) -> None:
    total = sum(e.size for e in entries.values())
    shards = {e.shard for e in entries.values()}
    count = getattr(getattr(reader, "_bundle", None), "num_shards", None)
    out.write(f"checkpoint {reader.prefix}  ({reader.format}, {len(entries)} tensors, {human_size(total)}"
              + (f", {count} shard{'s' if count != 1 else ''}" if count else "") + ")\n")
    if reader.resolved_from != "prefix as given":
        out.write(f"  found via {reader.resolved_from}\n")
    show_shards = len(shards) > 1 or (count or 1) > 1
    header = ["KEY", "DTYPE", "SHAPE", "SIZE"] + (["SHARD"] if show_shards else []) + ["SLICES"]
    rows = []
    for e in entries.values():
        row = [e.key, e.dtype, shape_text(e.shape), human_size(e.size)]
        if show_shards:
            row.append("several" if e.shard < 0 else str(e.shard))
        row.append(f"{len(e.slices)}: " + " ".join(e.slices) if e.slices else "")
        rows.append(row)
    table(rows, header, out, flexible=0, right=(3,))


def run_tree(args, out: TextIO) -> int:
    """The ``tree`` command."""
    with open_reader(args.checkpoint) as reader:
        graph = object_graph_from_checkpoint(reader)
        types, shapes = reader.get_variable_to_dtype_map(), reader.get_variable_to_shape_map()
        if args.json:
            nodes = []
            for node in graph:
                nodes.append({"id": node.node_id, "path": graph.path_string(node.node_id),
                              "children": [[c, n] for c, n in node.children],
                              "attributes": [{"name": a.name, "full_name": a.full_name, "key": a.checkpoint_key,
                                              "dtype": types[a.checkpoint_key].name if a.checkpoint_key in types
                                              else None, "shape": shapes.get(a.checkpoint_key)}
                                             for a in node.attributes],
                              "slot_variables": [[s.original_variable_node_id, s.slot_name, s.slot_variable_node_id]
                                                 for s in node.slot_variables]})
            dump_json({"checkpoint": reader.prefix, "nodes": nodes}, out)
            return EXIT_OK

        def annotate(key: str) -> str:
            if key in types:
                return f"{types[key].name}{shape_text(shapes[key])}"
            longer = [k for k in types if k.startswith(key)]  # ITERATOR -> ITERATOR_STATE
            return f"{types[longer[0]].name}{shape_text(shapes[longer[0]])}" if longer else "(no tensor)"
        out.write(f"object graph of {reader.prefix} ({len(graph)} objects)\n")
        out.write(graph.tree(annotate=annotate, max_depth=args.max_depth))
    return EXIT_OK

