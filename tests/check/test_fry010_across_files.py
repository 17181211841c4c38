"""FRY010 where the factory is in one file of the run and its tensor meets a tensor on the
device in another: the finding is at the factory, in the factory's file, and its evidence
names the meeting's file and line.  The factory's file's findings then depend on the files
that import it, which its cache key covers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchferry.check import runner
from torchferry.check.cache import Cache
from torchferry.check.runner import Options, check_paths

POLICY = """\
import torch


class Policy:
    def __init__(self, n):
        self.n = n

    def init_hidden(self, batch):
        self.hidden = torch.zeros(batch, self.n)
"""
AGENT = """\
import torch
from policy import Policy

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


class Agent:
    def __init__(self):
        self.policy = Policy(4)
        self.policy.init_hidden(8)

    def act(self, obs):
        x = {move}
        h = self.policy.hidden
        return h + x
"""
HELPERS = """\
import torch


def causal_mask(n):
    return torch.ones(n, n).tril()
"""
TRAIN = """\
import torch
from helpers import causal_mask


def step(scores):
    scores = {move}
    mask = causal_mask(scores.shape[-1])
    return scores * mask
"""


def write(root: Path, files: dict[str, str]) -> list[Path]:
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    return sorted(root.glob("*.py"))


def found(root: Path, paths: list[Path], cache: Cache | None = None, jobs: int = 1):
    opts = Options(root=root, select=("FRY010",), target_torch_version=None)
    outcomes = check_paths(paths, opts, cache=cache, jobs=jobs)
    return [(Path(o.path).name, d.line, d.code) for o in outcomes for d in o.diagnostics], outcomes


def test_attribute_stored_by_a_class_of_another_file(tmp_path: Path) -> None:
    paths = write(tmp_path, {"policy.py": POLICY, "agent.py": AGENT.format(move="obs.to(device)")})
    codes, outcomes = found(tmp_path, paths)
    assert codes == [("policy.py", 9, "FRY010")]
    (d,) = [d for o in outcomes for d in o.diagnostics]
    assert any(e.path is not None and e.path.endswith("agent.py") and e.line == 15
               for e in d.evidence), d.evidence


def test_helper_of_another_file_returning_the_factory_tensor(tmp_path: Path) -> None:
    paths = write(tmp_path, {"helpers.py": HELPERS, "train.py": TRAIN.format(move="scores.cuda()")})
    codes, outcomes = found(tmp_path, paths)
    assert codes == [("helpers.py", 5, "FRY010")]
    (d,) = [d for o in outcomes for d in o.diagnostics]
    assert any(e.path is not None and e.path.endswith("train.py") and e.line == 8
               for e in d.evidence), d.evidence


def test_no_finding_where_the_partner_is_not_on_the_device(tmp_path: Path) -> None:
    paths = write(tmp_path, {"policy.py": POLICY, "agent.py": AGENT.format(move="obs.float()")})
    assert found(tmp_path, paths)[0] == []
    paths = write(tmp_path, {"helpers.py": HELPERS, "train.py": TRAIN.format(move="scores.float()")})
    assert found(tmp_path, paths)[0] == []


def test_the_factory_file_alone_reports_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"policy.py": POLICY, "agent.py": AGENT.format(move="obs.to(device)")})
    assert found(tmp_path, [tmp_path / "policy.py"])[0] == []


def test_cache_rechecks_the_factory_file_when_the_meeting_changes(tmp_path: Path) -> None:
    paths = write(tmp_path, {"helpers.py": HELPERS, "train.py": TRAIN.format(move="scores.cuda()")})
    first, _ = found(tmp_path, paths, cache=(cache := Cache(tmp_path, "test")))
    cache.save()
    assert first == [("helpers.py", 5, "FRY010")]
    write(tmp_path, {"train.py": TRAIN.format(move="scores.float()")})
    again, outcomes = found(tmp_path, paths, cache=Cache(tmp_path, "test"))
    assert again == []
    assert not any(o.cached for o in outcomes if o.path.name == "helpers.py")


def test_same_findings_with_two_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)  # (two workers for these small files)
    files = {"policy.py": POLICY, "agent.py": AGENT.format(move="obs.to(device)"),
             "helpers.py": HELPERS, "train.py": TRAIN.format(move="scores.cuda()")}
    paths = write(tmp_path, files)
    one, _ = found(tmp_path, paths, jobs=1)
    two, _ = found(tmp_path, paths, jobs=2)
    assert sorted(one) == sorted(two) == [("helpers.py", 5, "FRY010"), ("policy.py", 9, "FRY010")]


STATE = """\
import torch


