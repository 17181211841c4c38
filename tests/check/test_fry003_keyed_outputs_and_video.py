"""FRY003 on what a model returns under a string key, and on torchvision's video writer.

No tensor is indexed by a string: ``out["preds"]`` of a model's output is a value of a
mapping, of unknown kind (a model may return NumPy arrays there), so handing it to a NumPy
function is not flagged; ``.numpy()`` on it (which needs a tensor anyway) still is.
``torchvision.io.write_video`` reads its ``video_array`` with ``.numpy()``: a tensor on the
accelerator given there is flagged; one brought home is not."""

from __future__ import annotations

from torchferry.check.engine import check_source

KEYED_OUTPUT = """
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        logits = self.fc(x)
        preds = logits.argmax(1).cpu().numpy()
        return logits, {"preds": np.array(preds), "logits": logits}

def evaluate(loader):
    model = Net().to(device)
    for x, y in loader:
        logits, extra = model(x.to(device))
        kept = np.array(extra["preds"])
        raw = extra["logits"].numpy()
    return kept, raw
"""

VIDEO = """
import torch
from torchvision.io import write_video

def save(frames, path):
    video = (torch.as_tensor(frames).cuda() * 255).byte()
    write_video(path, video, fps=20)
"""


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(source, "t.py", select=["FRY003"])]


def line_of(source: str, text: str) -> int:
    return next(k for k, line in enumerate(source.splitlines(), 1) if text in line)


def test_a_keyed_item_of_a_model_output_is_of_unknown_kind() -> None:
    assert lines(KEYED_OUTPUT) == [line_of(KEYED_OUTPUT, 'extra["logits"].numpy()')]


def test_a_tensor_item_of_an_output_still_counts() -> None:
    source = KEYED_OUTPUT.replace('kept = np.array(extra["preds"])', "kept = np.array(logits)")
    assert lines(source) == [
        line_of(source, "np.array(logits)"),
        line_of(source, 'extra["logits"].numpy()'),
    ]


def test_write_video_reads_its_frames_with_numpy() -> None:
    assert lines(VIDEO) == [line_of(VIDEO, "write_video(path")]
    by_keyword = VIDEO.replace("write_video(path, video,", "write_video(path, video_array=video,")
    assert lines(by_keyword) == [line_of(by_keyword, "write_video(path")]


def test_write_video_of_frames_brought_home_is_quiet() -> None:
    assert lines(VIDEO.replace("write_video(path, video,", "write_video(path, video.cpu(),")) == []
    assert (
        lines(
            VIDEO.replace("write_video(path, video, fps=20)", "write_video(path, frames, fps=20)")
        )
        == []
    )
