"""Name-scope rewriting of graph element names, as TensorFlow's framework/ops.py has it.

``prepend_name_scope`` / ``strip_name_scope`` move names in and out of an import or export scope
when a graph (or a MetaGraphDef's collections and SaverDef) is imported under a new scope or
exported from one.  Names may be ``op``, ``op:0``, a control input ``^op`` or a colocation group
``loc:@op``; the prefix goes after ``^`` / ``loc:@``.
"""

from __future__ import annotations

import re

__all__ = ["prepend_name_scope", "strip_name_scope"]


def strip_name_scope(name: str, export_scope: str | None) -> str:
    """Removes ``export_scope/`` from the front of ``name`` (also after '^' or 'loc:@'), as TF's ops.py."""
    if not export_scope:
        return name
    if export_scope[-1] == "/":
        export_scope = export_scope[:-1]
    return re.sub(r"([\^]|loc:@|^)" + re.escape(export_scope) + r"[\/]+(.*)", r"\1\2", name, count=1)


def prepend_name_scope(name: str, import_scope: str | None) -> str:
    """Adds ``import_scope/`` in front of ``name`` (also after '^' or 'loc:@'), as TF's ops.py."""
    if not import_scope:
        return name
    if import_scope[-1] == "/":
        import_scope = import_scope[:-1]
    return re.sub(r"([\^]|loc:@|^)(.*)", r"\1" + import_scope.replace("\\", "\\\\") + r"/\2", name, count=1)
