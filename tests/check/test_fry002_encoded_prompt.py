"""FRY002 on the one tensor a Hugging Face tokenizer's ``encode(..., return_tensors="pt")``
returns: a bare ``.to(device)`` on it moves nothing.  The tokenizer's call gives a
``BatchEncoding`` instead, whose ``.to()`` moves its tensors in place: no finding there."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow import Kind, Where, analyze

ENCODED = """
import torch
from transformers import AutoTokenizer


class Decoder:
    def __init__(self, name, device):
        self.tokenizer = AutoTokenizer.from_pretrained(name)
        self.device = device

    def codegen(self, prompt):
        input_tokens = self.tokenizer.encode(prompt, return_tensors="pt")
        input_tokens.to(self.device)
        return input_tokens
"""


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY002"])]


def test_a_bare_move_of_an_encoded_prompt_is_reported() -> None:
    assert lines(ENCODED) == [13]


@pytest.mark.parametrize(
    "change",
    [
        # a BatchEncoding: its .to() moves it in place
        ('self.tokenizer.encode(prompt, return_tensors="pt")',
         'self.tokenizer(prompt, return_tensors="pt")'),
        ('self.tokenizer.encode(prompt, return_tensors="pt")',
         'self.tokenizer.encode_plus(prompt, return_tensors="pt")'),
        # lists of ids, not tensors
        ('self.tokenizer.encode(prompt, return_tensors="pt")', "self.tokenizer.encode(prompt)"),
        # the move kept
        ("        input_tokens.to(self.device)", "        input_tokens = input_tokens.to(self.device)"),
    ],
)
def test_no_finding_where_the_move_is_kept_or_moves_in_place(change: tuple[str, str]) -> None:
    assert change[0] in ENCODED
    assert lines(ENCODED.replace(*change)) == []


def test_the_encoded_prompt_is_one_tensor_on_the_cpu() -> None:
    tree = ast.parse(ENCODED)
    ff = analyze(tree, "/p/t.py")
    found = [r.value(n) for r in ff.results() for n in ast.walk(r.node)
             if isinstance(n, ast.Name) and n.id == "input_tokens" and n.lineno == 13]
    v = found[0]
    assert v is not None and v.kinds == {Kind.TENSOR}
    assert v.places is not None and {p.where for p in v.places} == {Where.CPU}
