"""FRY003 knows library calls that read what they are given with NumPy: detectron2's
``Visualizer.draw_instance_predictions`` (an ``Instances``' fields), ``draw_sem_seg`` and
``draw_panoptic_seg`` (a tensor, with ``.numpy()``), on an object built from the class, and
soundfile's ``write`` (its ``data``, with ``np.asarray``)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source
from torchferry.check.flow.libfacts import NUMPY_CONSUMERS, numpy_consumer
from torchferry.check.prefilter import mentions

HEAD = (
    "import torch\n"
    "from detectron2.utils.visualizer import Visualizer\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
)


def findings(body: str) -> list[int]:
    return [f.line for f in check_source(HEAD + body, "<case>", select=["FRY003"])]


FLAGGED = {
    "instances-moved": (
        "def show(img, out, meta):\n"
        "    v = Visualizer(img[:, :, ::-1], meta, scale=1.2)\n"
        "    return v.draw_instance_predictions(out['instances'].to(device))\n"
    ),
    "instances-keyword": (
        "def show(img, out, meta):\n"
        "    v = Visualizer(img, meta)\n"
        "    return v.draw_instance_predictions(predictions=out['instances'].to(device))\n"
    ),
    "sem-seg-on-the-call": (
        "def show(img, logits, meta):\n"
        "    seg = logits.argmax(dim=0).to(device)\n"
        "    return Visualizer(img, meta).draw_sem_seg(seg)\n"
    ),
    "panoptic-made-on-the-device": (
        "def show(img, info, meta):\n"
        "    seg = torch.zeros(4, 4, dtype=torch.int32, device=device)\n"
        "    return Visualizer(img, meta).draw_panoptic_seg(seg, info)\n"
    ),
    "panoptic-older-name": (
        "def show(img, seg, info, meta):\n"
        "    v = Visualizer(img, meta)\n"
        "    return v.draw_panoptic_seg_predictions(seg.to(device), info)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged(name: str) -> None:
    assert findings(FLAGGED[name]) == [6]


QUIET = {
    "instances-home": (
        "def show(img, out, meta):\n"
        "    v = Visualizer(img, meta)\n"
        "    return v.draw_instance_predictions(out['instances'].to('cpu'))\n"
    ),
    "sem-seg-home": (
        "def show(img, logits, meta):\n"
        "    seg = logits.argmax(dim=0).to(device)\n"
        "    return Visualizer(img, meta).draw_sem_seg(seg.cpu())\n"
    ),
    # the segments' info is a list of dicts, never converted
    "panoptic-info-only": (
        "def show(img, seg, meta):\n"
        "    info = [torch.ones(1, device=device)]\n"
        "    return Visualizer(img, meta).draw_panoptic_seg(seg, info)\n"
    ),
    # a receiver the scope also binds to something else
    "rebound-receiver": (
        "def show(img, out, meta, other):\n"
        "    v = Visualizer(img, meta)\n"
        "    v = other\n"
        "    return v.draw_instance_predictions(out['instances'].to(device))\n"
    ),
    # a class of the same name that is not detectron2's
    "own-visualizer": (
        "class Painter:\n"
        "    def draw_sem_seg(self, seg):\n"
        "        return seg\n"
        "def show(logits):\n"
        "    return Painter().draw_sem_seg(logits.to(device))\n"
    ),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name: str) -> None:
    assert findings(QUIET[name]) == []


def test_instances_are_brought_home_with_to() -> None:
    src = HEAD + FLAGGED["instances-moved"]
    (found,) = check_source(src, "<case>", select=["FRY003"])
    assert '`.to("cpu")`' in found.message and "tensors it holds" in found.message
    assert found.fix is not None and not found.fix.safe


def test_torchvision_savers_are_not_consumers() -> None:
    assert all(not c.startswith("torchvision.") for fact in NUMPY_CONSUMERS for c in fact.classes)
    assert numpy_consumer("detectron2.utils.visualizer.Visualizer", "draw_dataset_dict") is None


def test_prefilter_keeps_a_file_that_names_only_the_library() -> None:
    assert mentions(b"from detectron2.utils.visualizer import Visualizer\n")


SOUND = (
    "import torch\n"
    "import soundfile as sf\n"
    "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "model = torch.nn.Conv1d(1, 1, 3).to(device)\n"
)


@pytest.mark.parametrize("call", ["sf.write(path, wav, 16000)", "sf.write(path, data=wav, samplerate=16000)"])
def test_soundfile_write_of_a_device_tensor(call: str) -> None:
    src = SOUND + f"def save(path, x):\n    wav = model(x.to(device))[0, 0]\n    {call}\n"
    assert [f.line for f in check_source(src, "<case>", select=["FRY003"])] == [7]


def test_soundfile_write_of_a_tensor_brought_home() -> None:
    src = SOUND + ("def save(path, x):\n    wav = model(x.to(device))[0, 0]\n"
                   "    sf.write(path, wav.detach().cpu(), 16000)\n")
    assert check_source(src, "<case>", select=["FRY003"]) == []
