"""``%load_ext torchferry`` in a real Jupyter kernel: what a notebook reader sees.

Each notebook is executed by nbclient in an ipykernel started from this
interpreter (a kernelspec written to a temporary ``JUPYTER_PATH``), so the
kernel runs the torchferry that the tests import.  The assertions read the
notebook's outputs as a front end receives them: streams, errors and the
``text/html`` / ``text/plain`` of displayed objects.  No shell is mocked.
"""

from __future__ import annotations

import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the dev extra")
nbclient = pytest.importorskip("nbclient", reason="nbclient is in the dev extra")
pytest.importorskip("ipykernel", reason="ipykernel is in the dev extra")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
KERNEL = "torchferry-test"


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """A kernelspec for this interpreter, found through JUPYTER_PATH; Jupyter's and IPython's
    directories in a temporary folder (nothing read from or written to the home directory)."""
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "torchferry test kernel",
        "language": "python",
    }))
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(base))
    mp.setenv("IPYTHONDIR", str(base / "ipython"))
    mp.setenv("JUPYTER_RUNTIME_DIR", str(base / "runtime"))  # connection files
    mp.setenv("JUPYTER_CONFIG_DIR", str(base / "config"))  # no user configuration
    mp.delenv("JPY_SESSION_NAME", raising=False)
    yield base
    mp.undo()


def execute(nb: Any, cwd: Path) -> Any:
    """Run every cell in a fresh kernel; a cell not tagged ``raises-exception`` must not fail."""
    client = nbclient.NotebookClient(
        nb, kernel_name=KERNEL, timeout=300, resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()
    return nb


class Raises(str):
    """A cell that is meant to fail (tagged ``raises-exception``, as nbclient reads it)."""


def notebook(*cells: str) -> Any:
    out = []
    for src in cells:
        cell = nbformat.v4.new_code_cell(str(src))
        if isinstance(src, Raises):
            cell.metadata["tags"] = ["raises-exception"]
        out.append(cell)
    return nbformat.v4.new_notebook(cells=out)


# ------------------------------------------------------------------ reading outputs
def stream(cell: Any, name: str = "stdout") -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == name)


def errors(cell: Any) -> list[tuple[str, str]]:
    return [(o.ename, o.evalue) for o in cell.outputs if o.output_type == "error"]


