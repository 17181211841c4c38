"""``ferry run`` runs a script as python would; bad input is one line and exit 2."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from torchferry.cli import main
from torchferry.errors import UsageError
from torchferry.sim.runner import run_path

pytestmark = pytest.mark.slow  # starts processes / runs whole programs


def _script(tmp_path, body, name="script.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def test_main_name_argv_and_script_dir_on_path(tmp_path, capsys):
    (tmp_path / "helper_mod_for_ferry.py").write_text("VALUE = 42\n")
    s = _script(
        tmp_path,
        """
        import sys
        import helper_mod_for_ferry
        print(__name__, sys.argv[1:], helper_mod_for_ferry.VALUE)
        """,
    )
    argv_before, path_before = sys.argv[:], sys.path[:]
    assert main(["run", str(s), "a", "--flag", "-x"]) == 0
    assert capsys.readouterr().out == "__main__ ['a', '--flag', '-x'] 42\n"
    assert sys.argv == argv_before and sys.path == path_before
    sys.modules.pop("helper_mod_for_ferry", None)


def test_sys_exit_code_is_returned(tmp_path):
    assert main(["run", str(_script(tmp_path, "import sys; sys.exit(7)"))]) == 7
    assert main(["run", str(_script(tmp_path, "raise SystemExit"))]) == 0


def test_sys_exit_message_prints_and_exits_1(tmp_path, capsys):
    assert main(["run", str(_script(tmp_path, "raise SystemExit('bye')"))]) == 1
    assert capsys.readouterr().err == "bye\n"


def test_uncaught_exception_prints_traceback_and_exits_1(tmp_path, capsys):
    s = _script(tmp_path, "def f():\n    raise ValueError('nope')\nf()\n")
    assert main(["run", str(s)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):\n")
    assert f'File "{s}", line 3, in <module>' in err
    assert err.rstrip().endswith("ValueError: nope")
    assert "runpy" not in err


def test_syntax_error_in_script(tmp_path, capsys):
    s = _script(tmp_path, "def (:\n")
    assert main(["run", str(s)]) == 1
    assert "SyntaxError" in capsys.readouterr().err


def test_missing_script_is_one_line_exit_2(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such script" in err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["run", "--simulate", "tpu", "x.py"], "invalid choice"),
        (["run", "--simulate", "cuda", "--device-count", "0", "x.py"], "at least 1"),
        (["run", "--simulate", "cuda", "--device-count", "two", "x.py"], "not a whole number"),
        (["run", "--device-count", "2", "x.py"], "needs --simulate"),
        (["run"], "give a SCRIPT"),
        (["run", "-m"], "-m needs a MODULE"),
        (["run", "-m", "no_such_module_for_ferry"], "no module named"),
    ],
)
def test_bad_options_are_one_line_exit_2(argv, needle, capsys):
    with pytest.raises(SystemExit) as info:
        code = main(argv)
        raise SystemExit(code)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_module_mode_passes_everything_after_m(tmp_path, capsys, monkeypatch):
    pkg = tmp_path / "ferrypkg_run"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text("import sys\nprint(__name__, sys.argv[1:])\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "-m", "ferrypkg_run", "--help", "x"]) == 0
    assert capsys.readouterr().out == "__main__ ['--help', 'x']\n"


def test_module_in_the_current_directory_is_found_like_python_m(tmp_path):
    """`ferry run -m mod` finds mod.py in the current directory, as `python -m mod` does, even
    when nothing else put that directory on sys.path (the `ferry` console script does not)."""
    (tmp_path / "ferry_here_mod.py").write_text("import sys\nprint(__name__, sys.argv[1:])\n")
    # -P: don't let python itself prepend the current directory (as the console script)
    cmd = [sys.executable, "-P", "-m", "torchferry", "run", "-m", "ferry_here_mod", "a"]
    if sys.version_info < (3, 11):
        pytest.skip("python -P needs 3.11")
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "__main__ ['a']\n"


def test_simulate_option_runs_under_the_simulation(tmp_path, capsys):
    s = _script(
        tmp_path,
        """
        import torch
        print(torch.cuda.is_available(), torch.cuda.device_count(), torch.ones(1).cuda(1).device)
        """,
    )
    assert main(["run", "--simulate", "cuda", "--device-count", "2", str(s)]) == 0
    assert capsys.readouterr().out == "True 2 cuda:1\n"
    import torch

    assert not torch.cuda.is_available()  # restored after the run


def test_run_path_missing_raises_usage_error(tmp_path):
    with pytest.raises(UsageError):
        run_path(str(tmp_path / "missing.py"))
    with pytest.raises(UsageError):
        run_path(str(tmp_path))  # a directory without __main__.py
