"""Converting between TF1 name-based checkpoints and TF2 object-based ones.

``to_object_based(source, template, output, name_map)`` fills a *template* — an object-based checkpoint the
target program wrote (a Keras 3 model's ``tf.train.Checkpoint(model=model).write(...)`` with fresh weights)
— with the values of a TF1 ``tf.train.Saver`` checkpoint.  The output keeps the template's object graph and
keys, so ``tf.train.Checkpoint(model=model).restore(output).assert_consumed()`` passes in the target.  A
root without ``save_counter`` gets one (restore() always creates it, and assert_consumed wants it matched).

``name_map`` says which source tensor fills which template variable; every form maps a *source name* to a
*template target*: the checkpoint key, the object path (``model/_functional/_operations/1/_kernel``), that
path without leading underscores in its last part (``.../1/kernel``) or in every part, or the template
variable's full_name (each spelling counts where it names one variable only).

- a dict ``{source name: target}``;
- a list of ``(pattern, replacement)`` regex pairs, applied to each source name with ``re.fullmatch``;
- a callable ``source name -> target or None``;
- None: match by shape and order: template variables in object-graph order each take the first unused source
  tensor (names in natural order: ``dense_2`` before ``dense_10``) with the same dtype and shape.

Template variables no source fills keep the template's value; the returned report lists every decision.
``to_name_based(source, output, name_map)`` goes back: each variable is saved under its full_name (what a
TF1 Saver over the same variables expects) or under ``name_map``'s name for it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from graph import errors
from graph.base import dtypes
from saver.format.bundle_writer import BundleWriter
from saver.format.proto import BoolValue, TrackableObjectGraph
from saver.storage.object_graph import ObjectGraph, object_graph_from_checkpoint
from saver.storage.object_graph_keys import (OBJECT_ATTRIBUTES_NAME, OBJECT_GRAPH_PROTO_KEY, VARIABLE_VALUE_KEY,
                                             checkpoint_key)
from saver.storage.reader import NewCheckpointReader

__all__ = ["Match", "to_object_based", "to_name_based", "format_report"]

_Proto = TrackableObjectGraph.TrackableObject
_SAVE_COUNTER = "save_counter"
NameMap = Mapping[str, str] | Sequence[tuple[str, str]] | Callable[[str], str | None] | None


@dataclasses.dataclass(frozen=True)
class Match:
    """One output tensor: where it came from (`how`: map, regex, callable, shape, template, added, name)."""
    key: str
    source: str | None
    how: str
    dtype: str
    shape: tuple[int, ...]


def _natural_key(name: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _template_targets(graph: ObjectGraph) -> dict[str, str]:
    """Every unambiguous spelling of a template variable (key, paths, full_name) -> its key."""
    targets: dict[str, set] = {}
    suffix = "/%s/%s" % (OBJECT_ATTRIBUTES_NAME, VARIABLE_VALUE_KEY)
    for _, attribute in graph.attributes():
        key = attribute.checkpoint_key
        if not key.endswith(suffix):
            continue
        path = key[:-len(suffix)]
        parts = path.split("/")
        plain = "/".join(part.lstrip("_") or part for part in parts)
        plain_last = "/".join(parts[:-1] + [parts[-1].lstrip("_") or parts[-1]])
        for spelling in (key, path, plain, plain_last, attribute.full_name):
            targets.setdefault(spelling, set()).add(key)
    return {spelling: next(iter(keys)) for spelling, keys in targets.items() if len(keys) == 1}


def _mapper(name_map: NameMap) -> tuple[str, Callable[[str], str | None]]:
    if name_map is None:
        raise AssertionError("shape matching has no mapper")
    if callable(name_map):
        return "callable", name_map
    if isinstance(name_map, Mapping):
        return "map", name_map.get
    pairs = [(re.compile(pattern), replacement) for pattern, replacement in name_map]

    def by_regex(name: str) -> str | None:
        for pattern, replacement in pairs:
            if pattern.fullmatch(name):
                return pattern.sub(replacement, name)
        return None
    return "regex", by_regex


def _check_same(key: str, source: str, source_dtype, source_shape, dtype, shape) -> None:
    if source_dtype != dtype or tuple(source_shape) != tuple(shape):
        raise errors.InvalidArgumentError(
            None, None, f"{source!r} ({source_dtype.name} {list(source_shape)}) cannot fill {key!r} "
                        f"({dtype.name} {list(shape)}): dtype and shape must be equal")


def to_object_based(source: str, template: str, output: str, name_map: NameMap = None,
                    add_save_counter: bool = True) -> list[Match]:
    """Writes `output`: the template's object graph filled with `source`'s values; returns the report.

    Raises:
      NotFoundError: if the template has no object graph, or a mapped target is not a template variable.
      InvalidArgumentError: if a mapped pair differs in dtype or shape, or two sources fill one target.
    """
    graph = object_graph_from_checkpoint(template)
    targets = _template_targets(graph)
    with NewCheckpointReader(source) as source_reader, NewCheckpointReader(template) as template_reader:
        template_dtypes = template_reader.get_variable_to_dtype_map()
        template_shapes = template_reader.get_variable_to_shape_map()
        source_dtypes = source_reader.get_variable_to_dtype_map()
        source_shapes = source_reader.get_variable_to_shape_map()
        source_names = sorted((n for n in source_dtypes if n != OBJECT_GRAPH_PROTO_KEY), key=_natural_key)
        variable_keys = [a.checkpoint_key for _, a in graph.attributes()
                         if a.checkpoint_key in template_dtypes and a.name == VARIABLE_VALUE_KEY]
        chosen: dict[str, tuple[str, str]] = {}  # template key -> (source name, how)
        if name_map is None:
            used = set()
            for key in variable_keys:
                if key.split("/")[0] == _SAVE_COUNTER:
                    continue
                for name in source_names:
                    if name not in used and source_dtypes[name] == template_dtypes[key] and \
                            list(source_shapes[name]) == list(template_shapes[key]):
                        used.add(name)
                        chosen[key] = (name, "shape")
                        break
        else:
            how, mapper = _mapper(name_map)
            for name in source_names:
                target = mapper(name)
                if target is None:
                    continue
                if target not in targets:
                    raise errors.NotFoundError(None, None, f"{how} maps {name!r} to {target!r}, which is not a "
                                               f"variable of the template {template} (its keys: "
                                               f"{', '.join(variable_keys)})")
                key = targets[target]
                if key in chosen:
                    raise errors.InvalidArgumentError(None, None, f"{how} maps both {chosen[key][0]!r} and {name!r} "
                                                      f"to {key!r}")
                _check_same(key, name, source_dtypes[name], source_shapes[name], template_dtypes[key],
                            template_shapes[key])
                chosen[key] = (name, how)
        report = []
        with BundleWriter(output) as writer:
            for key in sorted(template_dtypes):
                if key == OBJECT_GRAPH_PROTO_KEY:
                    continue
                name, how = chosen.get(key, (None, "template"))
                reader = template_reader if name is None else source_reader
                writer.add(key, reader.get_tensor(key if name is None else name), template_dtypes[key])
                report.append(Match(key, name, how, template_dtypes[key].name, tuple(template_shapes[key])))
            out_graph = graph
            if add_save_counter and not any(local == _SAVE_COUNTER for _, local in graph.root.children):
                out_graph, key = _with_save_counter(graph)
                writer.add(key, np.int64(0), dtypes.int64)
                report.append(Match(key, None, "added", "int64", ()))
            writer.add(OBJECT_GRAPH_PROTO_KEY, np.array(out_graph.to_bytes(), dtype=object), dtypes.string)
    return report


def _with_save_counter(graph: ObjectGraph) -> tuple[ObjectGraph, str]:
    """A copy of `graph` whose root has a ``save_counter`` variable child (the last node)."""
    proto = TrackableObjectGraph.from_bytes(graph.to_bytes())
    node_id = len(proto.nodes)
    key = checkpoint_key(_SAVE_COUNTER, VARIABLE_VALUE_KEY)
    proto.nodes[0].children.append(_Proto.ObjectReference(node_id=node_id, local_name=_SAVE_COUNTER))
    proto.nodes[0].has_checkpoint_values = BoolValue(value=True)
    proto.nodes.append(_Proto(attributes=[_Proto.SerializedTensor(
        name=VARIABLE_VALUE_KEY, full_name=_SAVE_COUNTER, checkpoint_key=key)],
        has_checkpoint_values=BoolValue(value=True)))
    return ObjectGraph(proto, graph.source), key


def to_name_based(source: str, output: str, name_map: NameMap = None) -> list[Match]:
    """Writes `output`, a TF1 name-based checkpoint of `source`'s variables; returns the report.

    Each variable is named by its full_name, or by `name_map` (any form, applied to the full_name; None
    from a callable or regex, or a name missing from a dict, keeps the full_name).

    Raises:
      NotFoundError: if `source` has no object graph.
      InvalidArgumentError: if two variables would get one name.
    """
    graph = object_graph_from_checkpoint(source)
    mapper = None if name_map is None else _mapper(name_map)
    report, names = [], {}
    with NewCheckpointReader(source) as reader:
        dtype_map, shape_map = reader.get_variable_to_dtype_map(), reader.get_variable_to_shape_map()
        for _, attribute in graph.attributes():
            key = attribute.checkpoint_key
            if attribute.name != VARIABLE_VALUE_KEY or key not in dtype_map:
                continue
            name, how = attribute.full_name, "name"
            if mapper is not None:
                mapped = mapper[1](attribute.full_name)
                if mapped is not None:
                    name, how = mapped, mapper[0]
            if name in names:
                raise errors.InvalidArgumentError(None, None, f"{names[name]!r} and {key!r} would both be saved as "
                                                  f"{name!r}")
            names[name] = key
            report.append(Match(name, key, how, dtype_map[key].name, tuple(shape_map[key])))
        with BundleWriter(output) as writer:
            for name in sorted(names):
                writer.add(name, reader.get_tensor(names[name]), dtype_map[names[name]])
    return report


def format_report(report: Sequence[Match]) -> str:
    """One line per output tensor: ``key <- source (how) dtype shape``."""
    lines = []
    for match in report:
        origin = match.source if match.source is not None else "(%s)" % match.how
        how = "" if match.source is None else "  [%s]" % match.how
        lines.append(f"{match.key} <- {origin}{how}  {match.dtype} {list(match.shape)}")
    return "\n".join(lines) + "\n"
