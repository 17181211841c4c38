"""``%load_ext torchferry`` in a real IPython shell: explanations per cell, ``%ferry_check``."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import torch

IPython = pytest.importorskip("IPython", reason="IPython is in the dev extra")


@contextlib.contextmanager
def new_shell() -> Iterator[Any]:
    """A fresh IPython shell that keeps its history in memory (never the user's
    ``~/.ipython`` database) and is closed here, not at interpreter exit: IPython's exit
    handler resets every shell ever made, and each reset runs a full ``gc.collect()``
    (0.3-0.5 s with torch loaded), which made the test run's exit 4-8 s longer."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    ip = InteractiveShell.instance(config=config)
    try:
        yield ip
    finally:
        atexit.unregister(ip.atexit_operations)
        if ip.history_manager is not None:
            ip.history_manager.end_session()
            ip.history_manager.close()  # stops its saving thread
        InteractiveShell.clear_instance()


@pytest.fixture
def shell():
    with new_shell() as ip:
        ip.run_line_magic("load_ext", "torchferry")
        yield ip
        ip.run_line_magic("unload_ext", "torchferry")


@pytest.mark.slow
def test_device_error_in_a_cell_is_explained_after_ipythons_traceback(shell, capsys):
    shell.run_cell("import torch\nx = torch.ones(3).to('meta')", store_history=True)
    shell.run_cell("scale = torch.full((3,), 2.0)", store_history=True)
    capsys.readouterr()
    result = shell.run_cell("y = x * scale", store_history=True)
    assert type(result.error_in_exec) is RuntimeError  # the error is the user's, unchanged
    captured = capsys.readouterr()
    text = captured.out + captured.err
    tb = text.index("Tensor on device cpu is not on the expected device meta!")
    rep = text.index("torchferry explain: tensors on different devices")
    assert rep > tb
    report = text[rep:]
    assert "> scale" in report and "on cpu while the others are on meta" in report
    # recorded while the cell ran: the site of the cell that made it
    assert "scale was created at" in report and "torch.full(...) without device=" in report


def test_cells_without_device_errors_are_left_alone(shell, capsys):
    result = shell.run_cell("z = 1 / 0", store_history=True)
    assert type(result.error_in_exec) is ZeroDivisionError
    out = capsys.readouterr()
    assert "torchferry explain" not in out.out + out.err
    assert shell.run_cell("w = 2 + 2", store_history=True).result is None


EVERY_RULE = '[project]\nname = "lesson"\n[tool.torchferry]\nselect = ["ALL"]\n'


def test_ferry_check_shows_findings_of_this_sessions_cells(shell, capsys, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(EVERY_RULE)  # FRY004 is opt-in
    monkeypatch.chdir(tmp_path)
    shell.run_cell("import torch", store_history=True)
    shell.run_cell("state = None  # torch.load would go here", store_history=True)
    shell.run_cell("def f(p):\n    return torch.load(p)", store_history=True)
    capsys.readouterr()
    shell.run_line_magic("ferry_check", "")
    out = capsys.readouterr().out
    assert "In [3], line 2:12: FRY004" in out
    assert "    return torch.load(p)" in out
    assert out.rstrip().endswith("ferry check: 2 findings in 3 cells of this session")


def test_ferry_check_on_a_notebook_file(shell, tmp_path, capsys):
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
                     "source": "import torch\nx = torch.ones(2).cuda()\n"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps(nb))
    (tmp_path / "pyproject.toml").write_text(EVERY_RULE)  # FRY001 and FRY009 are opt-in
    shell.run_line_magic("ferry_check", str(path))
    out = capsys.readouterr().out
    assert f"{path}, cell 1, line 2:" in out and "FRY001" in out
    assert out.rstrip().endswith("ferry check: 2 findings in 1 file")


def test_unload_restores_everything():
    orig = torch.full
    with new_shell() as ip:
        ip.run_line_magic("load_ext", "torchferry")
        ip.run_cell("pass")
        ip.run_line_magic("unload_ext", "torchferry")
        assert "ferry_check" not in ip.magics_manager.magics["line"]
        assert torch.full is orig
        assert ip.custom_exceptions == ()


def test_extension_entry_points_live_in_the_package_namespace():
    import torchferry

    assert callable(torchferry.load_ipython_extension)
    assert callable(torchferry.unload_ipython_extension)


def test_ferry_check_of_a_missing_path_is_a_one_line_usage_error(shell, tmp_path):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match=r"^%ferry_check: .*nope\.ipynb: no such file or directory$"):
        shell.run_line_magic("ferry_check", str(tmp_path / "nope.ipynb"))


