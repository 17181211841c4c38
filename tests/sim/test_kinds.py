"""Each simulated device kind is described once (its module in sim/kinds/), and read from there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from torchferry.sim import kinds
from torchferry.sim.session import simulate

SIM = Path(kinds.__file__).parent.parent


def test_no_kind_name_branches_left_in_the_simulation():
    # what differs between kinds is a DeviceKind field, not `if kind == "mps"` in eight files
    branch = re.compile(r"""\bkind\s*(==|!=|in)\s*[("']|\.type\s*==\s*["'](mps|xpu)["']""")
    files = ["session.py", "cuda_api.py", "modes.py", "aten_check.py", "parallel.py", "state.py"]
    files += [f"standins/{p.name}" for p in (SIM / "standins").glob("*.py")]
    for name in files:
        text = (SIM / name).read_text()
        assert not branch.search(text), f"{name}: {branch.search(text)[0]}"


@pytest.mark.parametrize("name", kinds.NAMES)
def test_each_kind_spec_drives_the_simulation(name):
    spec = kinds.spec(name)
    with simulate(name, count=1) as sim:
        assert sim.spec is spec
        with torch.autocast(name):
            y = torch.nn.Linear(2, 2).to(name)(torch.ones(1, 2, device=name))
        assert y.dtype is spec.autocast_torch_dtype()
        if spec.refuses_float64:
            with pytest.raises(TypeError, match="MPS framework doesn't support float64"):
                torch.ones(2, device=name, dtype=torch.float64)
        else:
            assert torch.ones(2, device=name, dtype=torch.float64).dtype is torch.float64
        err = spec.ordinal_error(1)
        with pytest.raises(type(err)) as info:
            torch.ones(1, device=f"{name}:3")
        assert str(info.value) == str(err)


def test_max_count_comes_from_the_spec():
    with pytest.raises(ValueError, match="a Mac has one MPS device"):
        simulate("mps", count=2)
    assert kinds.spec("cuda").max_count is None


def test_every_tag_is_one_record_type():
    from torchferry.sim import tags

    with simulate("cuda", count=2):
        x = torch.ones(4, device="cuda")
        y = (x + 1).to("cuda:1")
        z = torch.ones(2).cuda()
        assert all(type(e) is tags.Tag for e in tags.TAGS.values())
        e = tags.entry(y)
        assert str(e.device) == "cuda:1" and e.nbytes == 16 and e.site[0].co_filename == __file__
        assert str(tags.entry(z).device) == "cuda:0"
