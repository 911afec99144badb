"""Op families: each module holds its builders, shape inference and numpy kernels.

Importing any op module imports this package first, which loads every family: then every kernel
is registered and math_ops has installed the Tensor operators, whichever builder a program (or an
imported GraphDef) uses first.  Families are discovered, not listed, so adding one is one file.
"""

import importlib as _importlib
import pkgutil as _pkgutil

for _module in sorted(_pkgutil.iter_modules(__path__), key=lambda info: info.name):
    _importlib.import_module(f"{__name__}.{_module.name}")
