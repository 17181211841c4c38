"""FRY013 on the batches of a loader whose ``collate_fn`` is a function of the run that
returns a tuple: an item the function builds as a list of Python numbers (``lengths``) is
no tensor and has nothing to move, when the tensors it returns are made of the samples
alone (``torch.stack`` of them: where the samples are, as without a collate).
Such a stacked tensor left unmoved next to a moved one is still reported."""

from __future__ import annotations

from torchferry.check.engine import check_source

SOURCE = '''
import torch
from torch.utils.data import DataLoader


def collate(batch):
    data = torch.stack([a for a, _ in batch])
    lengths = [a.shape[0] for a, _ in batch]
    labels = torch.stack([b for _, b in batch])
    return data, lengths, labels


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x, lengths):
        return self.fc(x[:, : max(lengths)])


def main(ds):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    loader = DataLoader(ds, batch_size=4, collate_fn=collate)
    for data, lengths, labels in loader:
        out = model(data.to(device), lengths)
        loss = torch.nn.functional.cross_entropy(out, labels.to(device))
'''


def _findings(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.message.split("`")[1]) for f in check_source(source, "t.py", select=["FRY013"])]


def test_a_list_of_numbers_a_collate_function_returns_is_not_reported() -> None:
    assert _findings(SOURCE) == []


def test_a_tensor_stacked_of_the_samples_left_unmoved_is_still_reported() -> None:
    source = SOURCE.replace("labels.to(device))", "labels)")
    line = next(i for i, ln in enumerate(source.splitlines(), 1) if "cross_entropy(out, labels)" in ln)
    assert _findings(source) == [(line, "labels")]