def init_hidden(batch, size):
    return torch.zeros(1, batch, size)
"""
MODEL = """\
import torch
import torch.nn as nn
from state import init_hidden


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16)

    def forward(self, x):
        h0 = {hidden}
        return self.rnn(x, h0)
"""


def test_initial_state_of_another_file_given_to_a_layer(tmp_path: Path) -> None:
    paths = write(tmp_path, {"state.py": STATE, "model.py": MODEL.format(hidden="init_hidden(x.size(1), 16)")})
    assert found(tmp_path, paths)[0] == [("state.py", 5, "FRY010")]


def test_no_finding_where_the_other_file_moves_the_tensor(tmp_path: Path) -> None:
    moved = "init_hidden(x.size(1), 16).to(x.device)"
    paths = write(tmp_path, {"state.py": STATE, "model.py": MODEL.format(hidden=moved)})
    assert found(tmp_path, paths)[0] == []
    paths = write(tmp_path, {"helpers.py": HELPERS, "train.py": TRAIN.format(move="scores.cuda()").replace(
        "causal_mask(scores.shape[-1])", "causal_mask(scores.shape[-1]).to(scores.device)")})
    assert found(tmp_path, paths)[0] == []


def test_a_meeting_in_the_factory_file_is_reported_there_once(tmp_path: Path) -> None:
    own = HELPERS + "\n\ndef local(x):\n    return x.cuda() * causal_mask(4)\n"
    paths = write(tmp_path, {"helpers.py": own, "train.py": TRAIN.format(move="scores.cuda()")})
    codes, outcomes = found(tmp_path, paths)
    assert codes == [("helpers.py", 5, "FRY010")]
    (d,) = [d for o in outcomes for d in o.diagnostics]
    assert all(e.path is None for e in d.evidence), d.evidence


PARTS = """\
import torch


def causal_parts(n):
    mask = torch.ones(n, n).tril()
    return {ret}
"""
PARTS_TRAIN = """\
import torch
from parts import causal_parts


def step(scores):
    scores = scores.cuda()
    {take}
    return scores * mask
"""
# the factory's tensor inside what the other file's function returns, and how it is taken
IN_CONTAINERS = [
    ("n, mask", "n, mask = causal_parts(scores.shape[-1])"),
    ("n, (mask, n)", "_, (mask, _) = causal_parts(scores.shape[-1])"),
    ("{'mask': mask, 'n': n}", "mask = causal_parts(scores.shape[-1])['mask']"),
    ("[n, [mask]]", "mask = causal_parts(scores.shape[-1])[1][0]"),
]


@pytest.mark.parametrize(("ret", "take"), IN_CONTAINERS)
def test_factory_tensor_returned_inside_a_container(tmp_path: Path, ret: str, take: str) -> None:
    files = {"parts.py": PARTS.format(ret=ret), "train.py": PARTS_TRAIN.format(take=take)}
    codes, outcomes = found(tmp_path, write(tmp_path, files))
    assert codes == [("parts.py", 5, "FRY010")]
    (d,) = [d for o in outcomes for d in o.diagnostics]
    assert any(e.path is not None and e.path.endswith("train.py") and e.line == 8
               for e in d.evidence), d.evidence


@pytest.mark.parametrize(("ret", "take"), IN_CONTAINERS)
def test_no_finding_where_the_container_item_is_moved(tmp_path: Path, ret: str, take: str) -> None:
    files = {"parts.py": PARTS.format(ret=ret),
             "train.py": PARTS_TRAIN.format(take=take + "\n    mask = mask.to(scores.device)")}
    assert found(tmp_path, write(tmp_path, files))[0] == []
