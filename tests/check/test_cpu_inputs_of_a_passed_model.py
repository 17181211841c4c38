"""A model handed to a training function (``def train(loader, model, device)``) is the
class every call of the file gives it: an input its ``forward`` only packs with
(``pack_padded_sequence(x, lengths)``, which torch wants on the CPU) or moves to the CPU
first belongs on the CPU, so FRY013 does not ask to move it and FRY010 does not call a
CPU-built one a mismatch.  An input ``forward`` also computes with on the device stays
reported, as does a model some call gives a class that does so."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

class LSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.lstm = nn.LSTM(4, 4, batch_first=True)
        self.fc = nn.Linear(4, 2)

    def forward(self, ids, length):
        embedded = self.embedding(ids)
"""
#: ``forward``'s uses of ``length``, each alone on a line of the body
PACKED = "        packed = nn.utils.rnn.pack_padded_sequence(embedded, length, batch_first=True)\n"
PACKED_BY_KEYWORD = "        packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths=length)\n"
MOVED_TO_THE_CPU = (
    "        packed = nn.utils.rnn.pack_padded_sequence(embedded, length.to('cpu'))\n"
)
#: ``length`` also computes with a tensor on the device: it must be there too
ALSO_ON_THE_DEVICE = PACKED + "        embedded = embedded * (length > 0).float()[:, None, None]\n"
TAIL = """
        _, (hidden, _) = self.lstm(packed)
        return self.fc(hidden[-1])

def train(loader, model, device):
    for batch in loader:
        ids = batch["ids"].to(device)
        length = batch["length"]
        prediction = model(ids, length)
        prediction.sum().backward()

def predict(model, ids, device):
    length = torch.LongTensor([len(ids)])
    tensor = torch.LongTensor(ids).unsqueeze(0).to(device)
    return model(tensor, length)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = LSTM().to(device)
loader = DataLoader([])
train(loader, model, device)
predict(model, [1, 2, 3], device)
"""
#: another class, whose ``forward`` adds ``length`` to a tensor on the device
OTHER = """
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, ids, length):
        return self.fc(ids.float()) + length[:, None]

other = Scaled().to(device)
train(loader, other, device)
predict(other, [1, 2, 3], device)
"""


def codes(source: str) -> list[tuple[str, str]]:
    lines = source.splitlines()
    return sorted(
        (f.code, lines[f.line - 1].strip())
        for f in check_source(source, "t.py", select=["FRY010", "FRY013"])
    )


FLAGGED = [
    ("FRY010", "length = torch.LongTensor([len(ids)])"),
    ("FRY013", "prediction = model(ids, length)"),
]


@pytest.mark.parametrize("use", [PACKED, PACKED_BY_KEYWORD, MOVED_TO_THE_CPU])
def test_lengths_a_passed_model_packs_with_are_left_on_the_cpu(use: str) -> None:
    assert codes(HEAD + use + TAIL) == []


def test_lengths_also_used_on_the_device_stay_reported() -> None:
    assert codes(HEAD + ALSO_ON_THE_DEVICE + TAIL) == FLAGGED


def test_a_call_giving_a_model_that_computes_with_the_lengths_keeps_them_reported() -> None:
    assert codes(HEAD + PACKED + TAIL + OTHER) == FLAGGED


def test_a_model_no_call_of_the_file_gives_keeps_them_reported() -> None:
    unbound = (
        (HEAD + PACKED + TAIL)
        .replace("train(loader, model, device)\n", "")
        .replace("predict(model, [1, 2, 3], device)\n", "")
    )
    assert codes(unbound) == FLAGGED


def test_a_model_built_where_it_is_called_is_read_alike() -> None:
    built = (
        (HEAD + "{}" + TAIL)
        .replace(
            "def train(loader, model, device):",
            "def train(loader, device):\n    model = LSTM().to(device)",
        )
        .replace("train(loader, model, device)", "train(loader, device)")
    )
    assert codes(built.format(PACKED)) == []
    assert codes(built.format(ALSO_ON_THE_DEVICE)) == FLAGGED
