"""FRY014 and a script's global model moved in place in its ``if __name__ == "__main__":``
arm (or under a module-level ``if torch.cuda.is_available():``): the analysis joins the
global over the arm and its absence, but a function nothing in the file runs before the
move (a route the arm's ``app.run()`` serves, a function the arm calls after the move)
sees the moved model, so a prompt it makes on the CPU is a mismatch; not where the file
runs the function before the move, nor where the prompt is moved."""

from __future__ import annotations

from collections.abc import Callable

import pytest

APP = (
    "import torch\n"
    "from transformers import BartForConditionalGeneration, BartTokenizer\n"
    "\n"
    "model = BartForConditionalGeneration.from_pretrained('bart-large')\n"
    "tokenizer = BartTokenizer.from_pretrained('bart-large')\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "\n"
    "\n"
    "def summarize(text):\n"
    "    ids = tokenizer.encode(text, return_tensors='pt'){MOVE}\n"
    "    prefix = torch.tensor([[21603, 10]])\n"
    "    ids = torch.cat([prefix, ids], dim=-1)\n"
    "    return model.generate(ids, num_beams=4)\n"
    "\n"
    "\n"
    "{BEFORE}if {TEST}:\n"
    "    model.to(device)\n"
    "    model.eval()\n"
    "    {AFTER}\n"
)


def _app(
    move: str = "", before: str = "", test: str = "__name__ == '__main__'", after: str = "app.run()"
) -> str:
    return (
        APP.replace("{MOVE}", move)
        .replace("{BEFORE}", before)
        .replace("{TEST}", test)
        .replace("{AFTER}", after)
    )


@pytest.mark.parametrize("after", ["app.run()", "print(summarize('a text'))"])
def test_a_function_run_after_the_move_in_the_main_arm_is_reported(
    finding_lines: Callable[..., list[int]], after: str
) -> None:
    assert finding_lines({"app.py": _app(after=after)}, "FRY014") == [13]


def test_a_move_under_a_device_test_at_module_level_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"app.py": _app(test="torch.cuda.is_available()")}, "FRY014") == [13]


def test_a_prompt_moved_to_the_device_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = _app(move=".to(device)").replace("[[21603, 10]]", "[[21603, 10]], device=device")
    assert finding_lines({"app.py": code}, "FRY014") == []


def test_a_function_the_script_runs_before_the_move_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    assert finding_lines({"app.py": _app(before="summarize('warm up')\n")}, "FRY014") == []


def test_a_function_the_main_arm_runs_before_the_move_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = _app().replace(
        "    model.to(device)\n", "    summarize('warm up')\n    model.to(device)\n"
    )
    assert finding_lines({"app.py": code}, "FRY014") == []


def test_another_test_is_no_entry_arm(finding_lines: Callable[..., list[int]]) -> None:
    # (a model the analysis cannot place, which only an entry arm's move would: a model it
    # builds on the CPU is on the device after a move under any test, and reported)
    code = _app(test="len(device.type) > 3").replace(
        "BartForConditionalGeneration.from_pretrained('bart-large')", "hub.load_model('bart-large')")
    assert finding_lines({"app.py": code}, "FRY014") == []
