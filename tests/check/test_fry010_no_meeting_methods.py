"""A tensor method that moves its receiver (``t.cuda(other.get_device())``,
``t.to(other.device)``) or reads only another tensor's shape (``t.expand_as(other)``,
``t.view_as(other)``) is no meeting of the two: no device check runs there."""

from __future__ import annotations

import textwrap

from torchferry.check.engine import check_source

MOVED_WITH_A_DEVICE_ARGUMENT = """
import torch


def mask_matrix(n):
    return torch.ones(n, n) - torch.eye(n, n)


def loss(scores):
    mask = mask_matrix(scores.size(1))
    if scores.is_cuda:
        mask = mask.cuda(scores.get_device())
    return (scores * mask).sum()


def run(x, device):
    return loss(x.to(device))
"""

SHAPE_READ_THEN_MOVED = """
import torch


class Beam:
    def __init__(self, n, device):
        self.device = device
        self.n = n
        self.mask = torch.ones(4, n).to(device)

    def update(self, nodes):
        arr = torch.arange(0, self.n).unsqueeze(0).expand_as(self.mask).to(self.device)
        self.mask = self.mask * (arr != nodes)
"""

SHAPE_READ_THEN_MET = """
import torch


class Beam:
    def __init__(self, n, device):
        self.device = device
        self.n = n
        self.mask = torch.ones(4, n).to(device)

    def update(self, nodes):
        arr = torch.arange(0, self.n).unsqueeze(0).expand_as(self.mask)
        self.mask = self.mask * (arr != nodes)
"""


def lines(source: str) -> list[int]:
    found = check_source(textwrap.dedent(source), "t.py", select=["FRY010"])
    return [f.line for f in found]


def test_a_move_given_another_tensors_device_is_no_meeting() -> None:
    assert lines(MOVED_WITH_A_DEVICE_ARGUMENT) == []


def test_a_shape_read_from_a_tensor_on_the_device_is_no_meeting() -> None:
    assert lines(SHAPE_READ_THEN_MOVED) == []


def test_the_factory_still_meets_the_tensor_whose_shape_it_took() -> None:
    assert lines(SHAPE_READ_THEN_MET) == [12]


def test_a_move_of_the_factory_left_out_on_one_arm_is_still_found() -> None:
    source = MOVED_WITH_A_DEVICE_ARGUMENT.replace(
        "    if scores.is_cuda:\n        mask = mask.cuda(scores.get_device())\n", ""
    )
    assert lines(source) == [6, 6]


ZERO_DIM_RANDOM = """
import torch


def augment(inputs, epsilon):
    a = torch.rand({shape})
    noise = torch.rand_like(inputs).to(inputs.device)
    return inputs + epsilon * a * noise


def run(x, device):
    return augment(x.to(device), 0.1)
"""


def test_a_random_tensor_of_no_dimension_mixes_with_any_device() -> None:
    assert lines(ZERO_DIM_RANDOM.format(shape="[]")) == []
    assert lines(ZERO_DIM_RANDOM.format(shape="()")) == []


def test_a_random_tensor_of_one_dimension_does_not() -> None:
    assert lines(ZERO_DIM_RANDOM.format(shape="[1]")) == [6]


BROADCAST = """
import torch


def expand_to(x, shape, device):
    x = x.to(device)
    x, _ = torch.broadcast_tensors(x, torch.empty(shape))
    return x
"""


def test_broadcasting_views_keep_each_tensors_device() -> None:
    assert lines(BROADCAST) == []


def test_a_factory_added_to_a_moved_tensor_is_still_found() -> None:
    added = BROADCAST.replace(
        "x, _ = torch.broadcast_tensors(x, torch.empty(shape))", "x = x + torch.empty(shape)"
    )
    assert lines(added) == [7]
