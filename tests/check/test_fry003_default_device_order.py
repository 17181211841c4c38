"""FRY003 and a CUDA default device set part-way through a script or notebook: a tensor the
script's own code makes before the call that sets it is on the CPU; one made after it is on
the GPU."""

from __future__ import annotations

from collections.abc import Callable


def test_a_tensor_made_before_the_default_is_set_is_not_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = (
        "import torch\n"
        "x = torch.randn(3)\n"
        "print(x.numpy())\n"
        "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
    )
    assert finding_lines({"script.py": text}, "FRY003") == []


def test_a_tensor_made_after_the_default_is_set_is_reported(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = (
        "import torch\n"
        "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
        "x = torch.randn(3)\n"
        "print(x.numpy())\n"
    )
    assert finding_lines({"script.py": text}, "FRY003") == [4]


_PREDICT = (
    "def predict(path):\n"
    "    img = torch.from_numpy(np.load(path))\n"
    "    pred = detection([img])\n"
    "    return pred[0]['scores'].detach().numpy()\n"
)


def test_a_model_the_script_builds_before_the_default_is_set_is_not_reported_in_a_function(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = (
        "import numpy as np\n"
        "import torch\n"
        "from torchvision import models\n"
        "detection = models.detection.maskrcnn_resnet50_fpn(pretrained=True)\n"
        + _PREDICT
        + "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
    )
    assert finding_lines({"script.py": text}, "FRY003") == []


def test_a_model_the_script_builds_after_the_default_is_set_is_reported_in_a_function(
    finding_lines: Callable[..., list[int]],
) -> None:
    text = (
        "import numpy as np\n"
        "import torch\n"
        "from torchvision import models\n"
        "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
        "detection = models.detection.maskrcnn_resnet50_fpn(pretrained=True)\n"
        + _PREDICT
    )
    assert finding_lines({"script.py": text}, "FRY003") == [9]
