"""Whether the run, a program, may put a tensor on an accelerator at all.

A tensor reaches an accelerator only through code that asks for one: a move
(``.cuda()``, ``.to(...)``, whatever its argument: ``.to(0)`` is ``cuda:0``), a factory or a
load given a device (``device=``, ``map_location=``), a default device or tensor type set
(``torch.set_default_device``), a load that restores the places a checkpoint was saved
from (``torch.load(f)``, ``pickle.load(f)``), or a library that places modules or tensors
itself (a trainer, an accelerator wrapper, a pipeline).  :func:`may_accelerate` reads the
bytes of the run's files, without parsing them, and answers False only where none of them
holds any such word (:data:`_MENTIONS`, matched case-insensitively and generously:
``device``, ``cuda``, ``gpu``, ``load(``, ``.to(``, ``trainer``, ``parallel``, ...; a
notebook's outputs count too) **and** every module any of them imports is of the standard
library, of torch (``torch``, ``torchvision``, ``torchaudio``), a file or folder of the run,
or one of :data:`TORCH_FREE`, packages that do not depend on torch and so make no tensor,
**and** the run is a program: a file of it is a script (``if __name__ == "__main__":``) or
a notebook.  (A run of definitions only is a library, whose users outside the run may move
what it builds.)  In such a run every tensor is on the CPU: a value that "may be on an accelerator" only
because the analysis does not know where it came from (a module's input, an annotated
parameter) is on the CPU as well.  A name built at run time (``importlib.import_module``,
``__import__``) counts as a mention.

>>> main = b"if __name__ == '__main__':\\n    run()\\n"
>>> may_accelerate({"a.py": b"import torch\\nimport numpy as np\\nx = torch.zeros(2)\\n" + main})
False
>>> may_accelerate({"a.py": b"import torch\\nimport numpy as np\\nx = torch.zeros(2)\\n"})
True
>>> may_accelerate({"a.py": b"import torch\\nx = torch.zeros(2).to(dev)\\n" + main})
True
>>> may_accelerate({"a.py": b"import torch\\nfrom sentence_transformers import S\\n" + main})
True
>>> may_accelerate({"m/a.py": b"from .b import f\\nimport util\\n" + main, "m/util.py": b"import torch\\n"})
False
"""

from __future__ import annotations

import re
import sys
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchferry.check.flow.project import Project

#: words whose presence in a file's bytes may put a tensor on an accelerator (see the
#: module's doc); generous on purpose: a word too many only keeps a hint
_MENTIONS = re.compile(
    rb"(?i)cuda|gpu|device|accelerat|\.to\s*\(|trainer|lightning|parallel|distributed|"
    rb"map_location|load\s*\(|set_default|pipeline|deepspeed|import_module|__import__|"
    rb"(?<![a-z])(?:mps|xpu|npu|hpu|xla|tpu|ipu|mlu|musa)(?![a-z])")

#: ``if __name__ == "__main__":``, a script's entry point
_MAIN = re.compile(rb"__name__[ \t]*==[ \t]*[\"']__main__[\"']")

#: the modules an import statement names (also inside a notebook's JSON strings: after a
#: quote); ``from . import x`` names none
_IMPORTS = re.compile(
    rb"(?m)(?:^|\")[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import\b|import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?"
    rb"(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))")

#: torch and the libraries of its own project
_TORCH = frozenset({"torch", "torchvision", "torchaudio"})

#: import names of packages whose distributions declare no dependency on torch (no
#: ``torch`` in the ``Requires-Dist`` of their metadata, extras included: numpy 2.4.6,
#: matplotlib 3.11.2, pandas 3.1.2, scipy 1.17.1, scikit-learn 1.9.1, statsmodels 0.15.0,
#: tqdm 4.70.1, progressbar2 4.6.0): they make no tensor, on an accelerator or elsewhere
TORCH_FREE = frozenset({"numpy", "matplotlib", "pandas", "scipy", "sklearn", "statsmodels",
                        "tqdm", "progressbar"})


def may_accelerate(files: Mapping[str, bytes]) -> bool:
    """May the run of ``files`` (path -> bytes) put a tensor on an accelerator?  False only
    where no file mentions one and every import is known to make none (see the module's
    doc)."""
    if any(_MENTIONS.search(data) for data in files.values()):
        return True
    if not any(p.endswith(".ipynb") or _MAIN.search(data) for p, data in files.items()):
        return True  # (definitions only: a library, whose users may move what it makes)
    own = {part.removesuffix(".py") for p in files for part in p.replace("\\", "/").split("/")}
    return any(not _known(name, own) for data in files.values() for name in _imported(data))


_RUNS: weakref.WeakKeyDictionary[Project, bool] = weakref.WeakKeyDictionary()


def run_may_accelerate(project: Project | None) -> bool:
    """:func:`may_accelerate` of the run's files (``project``), read once per run; True
    where the run's files are not known (a source checked alone, through the API: a
    fragment whose other files may move its tensors)."""
    if project is None:
        return True
    done = _RUNS.get(project)
    if done is None:
        done = _RUNS[project] = may_accelerate(project.files)
    return done


def _imported(data: bytes) -> list[str]:
    """The top-level names of the modules ``data``'s import statements name (relative ones
    left out: a file of the run's own package)."""
    out: list[str] = []
    for m in _IMPORTS.finditer(data):
        if m.group(1) is not None:
            names = [m.group(1)] if not m.group(1).startswith(b".") else []
        else:
            names = [part.strip().split()[0] for part in m.group(2).split(b",")]
        out.extend(n.split(b".")[0].decode("ascii", "replace") for n in names if n)
    return out


def _known(name: str, own: set[str]) -> bool:
    """A module that makes no tensor on an accelerator unless asked in words
    :data:`_MENTIONS` finds: the standard library's, torch's, the run's own, or
    :data:`TORCH_FREE`."""
    return name in sys.stdlib_module_names or name in _TORCH or name in TORCH_FREE or name in own
