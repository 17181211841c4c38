"""Where a torch function computes when one of its tensors has no known place: on the
device of a known operand off the CPU (only a 0-dimensional CPU tensor meets a tensor of
another device), so a module's attribute combined with what a helper computes from its
input and an attribute the analysis cannot place is seen meeting the model's tensors."""

from __future__ import annotations

import ast

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow import Where, analyze
from torchferry.check.flow.queries import value_of

LOSS = '''
import librosa.filters
import torch


class SpectralLoss(torch.nn.Module):
    def __init__(self, n_fft=1024, window="hann_window", sample_rate=None, n_bins=None):
        super().__init__()
        self.n_fft = n_fft
        self.window = getattr(torch, window)(n_fft)
        fb = librosa.filters.mel(sr=sample_rate, n_fft=n_fft, n_mels=n_bins)
        self.fb = torch.tensor(fb).unsqueeze(0)

    def spectrum(self, x):
        s = torch.stft(x, self.n_fft, window=self.window, return_complex=True)
        mag = torch.sqrt(torch.clamp(s.real ** 2 + s.imag ** 2, min=1e-8))
        return mag, torch.angle(s)

    def forward(self, x, y):
        self.window = self.window.to(x.device)
        x_mag, x_phs = self.spectrum(x.view(-1, x.size(-1)))
        y_mag, y_phs = self.spectrum(y.view(-1, y.size(-1)))
        x_mag = torch.matmul(self.fb, x_mag)
        y_mag = torch.matmul(self.fb, y_mag)
        return torch.nn.functional.l1_loss(x_mag, y_mag)
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY011"])]


def test_attribute_met_with_a_helper_result_of_an_unplaced_operand_is_flagged() -> None:
    assert _lines(LOSS) == [12]


@pytest.mark.parametrize("safe", [
    # registered: ``model.to()`` moves it
    ("        self.fb = torch.tensor(fb).unsqueeze(0)\n",
     '        self.register_buffer("fb", torch.tensor(fb).unsqueeze(0))\n'),
    # moved where it is used
    ("torch.matmul(self.fb, x_mag)", "torch.matmul(self.fb.to(x.device), x_mag)"),
])
def test_attribute_on_the_inputs_device_is_quiet(safe: tuple[str, str]) -> None:
    src = LOSS.replace(*safe)
    assert safe[1] in src
    assert 12 not in _lines(src)


def _where(src: str, name: str) -> set[Where] | None:
    tree = ast.parse(src)
    ff = analyze(tree, "t.py")
    node = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name][-1]
    found = value_of(ff, node)
    assert found is not None
    places = found[1].places
    return None if places is None else {p.where for p in places}


SPEC = '''
import torch
from lib import window_of


class Spectrum:
    def __init__(self, n):
        self.n = n
        self.window = window_of(n)

    def __call__(self):
        w = window_of(self.n)
        x = torch.randn(4, self.n){move}
        s = torch.stft(x, self.n, window=self.window, return_complex=True)
        r = torch.stft(x, self.n, window=w, return_complex=True)
        return s, r
'''


def test_a_torch_function_of_a_device_tensor_and_an_unplaced_one_is_on_the_device() -> None:
    assert _where(SPEC.format(move=".cuda()"), "s") == {Where.ACCEL}


def test_a_torch_function_of_a_cpu_tensor_and_an_unplaced_one_stays_unknown() -> None:
    # (the CPU tensor may be a 0-dimensional scalar, the other on a device)
    assert _where(SPEC.format(move=""), "s") is None


def test_an_unplaced_operand_that_is_no_held_attribute_keeps_the_result_unknown() -> None:
    assert _where(SPEC.format(move=".cuda()"), "r") is None
