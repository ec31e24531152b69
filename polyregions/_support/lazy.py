"""Lazy front files: a package's names are imported from their modules on first use.

A front file lists, for each module, the names it re-exports; ``import polyregions`` then costs almost nothing,
and a name's module (and its dependencies: numpy, FLINT, HiGHS) loads when the name is first used. The same
names are imported under ``TYPE_CHECKING`` so that type checkers and editors see them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]], *,
                 subpackages: Sequence[str] = ()) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for the front file of ``package``.

    ``exports`` maps a module, relative to ``package`` (``".regions.domains"``), to the names it re-exports;
    ``subpackages`` are submodules exported as themselves. A name found once is stored in the package, so
    ``__getattr__`` runs once per name.
    """
    where = {name: module for module, names in exports.items() for name in names}
    where.update({name: f".{name}" for name in subpackages})
    names = list(where)

    def __getattr__(name: str) -> Any:
        module_name = where.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(module_name, package)
        value = module if name in subpackages else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(names) | set(vars(sys.modules[package])))

    return __getattr__, __dir__, names
