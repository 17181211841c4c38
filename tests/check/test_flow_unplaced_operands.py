"""A helper's arithmetic on a tensor and a value of unknown kind and place: called with a
tensor and ``hp.preemphasis`` of a configuration the analysis does not read (most often a
number), ``wav[:, 1:] - coeff * wav[:, :-1]`` returns a tensor where ``wav`` is, as the
same arithmetic written in the caller would (a tensor operand is where the others are or
the operation fails); a helper that returns the unknown value itself on some path does
not."""

from __future__ import annotations

from collections.abc import Callable

CODE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from hparams import hp\n"
    "\n"
    "\n"
    "class Spectrogram(nn.Module):\n"
    "    def preemphasize(self, wav, coeff):\n"
    "        {BODY}\n"
    "\n"
    "    def forward(self, wav):\n"
    "        wav = self.preemphasize({WAV}, hp.preemphasis)\n"
    "        return torch.stft(wav, 512, window=torch.hann_window(512))\n"
)
ARITH = "return wav[:, 1:] - coeff * wav[:, :-1]"


def test_arithmetic_with_an_unknown_operand_is_where_the_tensor_is(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = CODE.replace("{BODY}", ARITH).replace("{WAV}", "wav")
    assert finding_lines({"spec.py": code}, "FRY010") == [12]


def test_the_unknown_value_returned_on_a_path_keeps_the_return_unknown(
    finding_lines: Callable[..., list[int]],
) -> None:
    body = "return coeff if coeff is not None else wav * 2"
    code = CODE.replace("{BODY}", body).replace("{WAV}", "wav")
    assert finding_lines({"spec.py": code}, "FRY010") == []


def test_a_signal_moved_to_the_cpu_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{BODY}", ARITH).replace("{WAV}", "wav.cpu()")
    assert finding_lines({"spec.py": code}, "FRY010") == []

