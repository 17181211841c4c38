"""The ferry command itself: version, help, doctor, errors, and import hygiene."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import torchferry
from torchferry.cli import main


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("TORCHFERRY_DEVICE", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "torchferry", *args], capture_output=True,
                          text=True, env=e)


def test_version_matches_package(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"torchferry {torchferry.__version__}"


@pytest.mark.slow
def test_python_dash_m_is_the_same_command():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"torchferry {torchferry.__version__}"
    r = run("--help")
    assert r.returncode == 0 and "doctor" in r.stdout


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_a_command_builds_its_own_parser_alone_with_the_same_help():
    """``ferry check`` imports no other command's module; its parser is the one the full
    parser holds, and a name that is no command's module gets the full parser."""
    from torchferry.cli import build_parser

    def sub(parser):
        return parser._subparsers._group_actions[0].choices

    alone, full = build_parser(command="check"), build_parser()
    assert "bench" not in sub(alone) and {"check", "bench", "run"} <= set(sub(full))
    assert sub(alone)["check"].format_help() == sub(full)["check"].format_help()
    assert set(sub(build_parser(command="rules"))) == set(sub(full))  # registered by check.py
    code = ("import sys, torchferry.cli as c; c.build_parser(command='check'); "
            "print(sorted(m for m in sys.modules if m.startswith('torchferry.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['torchferry.cli.check']"


def test_unknown_option_is_one_line_exit_2():
    r = run("doctor", "--nope")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "unrecognized arguments: --nope" in r.stderr


@pytest.mark.parametrize("argv", [["doctor", "--nope"], ["check", "--nope", "x.py"],
                                  ["run", "--nope", "x.py"], ["rules", "--nope"]])
def test_an_unknown_option_is_reported_by_its_command(argv, capsys):
    """argparse reports a subcommand's unknown option as the top parser's ("ferry: error: ...
    see 'ferry --help'", whose help does not list the subcommand's options)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        f"ferry {argv[0]}: error: unrecognized arguments: --nope (see 'ferry {argv[0]} --help')\n")


@pytest.mark.slow
def test_doctor_text_and_exit_code():
    r = run("doctor")
    report = json.loads(run("doctor", "--json").stdout)
    assert r.returncode == (1 if report["problems"] else 0)
    assert "torch" in r.stdout and "selected" in r.stdout


@pytest.mark.slow
def test_doctor_json_keys():
    r = run("doctor", "--json")
    report = json.loads(r.stdout)
    for key in ("python", "torch", "build", "accelerators", "driver", "selected_device", "problems"):
        assert key in report
    assert isinstance(report["problems"], list)


@pytest.mark.slow
def test_doctor_exit_1_on_problem():
    r = run("doctor", "--json", env={"TORCHFERRY_DEVICE": "gpu0"})
    assert r.returncode == 1
    assert json.loads(r.stdout)["problems"][-1]["id"] == "device-override"


def test_internal_error_is_one_line(monkeypatch, capsys):
    import torchferry.doctor as d

    def boom():
        raise KeyError("oops")

    monkeypatch.setattr(d, "examine", boom)
    assert main(["doctor"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError" in err


@pytest.mark.slow
def test_import_is_lazy_and_patches_nothing():
    code = (
        "import sys, torchferry\n"
        "assert 'torch' not in sys.modules, 'importing torchferry imported torch'\n"
        "import torch\n"
        "before = (torch.cuda.is_available, torch.Tensor.to, torch.load)\n"
        "torchferry.device; torchferry.to; torchferry.load\n"
        "assert before == (torch.cuda.is_available, torch.Tensor.to, torch.load)\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        torchferry.nope  # noqa: B018


@pytest.mark.slow
def test_without_torch_check_works_and_the_rest_say_what_to_install(tmp_path):
    """The lint-only install: `ferry check` needs no torch; other commands say so in one line."""
    script = tmp_path / "s.py"
    script.write_text("import torch\nx = torch.zeros(2).cuda()\n")
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['numpy'] = None\n"
        "import contextlib, io\n"
        "from torchferry.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as found:\n"
        f"    code = main(['check', '--select', 'ALL', {str(script)!r}])\n"
        "print('check', code, 'FRY' in found.getvalue())\n"
        f"print('run', main(['run', {str(script)!r}]))\n"
        "print('doctor', main(['doctor']))\n"
        "import torchferry as tf\n"
        "try:\n    tf.to\nexcept ModuleNotFoundError as e:\n"
        "    print(type(e).__name__, e.name, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:3] == ["check 1 True", "run 2", "doctor 2"]
    assert lines[3].startswith("TorchMissingError torch torchferry.to needs PyTorch and NumPy")
    errors = out.stderr.splitlines()
    assert len(errors) == 2 and all(
        "needs PyTorch and NumPy" in e and "pip install torch numpy" in e for e in errors)
