"""FRY010 on a table that a plain class's ``__init__`` builds without a device (a noise
schedule, a sampler's lookup table, a helper's embedding table) and that a method indexes with
an index on the device: a CPU tensor indexed by a device index fails whatever its size
("indices should be either on cpu or on the same device as the indexed tensor").  The
index is a method's parameter, placed by the calls of the run, also from another file on
an object built there.  Everything else such a constructor makes stays excluded
(0-dimensional items, numbers that only mix as scalars); a table moved before it is
indexed is no finding, nor is one indexed by what may be a 0-dimensional index (an item of
``for t in timesteps``, which reads as its number on any device)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

SCHEDULES = {
    # a cosine noise schedule, indexed in ``q_sample``
    "cosine": """\
import math
import torch


class CosineSchedule:
    def __init__(self, steps):
        s = torch.arange(steps + 1, dtype=torch.float64) / steps
        f = torch.cos((s + 0.008) / 1.008 * math.pi / 2) ** 2
        self.alphas_bar = (f / f[0])[1:]
        self.steps = steps

    def q_sample(self, x0, t, noise):
        a = self.alphas_bar[t].float().view(-1, 1, 1, 1)
        return a.sqrt() * x0 + (1 - a).sqrt() * noise
""",
    # a sampler's lookup table of sigmas, read through a local
    "sigmas": """\
import torch


class KarrasSampler:
    def __init__(self, n, lo=0.002, hi=80.0):
        ramp = torch.linspace(0, 1, n)
        self.sigmas = (hi ** (1 / 7) + ramp * (lo ** (1 / 7) - hi ** (1 / 7))) ** 7
        self.count = n

    def noise_level(self, x, idx):
        table = self.sigmas
        return x + table[idx].view(-1, 1)
""",
    # an embedding table of a plain helper object
    "embedding": """\
import torch


class TokenTable:
    def __init__(self, vocab, dim):
        self.weight = torch.randn(vocab, dim) * 0.02

    def lookup(self, tokens):
        return self.weight[tokens]
""",
}
CALLERS = {
    "cosine": """\
import torch
from sched import CosineSchedule

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(loader, model):
    schedule = CosineSchedule(1000)
    for x0 in loader:
        x0 = x0.to(device)
        t = torch.randint(0, schedule.steps, (x0.shape[0],), device={where})
        noisy = schedule.q_sample(x0, t, torch.randn_like(x0))
        model(noisy, t).mean().backward()
""",
    "sigmas": """\
import torch
from sched import KarrasSampler


class Trainer:
    def __init__(self, model, device):
        self.model = model.to(device)
        self.device = device
        self.sampler = KarrasSampler(40)

    def step(self, x):
        x = x.to(self.device)
        idx = torch.randint(0, self.sampler.count, (x.shape[0],)){move}
        return self.model(self.sampler.noise_level(x, idx))
""",
    "embedding": """\
import torch
from sched import TokenTable


def encode(batch, device):
    table = TokenTable(100, 16)
    tokens = torch.randint(0, 100, (len(batch), 8)).to(device){move}
    return table.lookup(tokens).sum(1)
""",
}
ON_DEVICE = {"cosine": {"where": "device"}, "sigmas": {"move": ".to(self.device)"},
             "embedding": {"move": ".long()"}}
ON_CPU = {"cosine": {"where": '"cpu"'}, "sigmas": {"move": ""}, "embedding": {"move": ".cpu()"}}
FACTORY_LINE = {"cosine": 7, "sigmas": 6, "embedding": 6}


def found(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    opts = Options(root=root, select=("FRY010",), target_torch_version=None)
    outcomes = check_paths(sorted(root.glob("*.py")), opts)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics]


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_table_indexed_by_an_index_given_on_the_device_by_another_file(tmp_path: Path, name: str) -> None:
    files = {"sched.py": SCHEDULES[name], "train.py": CALLERS[name].format(**ON_DEVICE[name])}
    assert found(tmp_path, files) == [("sched.py", FACTORY_LINE[name], "FRY010")]


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_no_finding_where_the_index_stays_on_the_cpu(tmp_path: Path, name: str) -> None:
    files = {"sched.py": SCHEDULES[name], "train.py": CALLERS[name].format(**ON_CPU[name])}
    assert found(tmp_path, files) == []


def test_the_schedule_file_alone_reports_nothing(tmp_path: Path) -> None:
    (tmp_path / "sched.py").write_text(SCHEDULES["cosine"])
    opts = Options(root=tmp_path, select=("FRY010",), target_torch_version=None)
    assert [d for o in check_paths([tmp_path / "sched.py"], opts) for d in o.diagnostics] == []


MOVED = {
    # moved to the index's device before it is indexed
    "moved_local": """\
import torch


class Schedule:
    def __init__(self, n):
        self.betas = torch.linspace(1e-4, 0.02, n)
        self.alphas_bar = torch.cumprod(1 - self.betas, 0)

    def add_noise(self, x, noise, t):
        a = self.alphas_bar.to(t.device)[t]
        return a.view(-1, 1) * x + noise
""",
    # the tables follow the device of a ``to`` method of the object
    "moved_attribute": """\
import torch


class Schedule:
    def __init__(self, n):
        self.betas = torch.linspace(1e-4, 0.02, n)
        self.alphas_bar = torch.cumprod(1 - self.betas, 0)

    def to(self, device):
        self.alphas_bar = self.alphas_bar.to(device)
        return self

    def add_noise(self, x, noise, t):
        return self.alphas_bar[t].view(-1, 1) * x + noise
""",
    # only a 0-dimensional item mixes with the device tensor (a Python index)
    "scalar_item": """\
import torch


class Schedule:
    def __init__(self, n):
        self.betas = torch.linspace(1e-4, 0.02, n)
        self.alphas_bar = torch.cumprod(1 - self.betas, 0)

    def add_noise(self, x, noise, t):
        return self.alphas_bar[int(t)] * x + noise
""",
}
STEPS = """\
import torch
from sched import Schedule

device = torch.device("cuda")


def sample(x):
    sched = Schedule(1000)
    x = x.to(device)
    for t in torch.arange(999, -1, -1, device=device):
        x = sched.add_noise(x, torch.randn_like(x), t)
    return x
"""


def test_no_finding_for_a_zero_dimensional_index_on_the_device(tmp_path: Path) -> None:
    plain = MOVED["moved_local"].replace("self.alphas_bar.to(t.device)[t]", "self.alphas_bar[t]")
    assert found(tmp_path, {"sched.py": plain, "train.py": STEPS}) == []


USER = """\
import torch
from sched import Schedule

device = torch.device("cuda")


def step(x):
    sched = Schedule(1000){to}
    x = x.to(device)
    t = torch.randint(0, 1000, (x.shape[0],), device=device)
    return sched.add_noise(x, torch.randn_like(x), t)
"""


@pytest.mark.parametrize("name", sorted(MOVED))
def test_no_finding_for_a_moved_table_or_a_scalar_item(tmp_path: Path, name: str) -> None:
    to = ".to(device)" if name == "moved_attribute" else ""
    files = {"sched.py": MOVED[name], "train.py": USER.format(to=to)}
    assert found(tmp_path, files) == []


def test_the_same_schedule_indexed_on_the_device_reports(tmp_path: Path) -> None:
    plain = MOVED["moved_local"].replace("self.alphas_bar.to(t.device)[t]", "self.alphas_bar[t]")
    files = {"sched.py": plain, "train.py": USER.format(to="")}
    assert found(tmp_path, files) == [("sched.py", 6, "FRY010")]