def test_ferry_simulate_in_a_terminal_shell_holds_across_cells(shell, capsys):
    from IPython.core.error import UsageError

    shell.run_line_magic("ferry_simulate", "cuda --count 2")
    assert "simulated cuda on for this session (2 devices: cuda:0 to cuda:1)" in capsys.readouterr().out
    try:
        shell.run_cell("import torch\nx = torch.ones(3).to('cuda:1')", store_history=True)
        shell.run_cell("y = torch.ones(3, device='cuda')", store_history=True)
        capsys.readouterr()
        result = shell.run_cell("z = x + y", store_history=True)
        assert type(result.error_in_exec) is RuntimeError
        captured = capsys.readouterr()
        assert "found at least two devices, cuda:1 and cuda:0!" in captured.out  # IPython's traceback
        # explained while the simulation is on: the simulated devices, as plain text on stderr
        report = captured.err[captured.err.index("torchferry explain"):]
        assert "x  cuda:1" in report and "y  cuda:0" in report
        with pytest.raises(UsageError, match="^%ferry_simulate: --count must be a positive integer, not '0'$"):
            shell.run_line_magic("ferry_simulate", "cuda --count 0")
        with pytest.raises(UsageError, match="^%ferry_simulate: a Mac has one MPS device; count must be 1"):
            shell.run_line_magic("ferry_simulate", "mps --count 2")
        with pytest.raises(UsageError, match="^%ferry_simulate: kind must be one of cuda, mps, xpu, not 'gpu'"):
            shell.run_line_magic("ferry_simulate", "gpu")
        assert torch.cuda.device_count() == 2  # a typo leaves the simulation on
    finally:
        shell.run_line_magic("ferry_simulate", "off")
    assert shell.run_cell("torch.cuda.is_available()").result is False


def test_ferry_trips_cell_magic_in_a_terminal_shell_prints_the_table(shell, capsys):
    shell.run_line_magic("ferry_simulate", "cuda")
    try:
        shell.run_cell("import torch", store_history=True)
        capsys.readouterr()
        result = shell.run_cell(
            "%%ferry_trips\nt = torch.ones(4, device='cuda')\nfor _ in range(4):\n    v = t.sum().item()\nv",
            store_history=True,
        )
        assert result.result == 4.0  # the last expression is the cell's value
        out = capsys.readouterr().out
        assert "torchferry trips (simulated accelerator" in out
        assert "FRY007 sync-in-loop" in out
        assert ":4: a host sync (item) once per iteration of the loop at line 3" in out
    finally:
        shell.run_line_magic("ferry_simulate", "off")


def test_unload_ends_the_session_simulation():
    with new_shell() as ip:
        ip.run_line_magic("load_ext", "torchferry")
        ip.run_line_magic("ferry_simulate", "cuda")
        assert torch.cuda.is_available()
        ip.run_line_magic("unload_ext", "torchferry")
        assert not torch.cuda.is_available()
        assert "ferry_trips" not in ip.magics_manager.magics["cell"]


def test_ferry_simulate_on_a_runtime_with_that_device_uses_it(shell, capsys, monkeypatch):
    # a Colab GPU runtime: the same notebook runs on the real GPU, nothing is simulated
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "Tesla T4")
    shell.run_line_magic("ferry_simulate", "cuda")
    out = capsys.readouterr().out
    assert out.strip() == ("torchferry: this runtime has a real cuda device (Tesla T4): the session "
                           "runs on it; nothing is simulated")
    from torchferry.sim import is_active

    assert not is_active()


def test_places_in_cells_are_named_as_ipython_numbers_them(shell):
    from torchferry.diagnose.ipython import _STATE

    session = _STATE[id(shell)]
    shell.run_cell("import torch\nx = 1", store_history=True)
    [(name, number)] = [(n, k) for n, k in shell.compile._filename_map.items()
                        if "x = 1" in "".join(__import__("linecache").getlines(n))]
    assert session.where(name, 2) == f"In [{number}], line 2"
    assert session.where("<ipython-input-7-0123abcd>", 3) == "In [7], line 3"  # IPython 7 (Colab)
    assert session.where(__file__, 5).endswith("test_ipython.py:5")


