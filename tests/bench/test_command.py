"""ferry bench / ferry bench transfer on this CPU-only machine: measured CPU figures,
predictions labelled as such in every output, bad input, out of memory."""

from __future__ import annotations

import csv
import io
import json

import pytest
import torch

from torchferry.bench import matmul, report
from torchferry.bench.model import predict_matmul
from torchferry.bench.profiles import PROFILES
from torchferry.cli import bench as command
from torchferry.cli import main

FAST = ["--min-time", "0.002"]


@pytest.fixture
def no_accelerator(monkeypatch):
    monkeypatch.setattr(matmul, "accelerator_devices", lambda: [])


def run_ok(capsys, *args):
    code = main(["bench", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


@pytest.mark.slow
def test_bench_writes_table_json_csv_png_with_predictions_labelled(tmp_path, capsys,
                                                                  no_accelerator):
    j, c, p = tmp_path / "b.json", tmp_path / "b.csv", tmp_path / "b.png"
    out, err = run_ok(capsys, "--sizes", "50,400", *FAST, "--json", str(j), "--csv", str(c),
                      "--plot", str(p))
    assert err == ""  # no progress bar when stderr is not a terminal
    # table: measured CPU cells, every T4 cell marked '~', the sentence, the legend
    assert "PREDICTED (~)" in out and "T4 resident" in out
    row50 = next(line for line in out.splitlines() if line.strip().startswith("50 "))
    assert row50.count("~") >= 3 and "µs" in row50
    assert "The NVIDIA T4 (predicted) beats the CPU" in out
    assert "~ predicted: launch" in out and f"wrote {j}" in out

    doc = json.loads(j.read_text())
    assert doc["predicted"] is True and doc["dtype"] == "float32" and doc["sizes"] == [50, 400]
    assert doc["machine"]["torch"] == torch.__version__ and doc["machine"]["cpu"]
    assert doc["model"]["profile"]["key"] == "t4"
    assert "https://" in doc["model"]["profile"]["sources"]["peak_flops"]
    cpu = [r for r in doc["records"] if r["device"] == "cpu"]
    t4 = [r for r in doc["records"] if r["device"] == "t4"]
    assert len(cpu) == 2 and all(r["kind"] == "measured" and r["seconds"] > 0 for r in cpu)
    assert all(r["runs"] >= 3 and r["method"] in ("perf_counter", "thread CPU time") for r in cpu)
    assert len(t4) == 4 and all(r["kind"] == "predicted" and "predicted" in r["label"] for r in t4)
    for r in t4:  # the JSON holds the model's own numbers
        assert r["seconds"] == pytest.approx(predict_matmul(r["size"], "float32", PROFILES["t4"])[r["mode"]])
        assert r["gflops"] == pytest.approx(2 * r["size"] ** 3 / r["seconds"] / 1e9)
    assert {c["mode"] for c in doc["crossovers"]} == {"resident", "rides"}
    assert all(c["kind"] == "predicted" for c in doc["crossovers"])
    assert doc["crossover_sentences"] and len(doc["winners"]) == 4

    rows = list(csv.DictReader(c.open()))
    assert {r["kind"] for r in rows if r["device"] == "t4"} == {"predicted"}
    assert {r["kind"] for r in rows if r["device"] == "cpu"} == {"measured"}
    assert len(rows) == 6 and rows[0]["dtype"] == "float32"
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000


def test_predict_profile_and_dtype(capsys, no_accelerator, tmp_path):
    j = tmp_path / "h.json"
    out, _ = run_ok(capsys, "--sizes", "64", "--dtype", "bf16", "--predict", "H100", *FAST,
                    "--json", str(j))
    doc = json.loads(j.read_text())
    assert doc["dtype"] == "bfloat16" and doc["model"]["profile"]["key"] == "h100"
    assert "H100 resident" in out
    # the T4 has no bf16 datasheet rate: nothing is predicted, and the table says so
    out, _ = run_ok(capsys, "--sizes", "64", "--dtype", "bfloat16", "--predict", "t4", *FAST,
                    "--json", str(j))
    row = next(line for line in out.splitlines() if line.strip().startswith("64 "))
    assert row.count("~n/a") == 3
    doc = json.loads(j.read_text())
    t4 = [r for r in doc["records"] if r["device"] == "t4"]
    assert all(r["seconds"] is None and "no datasheet bfloat16 rate" in r["error"] for r in t4)


@pytest.mark.parametrize("args,needle", [
    (["--sizes", "0"], "not a positive size"),
    (["--sizes", "-5"], "not a positive size"),
    (["--sizes", "abc"], "not an integer"),
    (["--sizes", "10,,20"], "comma-separated"),
    (["--sizes", ""], "comma-separated"),
    (["--dtype", "int8"], "unknown dtype"),
    (["--predict", "v100"], "unknown device profile"),
    (["--min-time", "-1"], "--min-time"),
    (["--threads", "0"], "--threads"),
    (["--json", "/no/such/folder/x.json"], "does not exist"),
    (["transfer", "--sizes", "4"], "applies to 'ferry bench matmul'"),
    (["nonsense"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, needle):
    with pytest.raises(SystemExit) if args == ["nonsense"] else _nothing() as info:
        code = main(["bench", *args])
    if info is not None and hasattr(info, "value"):
        code = info.value.code
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_transfer_without_gpu_says_why_and_exits_3(capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    code = main(["bench", "transfer"])
    err = capsys.readouterr().err
    assert code == 3
    assert err.count("\n") == 1 and "no CUDA GPU" in err and "torch.cuda.is_available() is False" in err


def test_out_of_memory_at_a_size_is_reported_and_the_run_goes_on(capsys, tmp_path, monkeypatch,
                                                                  no_accelerator):
    real_randn = torch.randn

    def randn(*size, **kw):
        if size and size[0] >= 100:
            raise torch.OutOfMemoryError("CPU out of memory. Tried to allocate 40.00 KiB")
        return real_randn(*size, **kw)

    monkeypatch.setattr(torch, "randn", randn)
    j = tmp_path / "oom.json"
    out, _ = run_ok(capsys, "--sizes", "50,100,200", *FAST, "--json", str(j))
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()[:1].isdigit()}
    assert "OOM" in rows["100"] and "OOM" in rows["200"] and "OOM" not in rows["50"]
    doc = json.loads(j.read_text())
    cpu = {r["size"]: r for r in doc["records"] if r["device"] == "cpu"}
    assert cpu[50]["seconds"] > 0 and cpu[50]["error"] is None
    assert cpu[200]["seconds"] is None and cpu[200]["error"].startswith("out of memory")


def test_with_an_accelerator_the_model_error_is_reported(capsys, tmp_path, monkeypatch):
    """The measured-accelerator path, run with the CPU standing in for the accelerator
    (no GPU here): resident and ride columns measured, the model compared, and an
    accelerator OOM at one size reported while the run goes on."""
    monkeypatch.setattr(matmul, "accelerator_devices", lambda: ["cpu"])
    real_ride = matmul._ride

    def ride(a, b, dev):
        if a.shape[0] >= 200:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 160.00 KiB")
        return real_ride(a, b, dev)

    monkeypatch.setattr(matmul, "_ride", ride)
    j = tmp_path / "acc.json"
    out, _ = run_ok(capsys, "--sizes", "50,200", "--predict", "t4", *FAST, "--json", str(j))
    doc = json.loads(j.read_text())
    assert doc["predicted"] is False
    acc = [r for r in doc["records"] if r["device"] == "cpu" and r["mode"] != "compute"]
    assert {(r["mode"], r["kind"]) for r in acc} == {
        ("resident", "measured"), ("rides", "measured"), ("resident", "predicted"),
        ("rides", "predicted")}
    ride200 = next(r for r in acc if r["mode"] == "rides" and r["size"] == 200
                   and r["kind"] == "measured")
    assert ride200["error"].startswith("out of memory")
    res200 = next(r for r in acc if r["mode"] == "resident" and r["size"] == 200
                  and r["kind"] == "measured")
    assert res200["seconds"] > 0  # resident still measured at that size
    errs = doc["model_error"]
    assert {e["mode"] for e in errs} == {"resident", "rides"} and len(errs) == 3
    for e in errs:
        assert e["error_pct"] == pytest.approx((e["predicted"] - e["measured"]) / e["measured"] * 100)
    assert "Model error for cpu against the 't4' profile" in out
    assert doc["crossovers"] and all(c["kind"] == "measured" for c in doc["crossovers"])


def test_progress_bar_only_on_a_terminal():
    quiet = io.StringIO()
    p = report.Progress(4, stream=quiet)
    p("one")
    p.close()
    assert quiet.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    p = report.Progress(4, stream=tty)
    p("50x50 cpu")
    p("100x100 cpu")
    assert "[############............] 2/4 100x100 cpu" in tty.getvalue()


def test_parse_helpers():
    assert command.parse_sizes(" 4000, 50,50 ") == [50, 4000]
    assert command.parse_dtype("torch.float16") == "float16"
    assert command.parse_dtype("Double") == "float64"


def test_command_module_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, torchferry.cli as c; c.build_parser(); "
            "print('torch' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "False", r.stderr


def test_busy_machine_warning():
    busy = command._busy_warning(3.1, {"logical_cpus": 2, "loadavg_1_5_15min": [0.4, 0, 0]})
    assert busy.startswith("warning: this machine was busy (1-minute load 3.1 on 2 CPUs)")
    assert command._busy_warning(0.2, {"logical_cpus": 2, "loadavg_1_5_15min": [0.9]}) is None
    assert command._busy_warning(None, {"logical_cpus": 2}) is None


def test_sizes_the_host_cannot_hold_are_not_attempted(capsys, tmp_path, monkeypatch,
                                                      no_accelerator):
    monkeypatch.setattr(matmul, "host_bytes_available", lambda: 1_000_000)
    j = tmp_path / "big.json"
    run_ok(capsys, "--sizes", "50,300", *FAST, "--json", str(j))
    cpu = {r["size"]: r for r in json.loads(j.read_text())["records"] if r["device"] == "cpu"}
    assert cpu[50]["seconds"] > 0
    assert cpu[300]["error"].startswith("out of memory: MemoryError: host: 300 x 300 needs about")
    monkeypatch.undo()  # the real one reads /proc/meminfo here
    avail = matmul.host_bytes_available()
    assert avail is not None and avail > 100_000_000


def test_threads_option_is_applied_and_recorded(capsys, tmp_path, no_accelerator):
    before = torch.get_num_threads()
    try:
        j = tmp_path / "t.json"
        run_ok(capsys, "--sizes", "50", *FAST, "--threads", "1", "--json", str(j))
        assert json.loads(j.read_text())["machine"]["torch_threads"] == 1
    finally:
        torch.set_num_threads(before)


def test_predicted_out_of_memory_is_labelled(capsys, no_accelerator, monkeypatch):
    monkeypatch.setattr(matmul, "host_bytes_available", lambda: 1_000_000)  # CPU: not attempted
    out, _ = run_ok(capsys, "--sizes", "70000", *FAST)
    row = next(line for line in out.splitlines() if line.strip().startswith("70000"))
    assert row.split()[1:3] == ["OOM", "OOM"] and row.count("~OOM") == 3  # 3 x 19.6 GB > 16 GB
