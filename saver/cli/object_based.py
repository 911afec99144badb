"""``to-object`` and ``to-name``: convert TF1 name-based checkpoints to TF2 object-based ones and back.

``to-object SOURCE --template T -o OUT`` fills the template (a checkpoint the target TF2 program wrote)
with SOURCE's values, matched by ``--map FILE.json`` ({source name: template variable}), ``--regex
PATTERN=REPLACEMENT`` rules on source names, or else by shape and order; the report says what filled what.
``to-name SOURCE -o OUT`` writes each variable under its full_name (or ``--map`` / ``--regex`` names).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import TextIO

from saver.checkpoint.converter import format_report, to_name_based, to_object_based
from saver.cli.output import EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, CliError, dump_json
from saver.cli.sources import check_output_free, output_prefix, record_output
from saver.storage.reader import resolve_checkpoint_path

__all__ = ["add_parsers"]


def add_parsers(subparsers, common: argparse.ArgumentParser) -> None:
    """Adds ``to-object`` and ``to-name``."""
    parser = subparsers.add_parser(
        "to-object", parents=[common], help="TF1 name-based checkpoint -> TF2 object-based, through a template",
        description="Fill a template (a TF2 checkpoint the target program wrote, e.g. "
                    "tf.train.Checkpoint(model=model).write(T) with fresh weights) with a TF1 checkpoint's "
                    "values; the target then loads OUT with tf.train.Checkpoint(model=model).restore(OUT)"
                    ".assert_consumed(). Without --map/--regex, template variables take the first unused "
                    "source tensor of the same dtype and shape, in order.")
    parser.add_argument("source", help="the TF1 (name-based) checkpoint")
    parser.add_argument("--template", required=True, help="a TF2 checkpoint written by the target program")
    _add_map_options(parser)
    parser.add_argument("-o", "--output", required=True, help="checkpoint prefix (or directory) to write")
    parser.add_argument("--force", action="store_true", help="overwrite an existing checkpoint")
    parser.set_defaults(run=run_to_object)

    parser = subparsers.add_parser(
        "to-name", parents=[common], help="TF2 object-based checkpoint -> TF1 name-based (for tf.train.Saver)",
        description="Write every variable of an object-based checkpoint under its full_name (the name a TF1 "
                    "Saver over the same variables uses), or under the names --map / --regex give.")
    parser.add_argument("source", help="the TF2 (object-based) checkpoint")
    _add_map_options(parser)
    parser.add_argument("-o", "--output", required=True, help="checkpoint prefix (or directory) to write")
    parser.add_argument("--force", action="store_true", help="overwrite an existing checkpoint")
    parser.set_defaults(run=run_to_name)


def _add_map_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--map", metavar="FILE.json", help="a JSON object {source name: new name}")
    group.add_argument("--regex", nargs="+", metavar="PATTERN=REPLACEMENT",
                       help="rules rewriting whole source names (re.fullmatch; \\1 refers to groups)")


def _name_map(args):
    if args.map:
        try:
            with open(args.map, encoding="utf-8") as file:
                mapping = json.load(file)
        except FileNotFoundError as error:
            raise CliError(f"{args.map}: no such file", EXIT_NOT_FOUND) from error
        except json.JSONDecodeError as error:
            raise CliError(f"{args.map}: not JSON: {error}", EXIT_USAGE) from error
        if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
            raise CliError(f"{args.map}: expected a JSON object of names to names", EXIT_USAGE)
        return mapping
    if args.regex:
        rules = []
        for rule in args.regex:
            pattern, equals, replacement = rule.partition("=")
            if not equals:
                raise CliError(f"--regex {rule!r}: expected PATTERN=REPLACEMENT", EXIT_USAGE)
            rules.append((pattern, replacement))
        return rules
    return None


def _finish(args, out: TextIO, report, target: str) -> int:
    record_output(args.output, target)
    if args.json:
        dump_json({"output": target, "tensors": [dataclasses.asdict(m) for m in report]}, out)
    else:
        out.write(format_report(report))
        out.write(f"wrote {target} ({len(report)} tensors)\n")
    return EXIT_OK


def run_to_object(args, out: TextIO) -> int:
    """The ``to-object`` command."""
    target = output_prefix(args.output)
    check_output_free(target, args.force)
    source, _ = resolve_checkpoint_path(args.source)
    template, _ = resolve_checkpoint_path(args.template)
    return _finish(args, out, to_object_based(source, template, target, _name_map(args)), target)


def run_to_name(args, out: TextIO) -> int:
    """The ``to-name`` command."""
    target = output_prefix(args.output)
    check_output_free(target, args.force)
    source, _ = resolve_checkpoint_path(args.source)
    return _finish(args, out, to_name_based(source, target, _name_map(args)), target)
