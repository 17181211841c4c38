"""The pytest plugin: ``--ferry-simulate`` runs an existing suite on a simulated GPU."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # starts processes / runs whole programs

SUITE = textwrap.dedent(
    """
    import pytest
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"

    def test_portable_pattern():
        x = torch.ones(3).to(device)
        print(repr(x + 1))
        assert x.device.type == device

    def test_labels_missed_the_ferry():
        logits = torch.randn(4, 3, device=device)
        labels = torch.tensor([0, 1, 2, 0])  # bug: never moved
        torch.nn.functional.cross_entropy(logits, labels)

    def test_count():
        print("count", torch.cuda.device_count())
    """
)

FIXTURE_SUITE = textwrap.dedent(
    """
    import pytest
    import torch

    def test_plain():
        assert not torch.cuda.is_available()

    def test_with_fixture(simulated_gpu):
        assert torch.cuda.is_available()
        assert str(torch.ones(1).cuda().device) == "cuda:0"

    @pytest.mark.ferry_simulate("mps")
    def test_with_mps(simulated_gpu):
        assert torch.backends.mps.is_available() and simulated_gpu.kind == "mps"

    def test_after():
        assert not torch.cuda.is_available()
    """
)


def _pytest(tmp_path, suite, *args):
    (tmp_path / "test_suite.py").write_text(suite)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            *args,
            "test_suite.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_suite_passes_on_cpu_and_fails_under_simulated_cuda(tmp_path):
    plain = _pytest(tmp_path, SUITE)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "count 0" in plain.stdout
    sim = _pytest(tmp_path, SUITE, "--ferry-simulate", "cuda", "--ferry-device-count", "2")
    assert sim.returncode == 1, sim.stdout + sim.stderr
    assert "tensor([2., 2., 2.], device='cuda:0')" in sim.stdout
    assert "count 2" in sim.stdout
    assert "1 failed, 2 passed" in sim.stdout
    assert "but got target is on cpu, different from other tensors on cuda:0" in sim.stdout


def test_a_failure_carries_the_explanation_and_no_simulation_frames(tmp_path):
    sim = _pytest(tmp_path, SUITE, "--ferry-simulate", "cuda", "-k", "ferry")
    out = sim.stdout
    assert sim.returncode == 1, out + sim.stderr
    # the explanation ferry run prints, as a report section after the traceback
    section = out.split("- torchferry explain -", 1)[1].split("short test summary", 1)[0]
    assert "tensors on different devices (RuntimeError)" in section
    assert "> labels  cpu" in section and "labels was created at test_suite.py:" in section
    assert "rule: FRY010" in section
    # the traceback reads as on a GPU: no simulation frame, no torch docstring
    traceback = out.split("- torchferry explain -", 1)[0]
    assert "sim/modes.py" not in traceback and "torchferry/sim" not in traceback
    assert "def handle_torch_function" not in traceback and "Arguments\n" not in traceback
    assert len(traceback.splitlines()) < 40
    hidden = _pytest(tmp_path, SUITE, "--ferry-simulate", "cuda", "-k", "ferry",
                     "--show-capture=no")
    assert hidden.returncode == 1 and "torchferry explain" not in hidden.stdout


def test_fixture_gives_one_test_its_own_simulation(tmp_path):
    r = _pytest(tmp_path, FIXTURE_SUITE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 passed" in r.stdout


def test_bad_plugin_options_are_usage_errors(tmp_path):
    r = _pytest(tmp_path, SUITE, "--ferry-device-count", "2")
    assert r.returncode == 4 and "--ferry-device-count needs --ferry-simulate" in r.stderr
    r = _pytest(tmp_path, SUITE, "--ferry-simulate", "tpu")
    assert r.returncode == 4 and "invalid choice" in r.stderr


def test_plugin_import_is_cheap_and_patches_nothing():
    code = (
        "import sys, torchferry.sim.pytest_plugin as p; "
        "assert 'torch' not in sys.modules, 'torch imported'; print('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.stdout == "ok\n", r.stderr


CONFTEST = textwrap.dedent(
    """
    import torch

    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
    """
)

CONFTEST_SUITE = textwrap.dedent(
    """
    import pytest
    import torch
    from conftest import DEVICE

    def test_conftest_saw_the_simulation():
        print("conftest device", DEVICE)
        assert DEVICE == "cuda"

    @pytest.mark.ferry_simulate("mps")
    def test_marker_that_the_session_cannot_give(simulated_gpu):
        pass

    @pytest.mark.ferry_simulate(count=2)
    def test_marker_that_matches(simulated_gpu):
        assert torch.cuda.device_count() == 2
    """
)


def test_conftest_module_code_runs_inside_the_session_simulation(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    r = _pytest(tmp_path, CONFTEST_SUITE, "--ferry-simulate", "cuda", "--ferry-device-count", "2")
    assert "conftest device cuda" in r.stdout, r.stdout + r.stderr
    assert "2 passed, 1 error" in r.stdout, r.stdout + r.stderr
    assert (
        "@pytest.mark.ferry_simulate('mps', count=1) asks for a simulation the session's "
        "--ferry-simulate cuda (count=2) cannot give this test" in r.stdout
    )


WARNING_SUITE = '''
import warnings

import torch


def test_warns_at_its_line():
    x = torch.ones(2, device="cuda")
    warnings.warn("from the test", UserWarning)
    assert str(x.device) == "cuda:0"
'''


def test_a_simulated_session_ends_without_a_warning_of_its_own(tmp_path):
    # pytest's warnings plugin runs pytest_load_initial_conftests inside catch_warnings():
    # the simulation started there lost its warnings.showwarning when that block ended,
    # and every `pytest --ferry-simulate` run ended with torchferry's RuntimeWarning that
    # "warnings.showwarning was replaced by other code"
    r = _pytest(tmp_path, WARNING_SUITE, "--ferry-simulate", "cuda")
    assert "1 passed, 1 warning" in r.stdout, r.stdout + r.stderr
    assert "test_suite.py:9: UserWarning: from the test" in r.stdout, r.stdout
    assert "RuntimeWarning" not in r.stdout + r.stderr, r.stdout + r.stderr
