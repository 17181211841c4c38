"""FRY010 where the factory's tensor is handed to a function of the run and meets a tensor
on the device inside it, where it is a parameter: the callee's meetings of its parameters
are paired with the arguments of each call, and the finding is at the factory, its
evidence naming the call and the callee's meeting.  The partner must be on the device at
that same call (a helper called for the CPU and for the GPU is not at fault), the
parameter must meet as it came in (not moved first, not an item of it)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchferry.check.engine import check_source
from torchferry.check.runner import Options, check_paths

INDEXED = '''
import torch

device = torch.device("cuda")


def gather_rows(table, idx):
    return table[idx]


def run(n):
    idx = torch.randint(0, n, (8,)).to(device)
    table = torch.zeros(n, 3)
    return gather_rows(table, idx)
'''

KEYWORD = '''
import torch


def blend(a, b, w):
    return a * w + b


def step(x):
    x = x.cuda()
    noise = torch.randn(4, 4)
    return blend(x, b=noise, w=0.5)
'''

METHOD = '''
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def mix(self, h, bias):
        return torch.cat([h, bias], dim=0)

    def forward(self, x):
        h = self.fc(x)
        return self.mix(h, torch.ones(2, 4))
'''

MOVED_FIRST = '''
import torch


def blend(a, b):
    b = b.to(a.device)
    return a + b


def step(x):
    x = x.cuda()
    return blend(x, torch.randn(4, 4))
'''

MOVED_AS_WRITTEN = '''
import torch


def blend(a, b):
    return a + b.cuda()


def step(x):
    x = x.cuda()
    return blend(x, torch.randn(4, 4))
'''

ITEM = '''
import torch


def hits(labels, pred):
    n = 0
    for i in range(len(pred)):
        n += int(labels[i] == pred[i])
    return n


def score(x, model):
    pred = model.cuda()(x.cuda()).argmax(1)
    labels = torch.tensor([0, 1, 1, 0])
    return hits(labels, pred)
'''

CPU_CALL = '''
import torch

device = torch.device("cuda")


def gather_rows(table, idx):
    return table[idx]


def on_cpu(n):
    table = torch.zeros(n, 3)
    return gather_rows(table, torch.arange(2))


def on_gpu(n):
    idx = torch.arange(2).to(device)
    return gather_rows(torch.randn(n, 3).to(device), idx)
'''

MADE_ON_ANOTHER_PARAMETER = '''
import torch


def compute(num, den, n):
    device = num.device
    return torch.add(den, torch.ones(n, device=device))


def score(n):
    num = torch.zeros(n)
    den = torch.zeros(n)
    return compute(num, den, n)
'''


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(textwrap.dedent(source), "t.py", select=["FRY010"])]


def line_of(source: str, text: str) -> int:
    return next(i for i, s in enumerate(textwrap.dedent(source).splitlines(), 1) if text in s)


def test_a_factory_indexed_by_a_device_index_inside_a_helper() -> None:
    assert lines(INDEXED) == [line_of(INDEXED, "table = torch.zeros")]
    (f,) = check_source(INDEXED, "t.py", select=["FRY010"])
    texts = [e.message for e in f.evidence]
    assert any("gather_rows" in t for t in texts)
    assert any(e.line == line_of(INDEXED, "return table[idx]") for e in f.evidence)


def test_a_factory_given_by_keyword_meets_a_parameter_moved_by_the_caller() -> None:
    assert lines(KEYWORD) == [line_of(KEYWORD, "noise = torch.randn")]


def test_a_factory_given_to_a_method_meets_the_model_output() -> None:
    assert lines(METHOD) == [line_of(METHOD, "torch.ones(2, 4)")]


def test_a_callee_that_moves_the_parameter_first_is_no_meeting() -> None:
    assert lines(MOVED_FIRST) == []
    assert lines(MOVED_AS_WRITTEN) == []


def test_an_item_of_the_parameter_is_zero_dimensional_and_no_meeting() -> None:
    assert lines(ITEM) == []


def test_a_helper_called_for_the_cpu_and_for_the_gpu_is_judged_per_call() -> None:
    assert lines(CPU_CALL) == []


HELPERS = """\
import torch


def make_mask(n):
    return torch.ones(n, n).tril()
"""
OPS = """\
def apply_mask(scores, mask):
    return scores * mask
"""
TRAIN = """\
import torch
from helpers import make_mask
from ops import apply_mask


def step(scores):
    scores = {move}
    return apply_mask(scores, make_mask(scores.shape[-1]))
"""


def found(root: Path, files: dict[str, str]) -> list:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    paths = sorted(root.rglob("*.py"))
    opts = Options(root=root, select=("FRY010",), target_torch_version=None)
    return [(Path(o.path).relative_to(root).as_posix(), d) for o in check_paths(paths, opts)
            for d in o.diagnostics]


def test_a_factory_of_another_file_meets_the_device_in_a_third_files_function(tmp_path: Path) -> None:
    out = found(tmp_path, {"helpers.py": HELPERS, "ops.py": OPS,
                           "train.py": TRAIN.format(move="scores.to('cuda')")})
    assert [(p, d.line) for p, d in out] == [("helpers.py", 5)]
    (_, d), = out
    assert any(e.path is not None and e.path.endswith("ops.py") and e.line == 2 for e in d.evidence)


def test_the_same_call_with_the_scores_on_the_cpu_is_quiet(tmp_path: Path) -> None:
    assert found(tmp_path, {"helpers.py": HELPERS, "ops.py": OPS,
                            "train.py": TRAIN.format(move="scores.float()")}) == []


def test_a_partner_made_on_another_parameters_device_is_where_that_one_is() -> None:
    assert lines(MADE_ON_ANOTHER_PARAMETER) == []
