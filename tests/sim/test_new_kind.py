"""A device kind is one module (sim/kinds/<name>.py): the registry finds it, and programs,
``torchferry.simulate`` and ``ferry run --simulate`` run on it.  Shown with ``hpu``, a kind
torchferry does not ship, written as a kind module (tests/sim/kinds_extra/hpu.py)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import torch

from torchferry import cli
from torchferry.sim import kinds
from torchferry.sim.session import simulate

HERE = Path(__file__).parent


def _load_hpu():
    sys.path.insert(0, str(HERE))
    try:
        return kinds.discover([str(HERE / "kinds_extra")], "kinds_extra")["hpu"]
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("kinds_extra.hpu", None)
        sys.modules.pop("kinds_extra", None)


@pytest.fixture
def hpu():
    kind = kinds.register_kind(_load_hpu())
    try:
        yield kind
    finally:
        kinds.unregister_kind("hpu")


def test_a_kind_module_in_a_kinds_package_is_found(tmp_path):
    pkg = tmp_path / "morekinds"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(HERE / "kinds_extra" / "hpu.py", pkg / "hpu.py")
    sys.path.insert(0, str(tmp_path))
    try:
        found = kinds.discover([str(pkg)], "morekinds")
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("morekinds.hpu", "morekinds"):
            sys.modules.pop(name, None)
    assert list(found) == ["hpu"] and found["hpu"].backend == "HPU"
    # torchferry's own package is read the same way: one module per kind
    assert kinds.discover(kinds.__path__, kinds.__name__) == {n: kinds.spec(n) for n in kinds.NAMES}


def test_a_program_runs_on_the_new_kind(hpu):
    assert "hpu" in kinds.kind_names() and "hpu" not in kinds.NAMES
    with simulate("hpu", count=2):
        x = torch.ones(3).to("hpu")
        assert x.device == torch.device("hpu", 0) and repr(x) == "tensor([1., 1., 1.], device='hpu:0')"
        y = torch.nn.Linear(3, 2).to("hpu:1")(x.to("hpu:1"))
        assert y.device == torch.device("hpu", 1) and y.sum().item() == pytest.approx(y.sum().item())
        with pytest.raises(RuntimeError) as info:
            x + torch.ones(3)
        # torch's text for two devices (c10/core/TensorImpl / TensorIterator's check)
        assert str(info.value) == (
            "Expected all tensors to be on the same device, but found at least two devices, "
            "hpu:0 and cpu!")
        with pytest.raises(RuntimeError, match=r"HPU error: invalid device ordinal"):
            torch.ones(1, device="hpu:2")
        with torch.autocast("hpu"):
            assert torch.nn.Linear(3, 3).to("hpu")(x).dtype is torch.bfloat16
        assert x.cpu().device.type == "cpu"
    with pytest.raises(ValueError, match="at most 8 hpu devices, not 9"):
        simulate("hpu", count=9)


def test_ferry_run_simulate_accepts_the_new_kind(hpu, tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\n"
        "x = torch.ones(2, device='hpu')\n"
        "print('on', x.device, (x * 2).sum().item())\n"
        "x + torch.ones(2)\n"
    )
    rc = cli.main(["run", "--simulate", "hpu", str(script)])
    out, err = capsys.readouterr()
    assert rc == 1 and "on hpu:0 4.0" in out
    assert "found at least two devices, hpu:0 and cpu!" in err


def test_unknown_kinds_are_refused_with_the_registrys_names(capsys):
    with pytest.raises(ValueError, match=r"kind must be one of cuda, mps, xpu, not 'hpu'"):
        simulate("hpu")
    with pytest.raises(SystemExit) as info:
        cli.main(["run", "--simulate", "hpu", "x.py"])
    assert info.value.code == 2 and "invalid choice: 'hpu'" in capsys.readouterr().err


def test_registering_checks_the_name():
    with pytest.raises(ValueError, match="already known"):
        kinds.register_kind(kinds.spec("cuda"))
    with pytest.raises(ValueError, match="one of torchferry's own"):
        kinds.unregister_kind("cuda")
