"""Findings inside an arm that no call of the run takes: the arm's test reads only
parameters that every call leaves at their constant defaults (``if dtype == "numpy":`` of
``def get_grid(h, w, dtype="torch")`` called ``get_grid(h, w)``, or not called at all), so
what the rule would say there holds only on a path the run never reaches.  Reported as
soon as one call passes the parameter, spreads ``*args``/``**kw``, the function is handed
on as a value, or the body rebinds the parameter."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow import analyze
from torchferry.check.flow.untaken import defaults_left, untaken_arm
from torchferry.check.runner import Options, check_paths

GRID = '''
import torch

def get_grid(h, w, dtype="torch", device="cuda"):
    grid = torch.zeros(h, w, device=device)
    if dtype == "numpy":
        grid = grid.numpy()
    return grid
'''
NUMPY_LINE = 7

ENCODER = '''
import torch

class Encoder:
    def __init__(self, device):
        self.device = device
        self.net = torch.nn.Linear(2, 2).to(device)

    def encode(self, texts, to_tensor=True):
        out = self.net(torch.ones(2).to(self.device))
        if not to_tensor:
            out = out.numpy()
        return out

def main():
    e = Encoder("cuda")
    return e.encode(["a"])
'''


def lines(src: str, select: str = "FRY003") -> list[int]:
    return [d.line for d in check_source(src, "t.py", select=(select,))]


def test_an_arm_of_a_default_no_call_passes_is_quiet() -> None:
    assert lines(GRID + "\nget_grid(2, 2)\n") == []


def test_a_function_no_call_of_the_run_reaches_is_reported() -> None:
    # (its callers are outside the run: they may pass anything)
    assert lines(GRID) == [NUMPY_LINE]


def test_a_call_that_passes_the_parameter_is_reported() -> None:
    assert lines(GRID + "\nget_grid(2, 2, 'numpy')\n") == [NUMPY_LINE]
    assert lines(GRID + "\nget_grid(2, 2, dtype='numpy')\n") == [NUMPY_LINE]


@pytest.mark.parametrize("call", ["get_grid(2, 2, **opts)", "get_grid(*args)"])
def test_a_call_that_spreads_its_arguments_is_reported(call: str) -> None:
    assert lines(GRID + f"\nopts, args = {{}}, []\n{call}\n") == [NUMPY_LINE]


def test_a_function_handed_on_as_a_value_is_reported() -> None:
    assert lines(GRID + "\nget_grid(2, 2)\nmakers = [get_grid]\n") == [NUMPY_LINE]


def test_a_parameter_the_body_rebinds_is_reported() -> None:
    src = GRID.replace('    grid = torch.zeros', '    dtype = dtype.lower()\n    grid = torch.zeros')
    assert lines(src + "\nget_grid(2, 2)\n") == [NUMPY_LINE + 1]


def test_a_test_that_reads_anything_else_is_reported() -> None:
    src = GRID.replace('if dtype == "numpy":', 'if dtype == "numpy" or FORMAT:')
    assert lines("FORMAT = True\n" + src + "\nget_grid(2, 2)\n") == [NUMPY_LINE + 1]


def test_the_arm_the_default_takes_is_reported() -> None:
    src = GRID.replace('dtype="torch"', 'dtype="numpy"')
    assert lines(src + "\nget_grid(2, 2)\n") == [NUMPY_LINE]


def test_a_method_every_call_leaves_at_its_default() -> None:
    assert lines(ENCODER) == []
    assert lines(ENCODER.replace('e.encode(["a"])', 'e.encode(["a"], to_tensor=False)')) == [12]


ALIASED = ENCODER.replace("    def encode(self, texts, to_tensor=True):", """    def pick(self):
        self.encode = self.llama_encode

    def llama_encode(self, texts, to_tensor=True):""").replace(
    'e = Encoder("cuda")', 'e = Encoder("cuda")\n    e.pick()')


def test_a_method_bound_to_an_attribute_is_called_through_it() -> None:
    assert lines(ALIASED) == []
    assert lines(ALIASED.replace('e.encode(["a"])', 'e.encode(["a"], False)')) == [15]
    assert lines(ALIASED.replace('e.encode(["a"])', 'e.encode(["a"], to_tensor=False)')) == [15]
    # (read as a value elsewhere: its calls are not all known)
    assert lines(ALIASED + "\nfns = [Encoder('cpu').encode]\n") == [15]


def test_a_conditional_expression_arm() -> None:
    src = '''
import torch

def home(x, as_array=False):
    y = x.cuda()
    return y.numpy() if as_array else y

home(torch.ones(2))
'''
    assert lines(src) == []
    assert lines(src.replace("home(torch.ones(2))", "home(torch.ones(2), True)")) == [6]


def test_another_file_that_passes_the_parameter(tmp_path: Path) -> None:
    files = {
        "grid.py": GRID,
        "main.py": "from grid import get_grid\n\nprint(get_grid(2, 2))\n",
    }
    assert found(tmp_path, files) == []
    files["main.py"] = "from grid import get_grid\n\nprint(get_grid(2, 2, dtype='numpy'))\n"
    assert found(tmp_path, files) == [("grid.py", NUMPY_LINE, "FRY003")]


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    paths = sorted(root.rglob("*.py"))
    opts = Options(root=root, select=("FRY003",), target_torch_version=None)
    return sorted((Path(o.path).name, d.line, d.code)
                  for o in check_paths(paths, opts, cache=None, jobs=1) for d in o.diagnostics)


def test_defaults_left_names_the_parameters_no_call_binds() -> None:
    tree = ast.parse(GRID + "\nget_grid(2, 2, device='cpu')\n")
    ff = analyze(tree, "t.py")
    list(ff.results())
    fn = tree.body[1]
    assert isinstance(fn, ast.FunctionDef)
    assert defaults_left(ff, fn) == {"dtype": "torch"}
    assert untaken_arm(ff, tree, NUMPY_LINE) is not None
    assert untaken_arm(ff, tree, NUMPY_LINE - 2) is None  # (before the ``if``)


def test_an_opt_in_rule_still_reports_the_arm() -> None:
    # (a timing arm behind a flag the script leaves off: the user flips it by hand)
    src = """
import time
import torch

def predict(model, x, test=False):
    if test:
        t0 = time.time()
        out = model(x)
        print(time.time() - t0)

model = torch.nn.Linear(2, 2).cuda()
predict(model, torch.ones(2).cuda())
"""
    assert lines(src, "FRY006") == [9]
