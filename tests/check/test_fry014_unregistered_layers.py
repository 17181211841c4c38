"""Layers with weights that a module keeps in a plain list, tuple or dict attribute: no
``.to(device)`` of the module reaches them, so calling one of them on what the module
computes fails on a GPU (FRY014 at the call).  Quiet where anything registers them or the
container is used otherwise (wrapped, handed on, named outside the class), and for a module
handed in (``self.teacher = [teacher]``: a deliberate way to hide it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchferry.check.runner import Options, check_paths

HEAD = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, ks=(3, 4)):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
"""


def found(root: Path, body: str, extra: str = "") -> list[tuple[int, str, str]]:
    (root / "net.py").write_text(HEAD + body + extra)
    opts = Options(root=root, select=("FRY014",), target_torch_version=None)
    outcomes = check_paths([root / "net.py"], opts)
    return [(d.line, d.code, d.message.split(":")[0]) for o in outcomes for d in o.diagnostics]


#: a plain list of layers, called in ``forward``
BLOCKS = """\
        self.blocks = [nn.Linear(4, 4) for _ in range(2)]

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
"""

LIST_COMP = """\
        self.convs = [nn.Conv2d(1, 8, (k, 4)) for k in ks]

    def forward(self, x):
        x = self.embed(x).unsqueeze(1)
        return [conv(x) for conv in self.convs]
"""


def test_a_comprehension_of_layers_called_in_forward_is_reported(tmp_path: Path) -> None:
    got = found(tmp_path, LIST_COMP)
    assert got == [(13, "FRY014", "`conv` is a layer kept in the plain list `self.convs`, "
                    "which registers nothing")]


def test_the_message_quotes_the_convolutions_error(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(HEAD + LIST_COMP)
    out = check_paths([tmp_path / "net.py"], Options(root=tmp_path, select=("FRY014",),
                                                     target_torch_version=None))
    (d,) = [d for o in out for d in o.diagnostics]
    assert '"Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should ' \
        'be the same"' in d.message
    assert "nn.ModuleList" in d.message


@pytest.mark.parametrize("body", [
    """\
        self.blocks = []
        for _ in range(3):
            self.blocks.append(nn.Linear(4, 4))

    def forward(self, x):
        for i, b in enumerate(self.blocks):
            x = b(x)
        return x
""",
    """\
        self.heads = {"a": nn.Linear(4, 2), "b": nn.Linear(4, 2)}

    def forward(self, x):
        return self.heads["a"](x) + self.heads["b"](x)
""",
    """\
        self.blocks = (nn.Linear(4, 4), nn.Linear(4, 4))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
""",
])
def test_other_plain_containers(tmp_path: Path, body: str) -> None:
    got = found(tmp_path, body)
    assert got and all(code == "FRY014" and "which registers nothing" in msg
                       for _, code, msg in got)


@pytest.mark.parametrize("body", [
    # registered by a container module
    """\
        self.convs = nn.ModuleList([nn.Conv2d(1, 8, (k, 4)) for k in ks])

    def forward(self, x):
        return [conv(x) for conv in self.convs]
""",
    # wrapped later
    """\
        self.blocks = [nn.Linear(4, 4) for _ in range(2)]
        self.seq = nn.Sequential(*self.blocks)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
""",
    # registered one by one
    """\
        self.blocks = [nn.Linear(4, 4) for _ in range(2)]
        for i, b in enumerate(self.blocks):
            self.add_module(f"block{i}", b)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
""",
    # the items moved by the class itself
    """\
        self.blocks = [nn.Linear(4, 4) for _ in range(2)]

    def forward(self, x):
        for b in self.blocks:
            b.to(x.device)
            x = b(x)
        return x
""",
    # no layer with weights
    """\
        self.acts = [nn.ReLU(), nn.Tanh()]

    def forward(self, x):
        for a in self.acts:
            x = a(x)
        return x
""",
])
def test_quiet(tmp_path: Path, body: str) -> None:
    assert found(tmp_path, body) == []


def test_quiet_for_a_module_handed_in(tmp_path: Path) -> None:
    body = """\

class Student(nn.Module):
    def __init__(self, teacher):
        super().__init__()
        self.teacher = [teacher]
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x) + self.teacher[0](x)
"""
    assert found(tmp_path, "        pass\n", body) == []


def test_quiet_where_code_outside_the_class_names_the_container(tmp_path: Path) -> None:
    extra = """\

def place(net, device):
    for b in net.blocks:
        b.to(device)
"""
    assert found(tmp_path, BLOCKS, extra) == []


def test_quiet_where_a_method_names_another_instances_container(tmp_path: Path) -> None:
    body = BLOCKS + """
    @staticmethod
    def place(net, device):
        for b in net.blocks:
            b.to(device)
"""
    assert found(tmp_path, body) == []


def test_a_slice_of_the_plain_list_holds_the_same_layers(tmp_path: Path) -> None:
    body = """\
        self.encs = []
        for _ in range(3):
            self.encs.append(nn.Linear(4, 4))

    def forward(self, x):
        e = self.encs[0](x)
        for enc in self.encs[1:]:
            e = enc(e)
        return [h(e) for h in self.encs[:-1]]
"""
    assert [line for line, _, _ in found(tmp_path, body)] == [14, 16, 17]


def test_a_slice_of_the_plain_list_handed_on_is_quiet(tmp_path: Path) -> None:
    body = """\
        self.encs = [nn.Linear(4, 4) for _ in range(3)]

    def forward(self, x):
        rest = nn.Sequential(*self.encs[1:])
        return rest(self.encs[0](x))
"""
    assert found(tmp_path, body) == []
