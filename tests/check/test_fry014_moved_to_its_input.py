"""FRY014 on a module that a helper moves to the device of the very tensor it then runs
on (``resampler = resampler.to(audio.device)``, then ``resampler(audio)``), where a caller
hands that helper a tensor made on the CPU: the module is wherever its input is, so the
two never part.  A move to another device or to the device of another tensor keeps the
finding."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

SOURCE = '''
import torch
import torchaudio


def resample(audio, sample_rate, ref=None):
    {prologue}
    resampler = torchaudio.transforms.Resample(sample_rate, 16000)
    resampler = resampler.to({device})
    return resampler({given})


def from_file(file):
    audio, sample_rate = torchaudio.load(file)
    return resample(audio, sample_rate, torch.zeros(1).cuda())
'''

QUIET = {
    "its_input": dict(device="audio.device", given="audio"),
    "keyword_device": dict(device="device=audio.device", given="audio"),
}

FLAGGED = {
    "written_device": dict(device='"cuda"', given="audio"),
    "another_tensor": dict(device="ref.device", given="audio"),
}


def _lines(parts: dict[str, str]) -> list[int]:
    source = SOURCE.format(**{"prologue": "pass", **parts})
    return [f.line for f in check_source(source, "t.py", select=["FRY014"])]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_moved_to_the_device_of_its_input(name: str) -> None:
    assert _lines(QUIET[name]) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_other_moves_stay_flagged(name: str) -> None:
    assert len(_lines(FLAGGED[name])) == 1
