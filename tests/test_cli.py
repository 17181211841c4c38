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


def test_python_dash_m_is_the_same_command():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"torchferry {torchferry.__version__}"
    r = run("--help")
    assert r.returncode == 0 and "doctor" in r.stdout


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_unknown_option_is_one_line_exit_2():
    r = run("doctor", "--nope")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "unrecognized arguments: --nope" in r.stderr


def test_doctor_text_and_exit_code():
    r = run("doctor")
    report = json.loads(run("doctor", "--json").stdout)
    assert r.returncode == (1 if report["problems"] else 0)
    assert "torch" in r.stdout and "selected" in r.stdout


def test_doctor_json_keys():
    r = run("doctor", "--json")
    report = json.loads(r.stdout)
    for key in ("python", "torch", "build", "accelerators", "driver", "selected_device", "problems"):
        assert key in report
    assert isinstance(report["problems"], list)


def test_doctor_exit_1_on_problem():
    r = run("doctor", "--json", env={"TORCHFERRY_DEVICE": "gpu0"})
    assert r.returncode == 1
    assert json.loads(r.stdout)["problems"][-1]["id"] == "device-override"


def test_internal_error_is_one_line(monkeypatch, capsys):
    import torchferry.devices as d

    def boom():
        raise KeyError("oops")

    monkeypatch.setattr(d, "diagnose", boom)
    assert main(["doctor"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError" in err


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
