"""``picture`` (an object graph or a .meta graph, drawn) and ``meta`` (a .meta file, listed)."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from graph.proto.framework import VariableDef
from graph.viz.picture import write_figure
from saver.cli.output import EXIT_DAMAGED, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, CliError, dump_json, one_line, warn
from saver.cli.sources import open_reader
from saver.format.bundle_files import DATA_SUFFIX
from saver.storage import picture
from saver.storage.object_graph_keys import OBJECT_GRAPH_PROTO_KEY

# The .meta commands import the graph emulator where they run (the one place in saver that imports inside
# functions): every other command, and --help, starts without the op families (measured: 0.60 s -> 0.45 s).

__all__ = ["add_parsers", "read_meta", "check_picture_format", "PICTURE_FORMATS"]

_SKIPPED_COLLECTIONS = ("cond_context", "while_context")
# -o extensions: ours (svg, dot/gv) and the common ones Graphviz's dot renders.
PICTURE_FORMATS = ("svg", "dot", "gv", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "webp", "bmp", "tiff")


def add_parsers(subparsers, common: argparse.ArgumentParser) -> None:
    """Adds ``picture`` and ``meta``."""
    parser = subparsers.add_parser(
        "picture", parents=[common], help="draw a TF2 object graph or a .meta graph (SVG, DOT, PNG)",
        description="Draw the object graph of a TF2 checkpoint (optimizer red, variables blue, slot variables "
                    "orange) or the graph of a .meta file (variables, initializers, devices by colour). The "
                    "format follows -o's extension: .svg (drawn here, no Graphviz needed), .dot, or .png/.pdf "
                    "(Graphviz's dot). Without -o the DOT text is printed.")
    parser.add_argument("source", help="checkpoint (prefix, directory, URL) or FILE.meta")
    parser.add_argument("-o", "--output", help="OUT.svg, OUT.dot, OUT.png or OUT.pdf")
    parser.add_argument("--format", choices=("dot", "svg"), default="dot", help="printed format without -o")
    parser.add_argument("--engine", choices=("builtin", "dot"), default="builtin",
                        help="SVG layout: ours (default) or Graphviz")
    parser.add_argument("--detail", choices=("variables", "ops"), default="variables",
                        help=".meta graphs: variables and initializers (default) or every op")
    parser.add_argument("--all", action="store_true", help="object graphs: also the optimizer's bookkeeping lists")
    parser.add_argument("--title", help="title over the picture")
    parser.set_defaults(run=run_picture)

    parser = subparsers.add_parser(
        "meta", parents=[common], help="list a .meta file: ops by type, variables, collections, saver_def",
        description="Describe a MetaGraphDef (.meta, binary or text): ops by type, variables, collections and "
                    "the saver_def.")
    parser.add_argument("meta", help="FILE.meta (or a checkpoint prefix with a .meta beside it)")
    parser.set_defaults(run=run_meta)


def read_meta(path: str):
    """The MetaGraphDef of a .meta file, or of the ``.meta`` beside a prefix or one of its files, with CLI errors."""
    prefix = DATA_SUFFIX.sub("", path[:-len(".index")] if path.endswith(".index") else path)
    if path.endswith(".meta"):
        candidates = [path]
    elif prefix != path:  # a checkpoint's .index or data file: its prefix's .meta
        candidates = [prefix + ".meta"]
    else:
        candidates = [path + ".meta", path]
    for candidate in candidates:
        if os.path.lexists(candidate) and not os.path.isdir(candidate):
            try:
                from saver.meta_graph_import import read_meta_graph_file  # lazily: see the note above
                return read_meta_graph_file(candidate), candidate
            except OSError as error:
                raise CliError(f"{candidate}: not a MetaGraphDef (parses neither as binary nor as text format)",
                               EXIT_DAMAGED) from error
    if prefix != path:
        raise CliError(f"{path} is a checkpoint file, not a .meta file, and there is no {candidates[0]}",
                       EXIT_NOT_FOUND)
    raise CliError(f"{candidates[0]}: no such .meta file", EXIT_NOT_FOUND)


def _meta_figure(path: str, args):
    meta, filename = read_meta(path)
    title = args.title if args.title is not None else filename
    from graph.core import graph as graph_lib  # lazily: see the note above
    from graph.io.graph_import import import_graph_def
    from graph.viz import picture as graph_picture
    from saver.saver import import_meta_graph
    with graph_lib.Graph().as_default() as graph:
        try:  # control-flow contexts are not needed for a picture
            import_meta_graph(meta, restore_collections_predicate=lambda key: key not in _SKIPPED_COLLECTIONS)
            return graph_picture.figure(graph, args.detail, title)
        except (ValueError, TypeError, KeyError) as error:  # draw the ops alone (initializers found by name)
            warn(f"{filename}: its collections do not rebuild ({type(error).__name__}: "
                 f"{one_line(str(error))}); drawing the graph's ops alone")
    with graph_lib.Graph().as_default() as graph:
        try:
            import_graph_def(meta.graph_def, name="")
        except (ValueError, TypeError, KeyError) as error:
            raise CliError(f"{filename}: cannot rebuild its graph: {error}", EXIT_DAMAGED) from error
        return graph_picture.figure(graph, args.detail, title)


def check_picture_format(path: str) -> None:
    """Refuses (usage error) an output whose extension names no picture format, listing the formats."""
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    if extension not in PICTURE_FORMATS:
        listed = ", ".join("." + name for name in PICTURE_FORMATS)
        what = f"unknown picture format '.{extension}'" if extension else "no file extension to choose the format"
        raise CliError(f"{path}: {what}; give one of {listed} (.svg and .dot are drawn here, the others by "
                       "Graphviz's dot)", EXIT_USAGE)


def run_picture(args, out: TextIO) -> int:
    """The ``picture`` command."""
    if args.output:
        check_picture_format(args.output)
    if args.source.endswith(".meta"):
        figure = _meta_figure(args.source, args)
    else:
        with open_reader(args.source) as reader:
            if reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
                figure = picture.figure(reader, reader, simplify=not args.all, title=args.title)
            elif os.path.isfile(reader.prefix + ".meta"):
                figure = _meta_figure(reader.prefix + ".meta", args)
            else:
                raise CliError(f"{reader.prefix}: a name-based (TF1) checkpoint has no object graph to draw, and "
                               f"there is no {reader.prefix}.meta beside it", EXIT_NOT_FOUND)
    if args.output:
        write_figure(figure, args.output, args.engine)
        if args.json:
            dump_json({"output": args.output, "nodes": len(figure.nodes), "edges": len(figure.edges)}, out)
        else:
            out.write(f"wrote {args.output} ({len(figure.nodes)} nodes, {len(figure.edges)} edges)\n")
    else:
        out.write(figure.to_svg() if args.format == "svg" else figure.to_dot())
    return EXIT_OK


def _collection_summary(meta) -> dict:
    summary = {}
    for key in sorted(meta.collection_def):
        kind = meta.collection_def[key].which_oneof("kind")
        values = getattr(meta.collection_def[key], kind).value if kind else []
        summary[key] = {"kind": kind, "count": len(values)}
    return summary


def run_meta(args, out: TextIO) -> int:
    """The ``meta`` command."""
    meta, filename = read_meta(args.meta)
    if not args.json:
        out.write(f"meta graph {filename}\n")
        from saver.meta_graph_import import describe_meta_graph  # lazily: see the note above
        out.write(describe_meta_graph(meta).rstrip("\n") + "\n")
        return EXIT_OK
    counts: dict = {}
    for node in meta.graph_def.node if meta.graph_def else ():
        counts[node.op] = counts.get(node.op, 0) + 1
    variables = []
    if "variables" in meta.collection_def and meta.collection_def["variables"].which_oneof("kind") == "bytes_list":
        for value in meta.collection_def["variables"].bytes_list.value:
            proto = VariableDef.from_bytes(value)
            variables.append({"name": proto.variable_name, "initializer": proto.initializer_name,
                              "trainable": bool(proto.trainable)})
    saver_def = None
    if meta.saver_def is not None:
        saver_def = {field: getattr(meta.saver_def, field) for field in (
            "filename_tensor_name", "save_tensor_name", "restore_op_name", "max_to_keep", "sharded",
            "keep_checkpoint_every_n_hours")}
        saver_def["version"] = int(meta.saver_def.version or 0)
    dump_json({"meta": filename, "ops_by_type": counts, "variables": variables,
               "collections": _collection_summary(meta), "saver_def": saver_def}, out)
    return EXIT_OK
