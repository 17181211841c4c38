"""FRY011 and a ``forward`` input that ``forward`` only hands on, as it is, to a helper
method that uses it as a tensor (``self.transform(x)`` whose ``torch.stft(x, ...,
window=self.window)`` meets the plain attribute): the helper's use tells the input's kind,
so the input follows the model to its device there.  A window registered as a buffer, or
an input the forward moves to the CPU first, is quiet."""

from __future__ import annotations

from collections.abc import Callable

CODE = (
    "import numpy as np\n"
    "import torch\n"
    "\n"
    "\n"
    "class STFT(torch.nn.Module):\n"
    "    def __init__(self, n=800):\n"
    "        super().__init__()\n"
    "        self.n = n\n"
    "        {WINDOW}\n"
    "\n"
    "    def transform(self, signal):\n"
    "        spec = torch.stft(signal, self.n, window=self.window, return_complex=True)\n"
    "        return torch.abs(spec), torch.angle(spec)\n"
    "\n"
    "    def forward(self, signal):\n"
    "        return self.transform({SIGNAL})\n"
)
PLAIN = "self.window = torch.from_numpy(np.hanning(n).astype(np.float32))"


def test_an_input_handed_on_as_it_is_follows_the_model(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = CODE.replace("{WINDOW}", PLAIN).replace("{SIGNAL}", "signal")
    assert finding_lines({"stft.py": code}, "FRY011") == [9]


def test_a_window_made_by_torch_is_reported_too(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{WINDOW}", "self.window = torch.hann_window(n)")
    assert finding_lines({"stft.py": code.replace("{SIGNAL}", "signal")}, "FRY011") == [9]


def test_a_registered_window_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    window = 'self.register_buffer("window", torch.hann_window(n))'
    code = CODE.replace("{WINDOW}", window).replace("{SIGNAL}", "signal")
    assert finding_lines({"stft.py": code}, "FRY011") == []


def test_an_input_moved_to_the_cpu_first_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = CODE.replace("{WINDOW}", PLAIN).replace("{SIGNAL}", "signal.cpu()")
    assert finding_lines({"stft.py": code}, "FRY011") == []
