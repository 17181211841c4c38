"""FRY010 where a method of a module hands the factory's tensor to another method of the
same module that gives it to the module's weights: ``self.score(batch)`` whose ``score``
runs ``self.embed(batch)`` meets the weights as ``self.embed(batch)`` written in the
method itself does.  Quiet where the other method does not reach the weights with it
(converts it, keeps it, only its abstract version is in the checked files), where the
class is no module, and where the factory is made on the weights' device."""

from __future__ import annotations

import textwrap

from torchferry.check.engine import check_source

MODEL = """
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.embed = nn.Embedding(n, 8)

    def score(self, batch):
        return self.embed(batch).sum(-1)

    def score_abstract(self, batch):
        raise NotImplementedError

    def keep(self, batch):
        self.last = batch.tolist()
        return len(self.last)

    def predict(self, head, tail):
{body}
"""


def _factory_line(src: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if "torch.tensor(" in line)


def _lines(body: str, base: str = "nn.Module") -> list[int]:
    src = MODEL.replace("(nn.Module)", f"({base})").format(
        body=textwrap.indent(textwrap.dedent(body), " " * 8)
    )
    return [f.line - _factory_line(src) for f in check_source(src, "t.py", select=["FRY010"])]


def test_a_factory_handed_to_an_own_method_that_feeds_the_weights() -> None:
    assert _lines("""
        batch = torch.tensor([[head, tail]], dtype=torch.long)
        return self.score(batch)
    """) == [0]


def test_through_two_own_methods() -> None:
    src = (
        MODEL.format(body="        return self.relay(torch.tensor([[head, tail]]))")
        + """
    def relay(self, batch):
        return self.score(batch)
"""
    )
    assert [f.line for f in check_source(src, "t.py", select=["FRY010"])] == [_factory_line(src)]


def test_the_factory_made_on_the_weights_device_is_quiet() -> None:
    assert (
        _lines("""
        batch = torch.tensor([[head, tail]], device=self.embed.weight.device)
        return self.score(batch)
    """)
        == []
    )


def test_an_abstract_method_is_quiet() -> None:
    assert (
        _lines("""
        batch = torch.tensor([[head, tail]], dtype=torch.long)
        return self.score_abstract(batch)
    """)
        == []
    )


def test_a_method_that_only_keeps_the_values_is_quiet() -> None:
    assert (
        _lines("""
        batch = torch.tensor([[head, tail]], dtype=torch.long)
        return self.keep(batch)
    """)
        == []
    )


def test_a_plain_class_is_quiet() -> None:
    assert (
        _lines(
            """
        batch = torch.tensor([[head, tail]], dtype=torch.long)
        return self.score(batch)
    """,
            base="object",
        )
        == []
    )


PROBE = """
import torch
from torch import nn


class Tokenizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def sequence_length(self, height, width):
        return self.forward(torch.zeros((1, 3, height, width))).shape[1]

    def forward(self, x):
        return self.conv(x).flatten(2).transpose(1, 2)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokenizer = Tokenizer()
        self.length = self.tokenizer.sequence_length(32, 32)
"""


def test_a_shape_probe_that_only_constructors_run_is_quiet() -> None:
    assert check_source(PROBE, "t.py", select=["FRY010"]) == []


def test_the_same_probe_run_after_construction_is_a_meeting() -> None:
    src = (
        PROBE
        + """
    def forward(self, x):
        return self.tokenizer.sequence_length(x.shape[2], x.shape[3])
"""
    )
    assert [f.line for f in check_source(src, "t.py", select=["FRY010"])] == [12]


def test_a_model_the_run_builds_and_never_moves_is_quiet() -> None:
    run = "\n\ndef main():\n    model = Scorer(10)\n    return model.predict(1, 2)\n"
    body = "        return self.score(torch.tensor([[head, tail]]))"
    assert check_source(MODEL.format(body=body) + run, "t.py", select=["FRY010"]) == []
    moved = run.replace("Scorer(10)", "Scorer(10).to('cuda')")
    assert len(check_source(MODEL.format(body=body) + moved, "t.py", select=["FRY010"])) == 1
