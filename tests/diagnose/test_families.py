"""One fixture per error family and message form: PyTorch's real error, the expected explanation.

Each case is a small program that makes the mistake.  It runs in this process, under
the simulated GPU where the error needs one (the simulation raises CUDA's and MPS's own
texts), inside ``torchferry.explain``.  The three things users see are compared with
the files under ``golden/families/``:

* ``NAME.txt``: the text report (what ``ferry run``, ``torchferry.explain``, the pytest
  plugin's section and a terminal IPython print);
* ``NAME.json``: the ``"error"`` object of ``ferry run --report`` (the program's folder
  written as ``<tmp>``);
* ``NAME.html``: the notebook's HTML view;
* ``NAME.dict.json``: the explanation as a dict (every key, the JSON report's and more).

``TORCHFERRY_UPDATE_GOLDEN=1 pytest tests/diagnose/test_families.py`` rewrites the files
from the current output (then read the diff).
"""

from __future__ import annotations

import contextlib
import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

import torchferry as tf
from torchferry.diagnose.explanation import explain_exception, format_report
from torchferry.diagnose.families import HANDLERS, handler_for, identify
from torchferry.diagnose.html import explanation_view
from torchferry.diagnose.record import Explanation, Family
from torchferry.diagnose.run import error_json

GOLDEN = Path(__file__).parent / "golden" / "families"
UPDATE = os.environ.get("TORCHFERRY_UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Case:
    name: str  # the family, then the message form or the fix's path
    program: str
    simulate: str | None = None
    count: int = 1
    env: tuple[tuple[str, str], ...] = ()


CASES = [
    Case("mixed_devices-codegen-labels_left_behind", """\
        import torch
        from torch import nn

        device = "cuda"
        model = nn.Linear(4, 3).to(device)
        loss_fn = nn.CrossEntropyLoss()
        loader = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(2)]
        for inputs, labels in loader:
            inputs = inputs.to(device)
            loss = loss_fn(model(inputs), labels)
        """, simulate="cuda"),
    Case("mixed_devices-two_devices-two_gpus", """\
        import torch

        a = torch.ones(3, device="cuda:0")
        b = torch.ones(3).to("cuda:1")
        c = a + b
        """, simulate="cuda", count=2),
    Case("mixed_devices-codegen-factory_in_forward", """\
        import torch
        from torch import nn


        class Scale(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                bias = torch.zeros(4)
                return self.lin(x) + bias


        model = Scale().to("cuda")
        out = model(torch.randn(2, 4, device="cuda"))
        """, simulate="cuda"),
    Case("mixed_devices-codegen-model_left_behind", """\
        import torch
        from torch import nn

        model = nn.Linear(4, 2)
        x = torch.randn(3, 4).to("cuda")
        y = model(x)
        """, simulate="cuda"),
    Case("mixed_devices-input_weight-conv_left_behind", """\
        import torch
        from torch import nn

        conv = nn.Conv2d(3, 4, 3)
        x = torch.ones(2, 3, 8, 8).to("cuda")
        y = conv(x)
        """, simulate="cuda"),
    Case("mixed_devices-rnn_parameters-lstm_left_behind", """\
        import torch
        from torch import nn

        lstm = nn.LSTM(3, 4)
        x = torch.randn(5, 1, 3, device="cuda")
        out, (h, c) = lstm(x)
        """, simulate="cuda"),
    Case("mixed_devices-mask", """\
        import torch

        x = torch.ones(3, device="cuda")
        mask = torch.tensor([True, False, True])
        y = x.masked_fill(mask, 0.0)
        """, simulate="cuda"),
    Case("mixed_devices-codegen-unregistered_buffer", """\
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)
                self.scale = torch.full((3,), 2.0)

            def forward(self, x):
                return self.fc(x) * self.scale


        net = Net().to("cuda")
        y = net(torch.ones(2, 3, device="cuda"))
        """, simulate="cuda"),
    Case("mixed_devices-two_devices-batch_dict", """\
        import torch

        device = "cuda"
        batch = {"x": torch.ones(2, 3), "mask": torch.ones(2, 3)}
        x = batch["x"].to(device)
        y = x * batch["mask"]
        """, simulate="cuda"),
    Case("mixed_devices-codegen-discarded_move", """\
        import torch

        x = torch.ones(3, 2)
        device = "cuda"
        x.to(device)
        w = torch.ones(2, 2, device=device)
        y = x @ w
        """, simulate="cuda"),
    Case("mixed_devices-expected_device-meta", """\
        import torch

        inputs = torch.randn(4, 3).to("meta")
        weights = torch.randn(4, 3).to("meta")
        labels = torch.randn(4, 3)
        y = inputs * weights + labels
        """),
    Case("mixed_devices-two_devices-factory_on_the_line", """\
        import torch

        x = torch.ones(4, device="cuda")
        y = x + torch.ones(4)
        """, simulate="cuda"),
    Case("mixed_devices-codegen-mps", """\
        import torch
        from torch import nn

        model = nn.Linear(4, 2).to("mps")
        x = torch.randn(3, 4)
        y = model(x)
        """, simulate="mps"),
    Case("index_device", """\
        import torch

        table = torch.randn(10, 3)
        idx = torch.tensor([1, 2], device="cuda")
        rows = table[idx]
        """, simulate="cuda"),
    Case("rnn_hidden", """\
        import torch
        from torch import nn

        gru = nn.GRU(3, 4).to("cuda")
        x = torch.randn(5, 1, 3, device="cuda")
        h0 = torch.zeros(1, 1, 4)
        out, h = gru(x, h0)
        """, simulate="cuda"),
    Case("numpy_on_device-method", """\
        import torch

        w = torch.randn(3, device="cuda", requires_grad=True)
        a = w.numpy()
        """, simulate="cuda"),
    Case("numpy_on_device-asarray", """\
        import numpy as np
        import torch

        y = torch.randn(3, device="cuda")
        a = np.asarray(y)
        """, simulate="cuda"),
    Case("checkpoint_map_location", """\
        import io

        import torch

        import torchferry

        buf = io.BytesIO()
        with torchferry.simulate("cuda"):
            torch.save({"w": torch.ones(2, device="cuda")}, buf)
        buf.seek(0)
        state = torch.load(buf)
        """),
    Case("mps_float64", """\
        import numpy as np
        import torch

        t = torch.from_numpy(np.ones(3))
        m = t.to("mps")
        """, simulate="mps"),
    Case("no_device", """\
        import torch

        x = torch.ones(2).cuda()
        """),
    Case("invalid_ordinal", """\
        import torch

        x = torch.ones(2, device="cuda:3")
        """, simulate="cuda"),
    Case("collective_on_cpu", """\
        import torch
        import torch.distributed as dist

        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        try:
            dist.all_reduce(torch.ones(1))
        finally:
            dist.destroy_process_group()
        """, simulate="cuda", env=(("RANK", "0"), ("LOCAL_RANK", "0"))),
    Case("collective_devices", """\
        import torch
        import torch.distributed as dist

        dist.init_process_group("cpu:gloo,cuda:nccl", store=dist.HashStore(), rank=0, world_size=1)
        try:
            dist.all_gather([torch.zeros(1)], torch.ones(1, device="cuda"))
        finally:
            dist.destroy_process_group()
        """, simulate="cuda"),
    Case("nccl_bound_device", """\
        import torch
        import torch.distributed as dist

        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1,
                                device_id=torch.device("cuda", 1))
        try:
            dist.all_reduce(torch.ones(1, device="cuda:0"))
        finally:
            dist.destroy_process_group()
        """, simulate="cuda", count=2, env=(("RANK", "1"),)),
    Case("ddp_device_ids", """\
        import torch
        import torch.distributed as dist
        from torch import nn
        from torch.nn.parallel import DistributedDataParallel

        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        try:
            model = DistributedDataParallel(nn.Linear(2, 2).to("cuda:1"), device_ids=[0])
            y = model(torch.ones(3, 2))
        finally:
            dist.destroy_process_group()
        """, simulate="cuda", count=2),
    Case("global_rank_device", """\
        import os
        import torch

        torch.cuda.set_device(int(os.environ["RANK"]))  # the global rank: 2 on the second node
        """, simulate="cuda", count=2,
        env=(("RANK", "2"), ("LOCAL_RANK", "0"), ("LOCAL_WORLD_SIZE", "2"), ("GROUP_RANK", "1"))),
    Case("ddp_cpu_module", """\
        import torch
        import torch.distributed as dist
        from torch import nn
        from torch.nn.parallel import DistributedDataParallel

        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
        try:
            model = DistributedDataParallel(nn.Linear(2, 2), device_ids=[0])
        finally:
            dist.destroy_process_group()
        """, simulate="cuda"),
]


def _run(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[BaseException, Explanation | None]:
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(case.program))
    monkeypatch.chdir(tmp_path)
    for k in ("RANK", "LOCAL_RANK"):
        monkeypatch.delenv(k, raising=False)
    for k, v in case.env:
        monkeypatch.setenv(k, v)
    code = compile(path.read_text(), str(path), "exec")
    sim = tf.simulate(case.simulate, case.count) if case.simulate else contextlib.nullcontext()
    with pytest.raises(BaseException) as info:  # noqa: PT011 - the golden files hold the type
        with sim:
            _LAUNCH(code, {"__name__": "__main__", "__file__": str(path)})
    return info.value, info.value.__ferry_report__  # type: ignore[union-attr]


def _launcher():
    """``launch(code, globals)``: runs the program inside ``explain``, from a frame that is not
    user code (as ``ferry run``'s runner is not), so the report's lines are the program's only."""
    src = (
        "def launch(code, globs):\n"
        "    try:\n"
        "        with tf.explain(file=None) as ex:\n"
        "            exec(code, globs)\n"
        "    except BaseException as e:\n"
        "        e.__ferry_report__ = ex.report\n"
        "        raise\n"
    )
    ns: dict = {"tf": tf}
    exec(compile(src, os.path.join(os.path.dirname(torch.__file__), "_ferry_test_launch.py"), "exec"), ns)
    return ns["launch"]


_LAUNCH = _launcher()


def _outputs(report: Explanation, tmp_path: Path) -> dict[str, str]:
    text = format_report(report)
    data = json.dumps(error_json(report), indent=2) + "\n"
    page = explanation_view(report, text).html + "\n"
    full = json.dumps(report.to_dict(), indent=2) + "\n"
    return {"txt": text + "\n", "json": data.replace(str(tmp_path), "<tmp>"), "html": page,
            "dict.json": full.replace(str(tmp_path), "<tmp>")}


def _compare(name: str, outputs: dict[str, str]) -> None:
    for ext, got in outputs.items():
        golden = GOLDEN / f"{name}.{ext}"
        if UPDATE:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(got)
        assert got == golden.read_text(), f"{golden.name} differs"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_family(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if case.name == "no_device" and torch.version.cuda is not None:
        pytest.skip("a CUDA wheel says 'Found no NVIDIA driver': the golden file holds the CPU wheel's text")
    exc, report = _run(case, tmp_path, monkeypatch)
    assert report is not None, f"not explained: {type(exc).__name__}: {exc}"
    _compare(case.name, _outputs(report, tmp_path))


WITHOUT_USER_CODE = {
    "checkpoint_map_location":
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
        "If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.",
    "mixed_devices":
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "numpy_on_device":
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
        "memory first.",
    "nccl_duplicate_gpu":
        "NCCL error in: x.cpp:1, invalid usage\nLast error:\n"
        "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
}


@pytest.mark.parametrize("kind", sorted(WITHOUT_USER_CODE))
def test_without_a_line_of_user_code(kind: str, tmp_path: Path) -> None:
    """An exception with no traceback (re-raised elsewhere, or made by hand): no line to read."""
    report = explain_exception(RuntimeError(WITHOUT_USER_CODE[kind]))
    assert report is not None and report.family is Family(kind)
    _compare(f"{kind}-no_user_code", _outputs(report, tmp_path))


def test_not_a_device_error() -> None:
    assert explain_exception(ValueError("not about devices")) is None
    assert explain_exception(KeyError("cuda:0")) is None


def test_every_family_has_one_handler_and_a_fixture() -> None:
    families = [h.family for h in HANDLERS]
    assert len(families) == len(set(families)) and set(families) == set(Family)
    assert all(handler_for(f).family is f for f in Family)
    fixtures = {c.name.split("-")[0] for c in CASES} | set(WITHOUT_USER_CODE)
    assert fixtures == {f.value for f in Family}


def test_the_first_form_in_the_table_wins() -> None:
    """A text is read by the first handler whose form matches, whatever the exception's chain."""
    inner = RuntimeError(WITHOUT_USER_CODE["numpy_on_device"])
    outer = RuntimeError(WITHOUT_USER_CODE["mixed_devices"])
    outer.__cause__ = inner
    found = identify(outer)
    assert found is not None and found[0].family is Family.MIXED_DEVICES and found[1] is outer
    wrapper = KeyError("while loading")  # not a type PyTorch raises these as: its cause is read
    wrapper.__cause__ = inner
    found = identify(wrapper)
    assert found is not None and found[0].family is Family.NUMPY_ON_DEVICE and found[1] is inner


def test_every_golden_file_has_its_case() -> None:
    names = {c.name for c in CASES} | {f"{k}-no_user_code" for k in WITHOUT_USER_CODE}
    on_disk = {p.name.split(".", 1)[0] for p in GOLDEN.iterdir()}
    assert on_disk == names



@pytest.mark.parametrize(("noqa", "found"), [("", True), ("  # noqa: FRY010", False)])
def test_a_factory_found_on_its_own_line_is_found_before_the_run(
        noqa: str, found: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # FRY010 reports the factory's line, not the line that fails: the explanation says
    # `ferry check` finds the mistake where the check reports it at the culprit's creation
    program = f"""\
        import torch
        import torch.nn.functional as F

        device = "cuda" if torch.cuda.is_available() else "cpu"


        def step():
            logits = torch.randn(4, 3, device=device)
            labels = torch.tensor([0, 1, 2, 0]){noqa}
            F.cross_entropy(logits, labels)


        step()
        """
    _, report = _run(Case("late", program, simulate="cuda"), tmp_path, monkeypatch)
    assert report is not None and report.rule == "FRY010"
    assert report.found_statically is found
    assert ("`ferry check` finds this before you run" in format_report(report)) is found