def rich(cell: Any) -> list[Any]:
    """The displayed objects (display_data and execute_result) of a cell, in order."""
    return [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")]


def html_of(cell: Any, css_class: str) -> list[str]:
    return [o.data["text/html"] for o in rich(cell)
            if css_class in o.data.get("text/html", "")]


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("div", "tr", "li", "br"):
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")


def visible(page: str) -> str:
    """What a browser shows of ``page``, one line per div / table row / list item."""
    p = _Text()
    p.feed(page)
    return re.sub(r"[ \t]+", " ", "".join(p.parts))


def rows(page: str) -> list[tuple[bool, list[str]]]:
    """(highlighted?, the visible text of each cell) of each table row."""
    out = []
    for m in re.finditer(r"<tr(?P<attrs>[^>]*)>(?P<body>.*?)</tr>", page, re.S):
        cells = [visible(c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", m["body"], re.S)]
        out.append(("background" in m["attrs"], cells))
    return out


def line_of(cell: Any, number: int) -> str:
    return cell.source.splitlines()[number - 1]


# ------------------------------------------------------------------ the example notebook
def test_example_notebook_prints_the_lessons_gpu_outputs_in_a_cpu_kernel(kernel_env, tmp_path):
    nb = execute(nbformat.read(ROOT / "examples" / "lesson_portable.ipynb", as_version=4), tmp_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not errors(c) for c in code)
    by_start = {c.source.splitlines()[0]: c for c in code}
    # the lesson's output, captured on a machine with an NVIDIA card, to the character
    assert stream(by_start["import torch"]) == (
        "using: cuda\ncpu\ncuda:0\ntensor([2., 2., 2.], device='cuda:0')\n[2. 2. 2.]\n"
    )
    assert stream(by_start["print(torch.cuda.is_available())   # True if a GPU is attached, else False"]) == (
        "True\ncuda\n"
    )
    assert stream(by_start["x = torch.rand(2, 3)"]) == "cpu\ncuda:0\n"
    assert stream(by_start["a = torch.rand(1000, 1000).to(device)   # noqa: FRY009 (the lesson's code)"]) == "cuda:0\n"
    assert stream(by_start["arr2[0] = 40.0"]) == "tensor([40.,  5.,  6.], dtype=torch.float64)\n"
    assert stream(by_start["score = torch.tensor(0.98)"]).splitlines()[1] == "2.0"
    # the training loop that follows the lesson's advice: rides per batch, no rule earned
    trips_cell = by_start["%%ferry_trips"]
    assert "epoch 1: mean loss" in stream(trips_cell)
    [page] = html_of(trips_cell, "torchferry-trips")
    table = rows(page)
    assert any(c[2:5] == ["h2d", "to", "40"] and "data[step].to(device)" in c[1] for _, c in table)
    assert "FRY007" not in page and "FRY008" not in page
    assert "simulated cuda off" in stream(code[-1]) or "real cuda device" in stream(code[0])


# ------------------------------------------------------------------ the lessons' mistakes
SETUP = """import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
features = torch.randn(256, 20)
targets = torch.randint(0, 4, (256,))
loader = DataLoader(TensorDataset(features, targets), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()"""

LABELS_LEFT_BEHIND = Raises("""for inputs, labels in loader:
    inputs = inputs.to(device)  # the inputs make the ferry ...
    loss = loss_fn(model(inputs), labels)  # ... the labels do not
    opt.zero_grad()
    loss.backward()
    opt.step()""")

MIXING = Raises("""a = torch.ones(3)
b = torch.ones(3, device="cuda")
print(a + b)""")

NUMPY = Raises("""y = torch.ones(3, device=device) * 2
y.numpy()""")

INSIDE_WITH = Raises("""import torchferry
with torchferry.simulate("cuda"):
    p = torch.ones(3)
    q = torch.ones(3, device="cuda")
    p + q""")

ITEM_EVERY_STEP = """%%ferry_trips
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.randn(20, 16, 32)  # 20 batches of 16 examples, still on the CPU
target = data.sum(-1, keepdim=True)
running = 0.0
for step in range(20):
    x, y = data[step].to(device), target[step].to(device)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()  # a host sync on every step
print(f"mean loss {running / 20:.3f}")"""


@pytest.fixture(scope="module")
def mistakes(kernel_env, tmp_path_factory):
    """The lessons' mistakes, run in one kernel on a session-wide simulated GPU."""
    nb = notebook(
        "%load_ext torchferry\n%ferry_simulate cuda",  # 0
        SETUP,  # 1
        LABELS_LEFT_BEHIND,  # 2
        MIXING,  # 3
        NUMPY,  # 4
        "%ferry_simulate",  # 5
        ITEM_EVERY_STEP,  # 6
        Raises("%%ferry_trips\n"
               "for inputs, labels in loader:\n    loss = loss_fn(inputs.to(device), labels)"),  # 7
        "%ferry_trips on",  # 8
        "for _ in range(3):\n    model.to(device)\n    print(torch.ones(2, device=device).sum().item())",  # 9
        "s = torch.ones(2) + 1  # no ride: no table",  # 10
        "%ferry_trips off",  # 11
        "for _ in range(3):\n    v = torch.ones(2, device=device).sum().item()",  # 12
        "%ferry_check",  # 13
        "%ferry_simulate off\nprint(torch.cuda.is_available())",  # 14
        INSIDE_WITH,  # 15
        Raises("%ferry_simulate gpu"),  # 16
        Raises("%ferry_trips sometimes"),  # 17
        "%ferry_simulate cuda\nmodel.to('cuda')\ntorch.save(model.state_dict(), 'ckpt.pt')  # a GPU checkpoint",  # 18
        "%ferry_simulate off",  # 19
        Raises("state = torch.load('ckpt.pt')  # on a CPU box"),  # 20
    )
    cwd = tmp_path_factory.mktemp("mistakes")
    # the lesson's project selects every rule: FRY001, FRY007 and FRY008 are opt-in
    (cwd / "pyproject.toml").write_text('[project]\nname = "lesson"\n[tool.torchferry]\nselect = ["ALL"]\n')
    return execute(nb, cwd).cells


def test_labels_left_behind_shows_the_html_explanation_naming_labels(mistakes):
    cell = mistakes[2]
    [(ename, evalue)] = errors(cell)
    assert ename == "RuntimeError"
    assert evalue.startswith("Expected all tensors to be on the same device, but got target is on cpu, "
                             "different from other tensors on cuda:0")
    # the explanation follows IPython's traceback, in the same cell
    kinds = [o.output_type for o in cell.outputs]
    assert kinds.index("error") < kinds.index("display_data")
    [page] = html_of(cell, "torchferry-explain")
    shown = visible(page)
    assert "torchferry explain: tensors on different devices (RuntimeError)" in shown
    assert "at In [3], line 3: loss = loss_fn(model(inputs), labels)" in shown
    culprit = [c for marked, c in rows(page) if marked]
    assert len(culprit) == 1 and culprit[0][1:5] == ["labels", "cpu", "int64", "[32]"]
    assert culprit[0][5] == "on cpu while the others are on cuda:0"
    assert ["model(inputs)", "cuda:0", "float32", "[32, 4]"] in [c[1:5] for marked, c in rows(page) if not marked]
    assert "labels was created at In [3], line 1: for inputs, labels in loader:" in shown
    assert line_of(cell, 1) == "for inputs, labels in loader:"
    assert "(PyTorch's message calls it target)" in shown
    assert "fix: labels = labels.to(device) (move it with the others)" in shown
    assert "rule: FRY013 partial-batch-move" in shown
    # front ends that keep only text get the plain report
    [plain] = [o.data["text/plain"] for o in rich(cell) if "torchferry-explain" in o.data["text/html"]]
    assert "> labels" in plain and "fix: labels = labels.to(device)" in plain


def test_the_lessons_mixing_and_numpy_mistakes_are_explained(mistakes):
    mixing, numpy = mistakes[3], mistakes[4]
    assert errors(mixing) == [("RuntimeError", "Expected all tensors to be on the same device, but found "
                                               "at least two devices, cuda:0 and cpu!")]
    shown = visible(html_of(mixing, "torchferry-explain")[0])
    assert [c[1] for marked, c in rows(html_of(mixing, "torchferry-explain")[0]) if marked] == ["a"]
    assert "a was created at In [4], line 1: a = torch.ones(3) (torch.ones(...) without device=)" in shown
    [(ename, evalue)] = errors(numpy)
    assert ename == "TypeError" and evalue.startswith("can't convert cuda:0 device type tensor to numpy")
    shown = visible(html_of(numpy, "torchferry-explain")[0])
    assert "on cuda:0: NumPy reads host memory only" in shown and "FRY003" in shown


def test_the_simulation_holds_across_cells_until_turned_off(mistakes):
    assert "simulated cuda on for this session (1 device: cuda:0)" in stream(mistakes[0])
    assert stream(mistakes[5]).startswith("torchferry: simulating cuda (1 device) since In [1]")
    off = stream(mistakes[14])
    assert "simulated cuda off" in off and off.endswith("False\n")


def test_ferry_trips_cell_shows_the_per_line_rides_of_a_training_cell(mistakes):
    cell = mistakes[6]
    assert not errors(cell)
    assert stream(cell).startswith("mean loss ")
    [page] = html_of(cell, "torchferry-trips")
    table = {c[0]: (marked, c[1:]) for marked, c in rows(page)[1:]}
    # lines numbered as the cell shows them (line 1 is %%ferry_trips)
    assert line_of(cell, 13).strip().startswith("running += loss.item()")
    marked, (source, kind, op, count, _bytes, rule) = table["In [7], line 13"]
    assert (marked, source, kind, op, count) == (True, "running += loss.item() # a host sync on every step",
                                                  "sync", "item", "20")
    assert rule == "FRY007 sync-in-loop"
    assert line_of(cell, 8).strip().startswith("x, y = data[step].to(device)")
    assert table["In [7], line 8"][1][1:4] == ["h2d", "to", "40"]
    assert table["In [7], line 2"][1][1:4] == ["module_move", "Module.to", "1"]
    shown = visible(page)
    assert ("In [7], line 13: a host sync (item) once per iteration of the loop at line 7 "
            "(for step in range(20):), 20 iterations.") in shown
    assert "fix: accumulate on the device (`total += loss.detach()`) and read once per epoch" in shown


def test_a_failing_ferry_trips_cell_fails_with_explanation_and_table(mistakes):
    cell = mistakes[7]
    [(ename, _)] = errors(cell)
    assert ename == "RuntimeError"
    kinds = [o.output_type for o in cell.outputs]
    assert kinds.index("error") < kinds.index("display_data")
    explained = visible(html_of(cell, "torchferry-explain")[0])
    assert "called from" not in explained  # not the magic's own line
    assert "at In [8], line 3: loss = loss_fn(inputs.to(device), labels)" in explained
    [page] = html_of(cell, "torchferry-trips")
    assert ["In [8], line 3", "h2d"] in [[c[0], c[2]] for _, c in rows(page)]


def test_ferry_trips_on_shows_the_table_after_each_cell_that_rode(mistakes):
    assert "torchferry trips: on" in stream(mistakes[8])
    [page] = html_of(mistakes[9], "torchferry-trips")
    table = {(c[0], c[3]): c for _, c in rows(page)[1:]}
    assert table["In [10], line 2", "Module.to"][-1] == "FRY008 move-in-loop"
    assert table["In [10], line 3", "item"][-1] == "FRY007 sync-in-loop"
    assert "fix: move the model once, before the loop" in visible(page)
    assert html_of(mistakes[10], "torchferry-trips") == []  # no ride, no table
    assert html_of(mistakes[12], "torchferry-trips") == []  # turned off


def test_ferry_check_names_the_cell_and_line_of_each_finding(mistakes):
    [page] = html_of(mistakes[13], "torchferry-check")
    found = {}
    for _, (where, rule, _finding, _code) in rows(page)[1:]:
        found.setdefault(rule.split()[0], []).append(where)
    # the labels that missed the ferry, and the sync inside the %%ferry_trips cell
    assert "In [3], line 3" in found["FRY013"]
    assert "In [7], line 13" in found["FRY007"]
    assert "In [10], line 2" in found["FRY008"]
    assert "In [4], line 2" in found["FRY001"]  # torch.ones(3, device="cuda")
    assert "ferry check:" in visible(page)


def test_a_with_simulate_block_inside_the_cell_is_explained_with_what_remains(mistakes):
    cell = mistakes[15]
    [(ename, evalue)] = errors(cell)
    assert ename == "RuntimeError" and "cuda:0 and cpu" in evalue
    shown = visible(html_of(cell, "torchferry-explain")[0])
    assert "the devices above were read after the simulation ended" in shown
    assert "%ferry_simulate cuda" in shown


def test_bad_magic_arguments_are_one_line_usage_errors(mistakes):
    err = stream(mistakes[16], "stderr")
    assert err.strip() == ("UsageError: %ferry_simulate: kind must be one of cuda, mps, xpu, not 'gpu' "
                           "(or off, to end the simulation)")
    assert stream(mistakes[17], "stderr").strip() == (
        "UsageError: %ferry_trips: expected on or off, not 'sometimes'")


def test_visible_reads_html_as_a_browser_shows_it():
    page = "<div><b>a &lt; b</b></div><table><tr><td>x</td><td>y</td></tr></table>"
    assert visible(page).strip().splitlines() == ["a < b", " | x | y"]
    assert rows(page) == [(False, ["x", "y"])]
    assert html.escape("<") == "&lt;"


def test_a_gpu_checkpoint_loaded_on_the_cpu_is_explained(mistakes):
    cell = mistakes[20]
    [(ename, evalue)] = errors(cell)
    assert ename == "RuntimeError"
    assert evalue.startswith("Attempting to deserialize object on a CUDA device but "
                             "torch.cuda.is_available() is False.")
    shown = visible(html_of(cell, "torchferry-explain")[0])
    assert "at In [21], line 1: state = torch.load('ckpt.pt') # on a CPU box" in shown
    assert "map_location='cpu'" in shown and "rule: FRY004 load-without-map-location" in shown