def test_the_example_notebook_is_clean_for_ferry_check():
    from pathlib import Path

    from torchferry.check import check_cells

    nb = json.loads((Path(__file__).parents[2] / "examples" / "lesson_portable.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert any(c.startswith("%%ferry_trips") for c in cells)
    assert check_cells(cells) == []


def test_switching_the_simulation_mid_cell_keeps_counting_trips(shell, capsys):
    shell.run_line_magic("ferry_trips", "on")
    try:
        shell.run_cell("import torch", store_history=True)
        capsys.readouterr()
        # the session's counter is open when the simulation starts: it is closed and
        # reopened around the switch (trips must enter after the simulation)
        result = shell.run_cell(
            "%ferry_simulate cuda\nu = torch.ones(2).to('cuda')\nfor _ in range(3):\n    v = u.sum().item()",
            store_history=True,
        )
        assert result.error_in_exec is None
        out = capsys.readouterr().out
        assert "simulated accelerator" in out and "FRY007 sync-in-loop" in out
        assert out.count("torchferry trips (") == 1
        # %%ferry_trips while the session's trips are on: one table, not two
        shell.run_cell("%%ferry_trips\nw = u.sum().item()", store_history=True)
        assert capsys.readouterr().out.count("torchferry trips (") == 1
        shell.run_line_magic("ferry_simulate", "off")
        shell.run_cell("z = torch.ones(2) * 2", store_history=True)  # no ride: no table
        assert "torchferry trips (" not in capsys.readouterr().out
    finally:
        shell.run_line_magic("ferry_trips", "off")
        shell.run_line_magic("ferry_simulate", "off")


def test_ferry_check_checks_the_notebook_jupyter_names(shell, tmp_path, capsys, monkeypatch):
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# lesson"},
                    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
                     "source": "import torch\nstate = torch.load('m.pt', map_location='cpu')\n"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps(nb))
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))  # what Jupyter Server tells its kernels
    # a kernel runs in the notebook's folder; without this the repository's own pyproject
    # (torch>=2.8: weights_only=True is the default there) would be the project, FRY005 quiet
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(EVERY_RULE)  # FRY005 is opt-in
    shell.run_line_magic("ferry_check", "")
    out = capsys.readouterr().out
    assert "lesson.ipynb, cell 2, line 2:" in out and "FRY005" in out  # cells as Jupyter counts


@pytest.mark.slow
def test_simulation_first_imported_while_the_notebook_counts_trips(tmp_path):
    # %ferry_trips on: each cell's counter wraps Tensor.to & co. while the cell runs.  A cell
    # that imports the simulation then imports it under those wrappers; its handlers are keyed
    # on torch's own methods (sim/modes.py _own), so %ferry_simulate in a later cell works.
    # (The counter used to import the simulation before counting, a workaround for the time
    # sim/modes.py keyed its handlers on what Tensor held at import.)
    script = tmp_path / "session.py"
    script.write_text(
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'torchferry')\n"
        "ip.run_line_magic('ferry_trips', 'on')\n"
        "ip.run_cell('import torch', store_history=True)\n"
        "assert 'torchferry.sim.modes' not in sys.modules, 'counting imported the simulation'\n"
        "ip.run_cell('from torchferry import simulate', store_history=True)\n"
        "assert 'torchferry.sim.modes' in sys.modules\n"
        "r = ip.run_cell(\"%ferry_simulate cuda\\nu = torch.ones(2).to('cuda')\\n"
        "for _ in range(3):\\n    v = u.sum().item()\\nprint('result:', u + 1, v)\", "
        "store_history=True)\n"
        "assert r.error_in_exec is None, r.error_in_exec\n"
        "ip.run_line_magic('ferry_trips', 'off')\n"
        "ip.run_line_magic('ferry_simulate', 'off')\n"
    )
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}  # not the user's history
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "result: tensor([2., 2.], device='cuda:0') 2.0" in r.stdout
    assert "torchferry trips (simulated accelerator" in r.stdout
    assert "FRY007 sync-in-loop" in r.stdout


def test_the_example_notebooks_first_cell_in_a_runtime_without_torchferry(tmp_path, monkeypatch):
    """A fresh runtime (Colab) has no torchferry, and PyPI has none: the first cell asks for
    the wheel in one sentence, then installs the wheel it finds in the working directory."""
    import importlib.util
    from pathlib import Path

    from IPython.core.inputtransformer2 import TransformerManager

    nb = json.loads((Path(__file__).parents[2] / "examples" / "lesson_portable.ipynb").read_text())
    first = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    code = TransformerManager().transform_cell(first)
    calls: list[tuple[str, str]] = []

    class Shell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torchferry" else real(name, *a))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"^upload torchferry-<version>-py3-none-any\.whl"):
        exec(code, {"get_ipython": Shell})
    assert calls == []  # nothing installed, no extension loaded
    (tmp_path / "torchferry-0.1.0-py3-none-any.whl").write_bytes(b"")
    ns = {"get_ipython": Shell}
    exec(code, ns)
    assert ns["wheels"] == ["torchferry-0.1.0-py3-none-any.whl"]
    assert calls == [("pip", "install --quiet {wheels[-1]}"), ("load_ext", "torchferry"),
                     ("ferry_simulate", "cuda")]
