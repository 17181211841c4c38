"""Syntax facts about where a saved or loaded value lives, shared by the checkpoint rules.

* :func:`template_name`: the file a formatted path names, by its template
  (``"best_pred_run{}.pt".format(run)``, ``f"{root}/pred_{run}.pt"``): the last path
  component of the template with each replacement field marked, so two paths built from
  the same template name the same family of files whatever their fields hold.
* :func:`cpu_result`: an expression whose value Python and PyTorch put on the CPU whatever
  it is made from: ``x.cpu()`` (``Tensor.cpu`` and ``Module.cpu`` return a CPU copy or
  the module moved to the CPU), ``x.to("cpu")``, and methods that keep a tensor's device
  applied to such a value (``x.detach().cpu().numpy()``).
* :func:`cuda_device_test`: a test that holds only where a device is a CUDA device
  (``device == torch.device("cuda")``, ``device.type == "cuda"``, ``str(d) == "cuda:0"``).

>>> import ast
>>> template_name(ast.parse("'./{}/best_pred_run{}.pt'.format(d, n)", mode="eval").body)
'best_pred_run\\x00.pt'
>>> template_name(ast.parse("f'{root}/{name}.pt'", mode="eval").body) is None
True
>>> cpu_result(ast.parse("(pred.detach().cpu(), y.to('cpu'))", mode="eval").body, lambda n: False)
True
>>> cuda_device_test(ast.parse("device == torch.device('cuda')", mode="eval").body)
True
"""

from __future__ import annotations

import ast
import os
import string
from collections.abc import Callable

from torchferry.check.names import dotted

__all__ = ["cpu_result", "cuda_device_test", "template_name"]

#: stands for a replacement field in a template (no path holds a NUL character)
FIELD = "\x00"

#: methods that return a value on the receiver's device (or a host value: ``numpy``)
_KEEP_DEVICE = frozenset({"detach", "clone", "contiguous", "float", "half", "double", "long",
                          "int", "bool", "numpy", "tolist", "squeeze", "unsqueeze", "view",
                          "reshape", "flatten"})


def _format_template(fmt: str) -> str | None:
    """``"a{}b{x:3d}"`` as ``"a\\0b\\0"`` (``{{`` as ``{``); None when not a valid format."""
    try:
        parts = list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    return "".join(lit + (FIELD if field is not None else "") for lit, field, _, _ in parts)


def _joined_template(node: ast.JoinedStr) -> str | None:
    """An f-string's template: its literal parts, a field for each formatted value."""
    out = []
    for v in node.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            out.append(v.value)
        elif isinstance(v, ast.FormattedValue):
            out.append(FIELD)
        else:
            return None
    return "".join(out)


def template_name(node: ast.AST) -> str | None:
    """The last path component of the template a formatted path is built from
    (``"./{}/pred{}.pt".format(...)`` and ``f"{d}/pred{n}.pt"``: ``"pred\\0.pt"``), or None
    where it is not a template or the component's fixed text does not name a file: its
    stem (without the suffix) needs two letters or digits of its own (``f"{a}_{b}.pt"``
    names any ``.pt`` file)."""
    tpl: str | None = None
    if isinstance(node, ast.JoinedStr):
        tpl = _joined_template(node)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "format" and isinstance(node.func.value, ast.Constant) \
            and isinstance(node.func.value.value, str):
        tpl = _format_template(node.func.value.value)
    if tpl is None or FIELD not in tpl:
        return None
    last = tpl.replace("\\", "/").rsplit("/", 1)[-1]
    stem = os.path.splitext(last)[0].replace(FIELD, "")
    if sum(c.isalnum() for c in stem) < 2:
        return None
    return last


def _cpu_device(node: ast.AST) -> bool:
    """``"cpu"`` or ``torch.device("cpu")``."""
    if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("device") \
            and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    return isinstance(node, ast.Constant) and node.value == "cpu"


def cpu_result(node: ast.AST, leaf: Callable[[ast.expr], bool]) -> bool:
    """Is ``node``'s value on the CPU whatever it is made from: ``x.cpu()``, ``x.to("cpu")``
    (or ``device="cpu"``), a device-keeping method of such a value, or a tuple, list or
    dict of such values?  Any other part must satisfy ``leaf`` (the caller's own
    judgment: a value holding no tensor, a name bound to a CPU value)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(cpu_result(e, leaf) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and cpu_result(k, leaf) for k in node.keys) \
            and all(cpu_result(v, leaf) for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr = node.func.attr
        if attr == "cpu" and not node.args and not node.keywords:
            return True
        if attr == "to":
            given = [*node.args, *(k.value for k in node.keywords if k.arg == "device")]
            if len(given) == 1 and _cpu_device(given[0]):
                return True
        if attr in _KEEP_DEVICE and isinstance(node.func.value, ast.Call):
            return cpu_result(node.func.value, lambda n: False)
    return isinstance(node, ast.expr) and leaf(node)


def _cuda_device(node: ast.AST) -> bool:
    """A CUDA device literal: ``"cuda"``, ``"cuda:1"``, ``torch.device("cuda")``,
    ``torch.device("cuda", 0)``."""
    if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("device") \
            and 1 <= len(node.args) <= 2 and not node.keywords:
        node = node.args[0]
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    kind, _, index = node.value.partition(":")
    return kind == "cuda" and (index == "" or index.isdigit())


def cuda_device_test(test: ast.AST) -> bool:
    """Does ``test`` hold only where a device is a CUDA device: ``x == <CUDA device>``
    (either side), whatever ``x`` is (``device``, ``device.type``, ``str(device)``)?  Only
    a CUDA device (or its type or name) compares equal to one."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    return _cuda_device(test.left) or _cuda_device(test.comparators[0])
