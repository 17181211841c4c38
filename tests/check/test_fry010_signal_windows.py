"""FRY010 and the signal windows (``torch.hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``): made of one length on the CPU
unless ``device=`` says otherwise, so a window handed to ``torch.stft`` / ``torch.istft``
with a signal that may be on the device fails there ("stft input and window must be on the
same device").  A window made on the signal's device, moved there, or met by a signal the
code keeps on the CPU is not reported."""

from __future__ import annotations

from collections.abc import Callable

import pytest

MODULE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Spectrogram(nn.Module):\n"
    "    def __init__(self, n_fft):\n"
    "        super().__init__()\n"
    "        self.n_fft = n_fft\n"
    "\n"
    "    def forward(self, wav):\n"
    "        window = {WINDOW}\n"
    "        spec = torch.stft(wav, self.n_fft, window=window, return_complex=True)\n"
    "        return spec.abs()\n"
)


@pytest.mark.parametrize(
    "maker", ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
)
def test_a_window_made_on_the_cpu_for_a_signal_that_may_be_on_the_device(
    finding_lines: Callable[..., list[int]], maker: str
) -> None:
    code = MODULE.replace("{WINDOW}", f"torch.{maker}(self.n_fft)")
    assert finding_lines({"spec.py": code}, "FRY010") == [11]


@pytest.mark.parametrize(
    "window",
    [
        "torch.hann_window(self.n_fft, device=wav.device)",
        "torch.hann_window(self.n_fft).to(wav.device)",
        "torch.hann_window(self.n_fft).to(wav)",
    ],
)
def test_a_window_on_the_signal_s_device_is_quiet(
    finding_lines: Callable[..., list[int]], window: str
) -> None:
    code = MODULE.replace("{WINDOW}", window)
    assert finding_lines({"spec.py": code}, "FRY010") == []


def test_istft_of_a_spectrum_moved_to_the_device(finding_lines: Callable[..., list[int]]) -> None:
    code = (
        "import torch\n"
        "\n"
        "\n"
        "def invert(spec, device):\n"
        "    spec = spec.to(device)\n"
        "    return torch.istft(spec, 512, window=torch.hann_window(512))\n"
    )
    assert finding_lines({"inv.py": code}, "FRY010") == [6]


def test_a_signal_kept_on_the_cpu_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = (
        "import torch\n"
        "\n"
        "\n"
        "def spectrum(wav):\n"
        "    wav = wav.cpu()\n"
        "    return torch.stft(wav, 512, window=torch.hann_window(512), return_complex=True)\n"
    )
    assert finding_lines({"spec.py": code}, "FRY010") == []


def test_a_window_made_on_the_device_is_quiet(finding_lines: Callable[..., list[int]]) -> None:
    code = (
        "import torch\n"
        "\n"
        "\n"
        "def spectrum(wav, device):\n"
        "    wav = wav.to(device)\n"
        "    window = torch.hann_window(512, device=device)\n"
        "    return torch.stft(wav, 512, window=window, return_complex=True)\n"
    )
    assert finding_lines({"spec.py": code}, "FRY010") == []


ALIASED = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class SpectralLoss(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.win = torch.hann_window\n"
    "\n"
    "    def forward(self, output, target):\n"
    "        x = torch.stft(output, 512, window=self.win(512{DEVICE}), return_complex=True)\n"
    "        y = torch.stft(target, 512, window=self.win(512{DEVICE}), return_complex=True)\n"
    "        return (x.abs() - y.abs()).pow(2).mean()\n"
)


def test_a_window_factory_kept_as_a_value_and_called(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = ALIASED.replace("{DEVICE}", "")
    assert finding_lines({"loss.py": code}, "FRY010") == [11, 12]


def test_a_window_factory_kept_as_a_value_and_called_on_the_device_is_quiet(
    finding_lines: Callable[..., list[int]],
) -> None:
    code = ALIASED.replace("{DEVICE}", ", device=output.device")
    assert finding_lines({"loss.py": code}, "FRY010") == []
