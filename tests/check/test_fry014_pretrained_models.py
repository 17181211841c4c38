"""A Hugging Face model loaded with ``from_pretrained`` and no keyword that places it
(``device_map``, a quantisation) holds its weights on the CPU: FRY014 reports it where the
run never moves it and calls it, or its ``generate``, on an input moved to the device (a
tokenizer's ``BatchEncoding`` moved whole included)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source

SOURCE = """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GPTNeoForCausalLM

device = "cuda:0" if torch.cuda.is_available() else "cpu"
model = {loader}{move}
tokenizer = AutoTokenizer.from_pretrained("name")


def reply(prompt):
    input_ids = tokenizer(prompt, return_tensors="pt").to(device).input_ids
    return {call}
"""


def lines(loader: str = 'GPTNeoForCausalLM.from_pretrained("name")', move: str = "",
          call: str = "model.generate(input_ids, do_sample=True)") -> list[int]:
    src = textwrap.dedent(SOURCE.format(loader=loader, move=move, call=call))
    return [f.line for f in check_source(src, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("loader", ['GPTNeoForCausalLM.from_pretrained("name")',
                                    'AutoModelForCausalLM.from_pretrained("name")'])
@pytest.mark.parametrize("call", ["model.generate(input_ids, do_sample=True)",
                                  "model(torch.tensor([[1, 2]]).to(device))"])
def test_a_loaded_model_left_on_the_cpu_is_reported(loader: str, call: str) -> None:
    assert lines(loader, call=call) == [12]


@pytest.mark.parametrize("loader", [
    'GPTNeoForCausalLM.from_pretrained("name", device_map="auto")',
    'AutoModelForCausalLM.from_pretrained("name", load_in_8bit=True)',
    'AutoModelForCausalLM.from_pretrained("name", **options)',
    'AutoTokenizer.from_pretrained("name")',  # not a model
])
def test_a_model_a_keyword_may_place_or_no_model_is_not_reported(loader: str) -> None:
    assert lines(loader) == []


def test_a_loaded_model_the_run_moves_is_not_reported() -> None:
    assert lines(move=".to(device)") == []
