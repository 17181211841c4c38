"""``ferry bench`` draws no conclusion from n/a cells, prints no
``0 TFLOP/s`` legend, writes ``--plot NAME`` under exactly that name, measures small
cases robustly and puts the busy-machine warning first."""

from __future__ import annotations

import pytest

from torchferry.bench import matmul
from torchferry.cli import bench as command
from torchferry.cli import main
from torchferry.timing import Timing

FAST = ["--min-time", "0.002"]


@pytest.fixture
def no_accelerator(monkeypatch):
    monkeypatch.setattr(matmul, "accelerator_devices", lambda: [])


def test_na_cells_give_no_never_conclusion_and_no_zero_legend(capsys, no_accelerator):
    assert main(["bench", "--sizes", "64", "--dtype", "bf16", "--predict", "t4", *FAST]) == 0
    out = capsys.readouterr().out
    assert "~n/a" in out
    assert "never" not in out and "beats the CPU" not in out
    assert "No conclusion for the NVIDIA T4 (predicted)" in out
    assert "0 TFLOP/s" not in out
    assert "the NVIDIA T4 profile has no bfloat16 rate" in out


def test_never_names_the_largest_size_compared():
    sizes = [50, 100]
    recs = [
        matmul._record(50, "cpu", "CPU", "compute", "measured", seconds=1.0),
        matmul._record(100, "cpu", "CPU", "compute", "measured", seconds=1.0),
        matmul._record(50, "gpu", "GPU", "resident", "measured", seconds=2.0),
        matmul._record(100, "gpu", "GPU", "resident", "measured", error="out of memory"),
        matmul._record(50, "gpu", "GPU", "rides", "measured", seconds=2.0),
        matmul._record(100, "gpu", "GPU", "rides", "measured", error="out of memory"),
    ]
    cross = matmul.crossovers(recs, sizes, [("gpu", "GPU", "measured")])
    (text,) = matmul.crossover_sentence(cross, 100)
    assert "never up to 50 x 50" in text and "100 x 100" not in text


@pytest.mark.slow
def test_plot_without_a_suffix_writes_exactly_that_name(tmp_path, capsys, no_accelerator):
    pytest.importorskip("matplotlib")
    target = tmp_path / "noext"
    assert main(["bench", "--sizes", "32,64", *FAST, "--plot", str(target)]) == 0
    assert f"wrote {target}" in capsys.readouterr().out
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "noext.png").exists()


def test_small_cases_keep_the_least_of_several_medians(monkeypatch):
    import torchferry.timing as timing

    medians = iter([4e-4, 9e-4, 1e-4, 6e-4, 5e-4])
    calls = []

    def fake_measure(fn, *args, **kw):
        calls.append(kw)
        m = next(medians)
        return Timing(times=(m, m, m), device="cpu", method="perf_counter")

    monkeypatch.setattr(timing, "measure", fake_measure)
    rec = matmul._timed(50, "cpu", "CPU", "compute", lambda: None, (), None, 0.01)
    assert len(calls) == matmul.SMALL_CASE_ROUNDS == 5
    assert rec["seconds"] == pytest.approx(1e-4) and rec["rounds"] == 5 and rec["runs"] == 15

    big = iter([0.5])
    monkeypatch.setattr(timing, "measure",
                        lambda fn, *a, **k: Timing(times=(next(big),) * 3, device="cpu",
                                                   method="perf_counter"))  # fmt: skip
    rec = matmul._timed(4000, "cpu", "CPU", "compute", lambda: None, (), None, 0.01)
    assert rec["seconds"] == 0.5 and "rounds" not in rec


def test_busy_warning_comes_first(capsys, no_accelerator, monkeypatch):
    monkeypatch.setattr(command, "_busy_warning", lambda *a: "warning: this machine was busy")
    # (with one thread the CPU is timed by its CPU time, and no warning is needed)
    assert main(["bench", "--sizes", "32", "--threads", "2", *FAST]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "warning: this machine was busy"
    assert out.count("warning: this machine was busy") == 1
