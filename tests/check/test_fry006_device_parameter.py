"""A move to (or a factory on) a device parameter lands wherever each call points the
parameter: a call given the CPU times host work, one given an accelerator (or a device the
analysis cannot place) times device work.  And a module built on the CPU, never moved and
given CPU tensors, runs on the CPU."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from torchferry.check.flow import analyze
from torchferry.check.flow.lattice import Where
from torchferry.check.flow.queries import may_live_on_device, value_of
from torchferry.check.runner import Options, check_paths

HELPERS = (
    "import time\n"
    "import torch\n"
    "\n"
    "\n"
    "def flip(images, device):\n"
    "    images = images.to(device)\n"
    "    return images.flip([3]) * 0.5\n"
    "\n"
    "\n"
    "def noise(n, device='cpu'):\n"
    "    return torch.randn(n, n, device=device) * 2\n"
    "\n"
    "\n"
)


def _lines(tmp_path: Path, name: str, text: str) -> list[tuple[int | None, int]]:
    (tmp_path / name).write_text(text)
    opts = Options(root=tmp_path, select=("FRY006",), target_torch_version=None)
    return [(d.cell, d.line) for o in check_paths([tmp_path / name], opts, jobs=1)
            for d in o.diagnostics]


def test_a_name_rebound_from_the_cpu_to_cuda_times_host_work_then_device_work(tmp_path: Path) -> None:
    src = HELPERS + (
        "device = 'cpu'\n"                                  # 14
        "t0 = time.perf_counter()\n"
        "a = flip(torch.ones(2, 3, 4, 4), device)\n"
        "print('cpu', time.perf_counter() - t0)\n"           # 17: the CPU run
        "device = 'cuda'\n"
        "t0 = time.perf_counter()\n"
        "a = flip(torch.ones(2, 3, 4, 4), device)\n"
        "print('cuda', time.perf_counter() - t0)\n"          # 21: reported
    )
    assert _lines(tmp_path, "rebound.py", src) == [(None, 21)]


def test_a_default_device_parameter_is_where_the_default_points(tmp_path: Path) -> None:
    src = HELPERS + (
        "t0 = time.time()\n"                                # 14
        "a = noise(64)\n"
        "print('default', time.time() - t0)\n"               # 16: the default, the CPU
        "t0 = time.time()\n"
        "a = noise(64, torch.device('cuda:0'))\n"
        "print('given', time.time() - t0)\n"                 # 19: reported
        "t0 = time.time()\n"
        "a = noise(64, device=args_device)\n"
        "print('unknown', time.time() - t0)\n"               # 22: a device the code chose
    )
    assert _lines(tmp_path, "defaults.py", "args_device = input()\n" + src) == [(None, 20), (None, 23)]


def test_a_notebook_cell_on_the_cpu_before_a_cell_on_the_gpu(tmp_path: Path) -> None:
    cells = [
        HELPERS + "device = torch.device('cpu')\n",
        "start = time.time()\nx = flip(torch.ones(2, 3, 4, 4), device)\nend = time.time()\nprint(end - start)\n",
        "device = torch.device('cuda')\n",
        "start = time.time()\nx = flip(torch.ones(2, 3, 4, 4), device)\nend = time.time()\nprint(end - start)\n",
    ]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": c} for c in cells],
          "metadata": {"kernelspec": {"language": "python", "name": "python3", "display_name": "Python 3"}},
          "nbformat": 4, "nbformat_minor": 5}
    assert _lines(tmp_path, "timing.ipynb", json.dumps(nb)) == [(4, 3)]


def test_inside_the_function_the_moved_tensor_may_be_on_the_device() -> None:
    src = HELPERS + "a = flip(torch.ones(2, 3, 4, 4), torch.device('cpu'))\n"
    tree = ast.parse(src)
    ff = analyze(tree, "<flip>")
    ret = next(n for n in ast.walk(tree) if isinstance(n, ast.Return))
    assert may_live_on_device(ff, ret.value)  # a caller may point ``device`` at an accelerator
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "flip")
    found = value_of(ff, call)
    assert found is not None and found[1].only(Where.CPU)


def test_a_module_built_on_the_cpu_and_given_cpu_tensors_runs_there(tmp_path: Path) -> None:
    src = (
        "import time\n"
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class Jitter(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * torch.rand(x.shape[0], 1, device=x.device)\n"
        "\n"
        "\n"
        "net = nn.Sequential(Jitter())\n"                   # 11
        "x = torch.ones(8, 4).to(torch.device('cpu'))\n"
        "start = time.time()\n"
        "y = net(x)\n"
        "print(time.time() - start)\n"                      # 15: the CPU
        "start = time.time()\n"
        "y = Jitter()(x)\n"
        "print(time.time() - start)\n"                      # 18: the CPU
        "net = net.cuda()\n"
        "x = x.cuda()\n"
        "start = time.time()\n"
        "y = net(x)\n"
        "print(time.time() - start)\n"                      # 23: reported
        "\n"
        "\n"
        "def bench(model, x):\n"
        "    start = time.time()\n"
        "    y = model(x)\n"
        "    print(time.time() - start)\n"                  # 29: a module of unknown place
    )
    assert _lines(tmp_path, "host.py", src) == [(None, 23), (None, 29)]
