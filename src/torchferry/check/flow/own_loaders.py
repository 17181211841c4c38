"""A class of the run that is named ``DataLoader`` but is no torch ``DataLoader``.

cs230's ``class DataLoader(object)`` reads its files and hands out batches through a
generator method ``data_iterator(data, params)``; it shares its name with torch's loader
and nothing else.  :func:`own_loader_class` tells that such a name (``model.data_loader.
DataLoader``) resolves to a class the checked files define and that derives from no class
so named, so that the call builds an instance of the run's class, whose methods the
analysis follows, instead of a torch loader of unknown batches.  A class of the run that
derives from a ``DataLoader`` (``class DataLoader(torch.utils.data.DataLoader)``) is a torch
loader and keeps that reading.

>>> import ast
>>> from torchferry.check.flow import Project, analyze
>>> def owned(base):
...     loader = f"import torch\\nclass DataLoader({base}):\\n    pass\\n"
...     main = "from loader import DataLoader\\nd = DataLoader()\\n"
...     project = Project({"/p/loader.py": loader.encode(), "/p/main.py": main.encode()})
...     ff = analyze(ast.parse(main), "/p/main.py", project)
...     return own_loader_class(ff, "loader.DataLoader")
>>> owned("object"), owned("torch.utils.data.DataLoader")
(True, False)
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchferry.check.flow.program import FileFlow


def own_loader_class(ff: FileFlow, qual: str) -> bool:
    """Is ``qual`` (as ``ff`` names it) a class the run's files define that derives from no
    class whose name ends in ``DataLoader``?"""
    found = ff.resolve(qual)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return False
    return not any(ast.unparse(b).rsplit(".", 1)[-1].endswith("DataLoader") for b in found[1].bases)
