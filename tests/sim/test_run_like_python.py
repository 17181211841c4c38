"""``ferry run`` treats the script's arguments, its path, pipes and Ctrl-C exactly as
``python SCRIPT`` does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

import torchferry

pytestmark = pytest.mark.slow  # every test starts python and ferry run processes

FERRY = [sys.executable, "-m", "torchferry", "run"]
# our own frames would name files in the torchferry package (a venv path may contain
# the word "torchferry" itself, so look for the package's directory)
OURS = os.path.dirname(os.path.abspath(torchferry.__file__))
SHOW = "import sys; print(repr(sys.argv)); print(__file__)\n"


def _both(tmp_path, ferry_args, python_args, **kw):
    ours = subprocess.run(FERRY + ferry_args, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, **kw)  # fmt: skip
    theirs = subprocess.run([sys.executable, *python_args], cwd=tmp_path, capture_output=True,
                            text=True, timeout=600, **kw)  # fmt: skip
    return ours, theirs


@pytest.mark.parametrize(
    "args",
    [["s.py", "--", "--x"], ["s.py", "a", "--", "b"], ["s.py", "--help"], ["s.py"]],
)
def test_arguments_and_file_as_python_gives_them(tmp_path, args):
    (tmp_path / "s.py").write_text(SHOW)
    ours, theirs = _both(tmp_path, args, args)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout  # argv[0] as given, __file__ absolute
    assert str(tmp_path / "s.py") in ours.stdout


def test_module_arguments_keep_the_double_dash(tmp_path):
    (tmp_path / "s.py").write_text(SHOW)
    ours, theirs = _both(tmp_path, ["-m", "s", "--", "--q"], ["-m", "s", "--", "--q"])
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


@pytest.mark.parametrize("name", ["pkg", "pkg.sub"])
def test_a_package_in_the_current_directory_runs_as_with_python_m(tmp_path, name):
    main = "import sys; print(repr(sys.argv[1:]), sys.path[0] == __import__('os').getcwd())\n"
    for d in ("pkg", "pkg/sub"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "__init__.py").write_text("")
        (tmp_path / d / "__main__.py").write_text(main)
    # the console script: `python -m torchferry` itself puts the current directory on sys.path
    ferry = [os.path.join(os.path.dirname(sys.executable), "ferry"), "run"]
    ours = subprocess.run([*ferry, "-m", name, "a"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    theirs = subprocess.run([sys.executable, "-m", name, "a"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout == "['a'] True\n"


def test_a_missing_module_is_named_once(tmp_path):
    ferry = [os.path.join(os.path.dirname(sys.executable), "ferry"), "run"]
    r = subprocess.run([*ferry, "-m", "no_such_module_here"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)  # fmt: skip
    assert r.returncode == 2
    assert r.stderr == "ferry run: error: no module named 'no_such_module_here'\n"


def test_ferry_options_before_the_script_still_work(tmp_path):
    (tmp_path / "s.py").write_text(SHOW)
    ours = subprocess.run(FERRY + ["--simulate", "cuda", "s.py", "--trips"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert ours.returncode == 0 and "'--trips'" in ours.stdout, ours.stderr


def test_dev_stdin_runs_the_script(tmp_path):
    code = "import sys; print('ran', __file__, sys.argv[1:])\n"
    ours, theirs = _both(tmp_path, ["/dev/stdin", "x"], ["/dev/stdin", "x"], input=code)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout == "ran /dev/stdin ['x']\n"


def test_process_substitution_runs_the_script(tmp_path):
    cmd = " ".join(FERRY) + " <(printf 'print(\"ran\")\\n')"
    res = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert res.returncode == 0 and res.stdout == "ran\n", res.stderr


def test_a_syntax_error_shows_no_runpy_frames(tmp_path):
    (tmp_path / "syn.py").write_text("x = (\n")
    ours, theirs = _both(tmp_path, ["syn.py"], ["syn.py"])
    assert ours.returncode == theirs.returncode == 1
    assert "runpy" not in ours.stderr and OURS not in ours.stderr
    assert ours.stderr == theirs.stderr


@pytest.mark.parametrize("simulate", [[], ["--simulate", "cuda"]])
def test_keyboard_interrupt_dies_by_sigint_like_python(tmp_path, simulate):
    (tmp_path / "sl.py").write_text("import time\nprint('go', flush=True)\ntime.sleep(60)\n")

    def run(cmd):
        p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True,  # fmt: skip
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert p.stdout.readline() == "go\n"
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=600)
        return p.returncode, err

    rc, err = run(FERRY + simulate + ["sl.py"])
    prc, perr = run([sys.executable, "sl.py"])
    assert rc == prc == -signal.SIGINT
    for text in (err, perr):  # python's traceback (the line hit may differ), nothing of ours
        assert text.startswith("Traceback (most recent call last):\n")
        assert f'File "{tmp_path / "sl.py"}"' in text and text.endswith("KeyboardInterrupt\n")
    assert OURS not in err and "interrupted" not in err


def test_simulated_traceback_has_no_handle_torch_function_frame(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "ln.py").write_text(
        "import torch\nimport torch.nn.functional as F\n"
        "F.layer_norm(torch.zeros(1, 2).cuda(), (2,), weight=torch.ones(2))\n"
    )
    res = subprocess.run(FERRY + ["--simulate", "cuda", "ln.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert res.returncode == 1
    assert "Expected all tensors to be on the same device" in res.stderr
    assert "overrides.py" not in res.stderr and OURS not in res.stderr.split(
        "torchferry explain")[0]  # fmt: skip


def test_pytest_hides_the_simulation_frames(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "test_mix.py").write_text(
        "import torch\n\ndef test_mix():\n"
        "    x = torch.zeros(2, device='cuda')\n    y = torch.zeros(2)\n    x + y\n"
    )
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--ferry-simulate", "cuda", "test_mix.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 1 and "Expected all tensors to be on the same device" in res.stdout
    assert "modes.py" not in res.stdout and "with_traceback" not in res.stdout, res.stdout


def test_dotdot_after_a_symlinked_directory_runs_the_script_python_runs(tmp_path):
    """lnk -> runs/7: python runs runs/train.py for lnk/../train.py (the kernel resolves
    ".." after the link), with that directory first on sys.path."""
    (tmp_path / "runs" / "7").mkdir(parents=True)
    (tmp_path / "lnk").symlink_to("runs/7")
    show = "import sys; print('{}', __file__, sys.path[0], sys.argv[0])\n"
    (tmp_path / "runs" / "train.py").write_text(show.format("runs/train.py"))
    (tmp_path / "train.py").write_text(show.format("the other train.py"))
    ours, theirs = _both(tmp_path, ["lnk/../train.py"], ["lnk/../train.py"])
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    assert ours.stdout.startswith("runs/train.py ")


def test_the_scripts_excepthook_is_called(tmp_path):
    (tmp_path / "s.py").write_text(
        "import sys\n"
        "sys.excepthook = lambda t, v, tb: print('hook:', t.__name__, v, file=sys.stderr)\n"
        "raise ValueError('boom')\n"
    )
    ours, theirs = _both(tmp_path, ["s.py"], ["s.py"])
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr == theirs.stderr == "hook: ValueError boom\n"


def test_a_failing_excepthook_is_reported_as_python_does(tmp_path):
    (tmp_path / "s.py").write_text(
        "import sys\n"
        "def hook(t, v, tb):\n    raise RuntimeError('hook broke')\n"
        "sys.excepthook = hook\n"
        "raise ValueError('boom')\n"
    )
    ours, theirs = _both(tmp_path, ["s.py"], ["s.py"])
    assert ours.returncode == theirs.returncode == 1
    for text in (ours.stderr, theirs.stderr):
        assert text.startswith("Error in sys.excepthook:")
        assert "RuntimeError: hook broke" in text and "\nOriginal exception was:\n" in text
        assert text.rstrip().endswith("ValueError: boom")


@pytest.mark.parametrize("how", [["s.py"], ["-m", "s"], ["pkg"]])
def test_builtins_is_the_module_under_main(tmp_path, how):
    """The `__builtins__.profile = ...` shim scripts use for line_profiler (a script, a
    module, a directory with a __main__.py)."""
    code = (
        "__builtins__.profile = lambda f: f\n"
        "@profile\ndef f():\n    return 1\n"
        "print(type(__builtins__).__name__, f())\n"
    )
    (tmp_path / "s.py").write_text(code)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__main__.py").write_text(code)
    ours, theirs = _both(tmp_path, how, how)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout == "module 1\n"


def test_the_scripts_excepthook_sees_the_traceback_python_would_give_it(tmp_path):
    """torch.distributed installs such a hook (it prefixes [rankN]:); under the simulation
    it must print the user's frames only, with the chained exception's too."""
    (tmp_path / "s.py").write_text(
        "import sys, traceback\n"
        "sys.excepthook = lambda t, v, tb: traceback.print_exception(t, v, tb)\n"
        "import torch\n"
        "def f():\n"
        "    try:\n        {}['k']\n"
        "    except KeyError as e:\n"
        "        raise ValueError('boom') from e\n"
        "f()\n"
    )
    ours, theirs = _both(tmp_path, ["--simulate", "cuda", "s.py"], ["s.py"])
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr == theirs.stderr, ours.stderr


def _notebook(*cells, language="python"):
    import json

    code = [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [],
             "execution_count": None} for c in cells]  # fmt: skip
    return json.dumps({"cells": [*code, {"cell_type": "markdown", "source": "# x", "metadata": {}}],
                       "metadata": {"language_info": {"name": language}},
                       "nbformat": 4, "nbformat_minor": 5})  # fmt: skip


def test_a_notebook_runs_its_code_cells_in_order(tmp_path):
    (tmp_path / "nb.ipynb").write_text(_notebook(
        "import sys\nx = 40\n", "print(x + 2, sys.argv[1:], __name__)\n", "raise ValueError('c3')\n"))
    res = subprocess.run(FERRY + ["nb.ipynb", "a"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert res.returncode == 1
    assert res.stdout == "42 ['a'] __main__\n"
    assert f'File "{tmp_path / "nb.ipynb"}:cell 3", line 1' in res.stderr
    assert "raise ValueError('c3')" in res.stderr and res.stderr.endswith("ValueError: c3\n")


@pytest.mark.parametrize(("cells", "language", "needle"), [
    (["%pip install x\n"], "python", "cell 1, line 1 is IPython syntax (%pip install x)"),
    (["print(1)\n"], "R", "the notebook's language is R"),
])
def test_a_notebook_python_cannot_run_is_refused_in_one_line(tmp_path, cells, language, needle):
    (tmp_path / "nb.ipynb").write_text(_notebook(*cells, language=language))
    res = subprocess.run(FERRY + ["nb.ipynb"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("ferry run: error: nb.ipynb: ") and needle in res.stderr
    assert len(res.stderr.splitlines()) == 1
