"""FRY006 asks :func:`torchferry.check.flow.waits.call_waits` whether a call waits: what
waits at the clock read waits inside a helper of the run too."""

from __future__ import annotations

from collections.abc import Callable

Lines = Callable[[dict[str, str], str], list[int]]



TIMED = (
    "import time\n"
    "import torch\n"
    "model = torch.nn.Linear(4, 2).cuda()\n"
    "x = torch.randn(8, 4, device='cuda')\n"
    "\n"
    "\n"
    "def step(model, x):\n"
    "    out = model(x)\n"
    "    {wait}\n"
    "    return out\n"
    "\n"
    "\n"
    "t0 = time.time()\n"
    "{call}\n"
    "print(time.time() - t0)\n"
)


def _lines(finding_lines: Lines, src: str) -> list[int]:
    return finding_lines({"timed.py": src}, "FRY006")


def test_a_saved_state_dict_waits_at_the_read_and_inside_a_helper(finding_lines: Lines) -> None:
    save = "torch.save(model.state_dict(), 'w.pt')"
    # at the read: the interval holds the forward pass and the save
    assert _lines(finding_lines, TIMED.format(wait="pass", call=f"model(x)\n{save}")) == []
    # inside a helper that saves on every path
    assert _lines(finding_lines, TIMED.format(wait=save, call="step(model, x)")) == []
    # a helper that does not wait: the read is reported
    assert _lines(finding_lines, TIMED.format(wait="pass", call="step(model, x)")) == [15]


def test_a_name_is_evidence_of_a_wait_only_at_the_read(finding_lines: Lines) -> None:
    # ``sample_no_sync`` is named like a synchronize: at the read that is taken at its word,
    # but inside ``step`` its body is read, and it does not wait
    helper = "\n\ndef sample_no_sync(p):\n    return torch.argmax(p, dim=-1)\n"
    direct = TIMED.format(wait="pass", call="y = sample_no_sync(model(x))") + helper
    assert _lines(finding_lines, direct) == []
    inside = TIMED.format(wait="out = sample_no_sync(out)", call="step(model, x)") + helper
    assert _lines(finding_lines, inside) == [15]
