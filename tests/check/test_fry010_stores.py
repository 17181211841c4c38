"""FRY010 where a tensor is stored rather than computed with: items a list holds
together when a torch function joins it (``torch.stack(his)`` of a list started with a
CPU tensor and filled with tensors on the device), values written through tensor indices
(``t[idx] = torch.arange(n)`` into ``t`` on the device), and a factory's result joined
with a value another path moved (``f = fast(x) if n > 1 else torch.zeros(n)``)."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = "import numpy as np\nimport torch\n"


def lines(source: str) -> list[int]:
    return [f.line for f in check_source(HEAD + source, "t.py", select=["FRY010"])]


HISTORY = """
def mds(dist, iters):
    device = dist.device
    his = [torch.tensor([np.inf] * dist.shape[0])]
    coords = torch.rand(dist.shape[0], 3, device=device)
    for i in range(iters):
        stress = (torch.cdist(coords, coords) - dist).sum(-1)
        his.append(stress)
    return torch.stack(his)
"""

HISTORY_ON_DEVICE = HISTORY.replace("* dist.shape[0])]", "* dist.shape[0], device=device)]")

#: started empty: the first append holds a CPU tensor, the loop appends tensors on the device
APPENDED = """
def gather(x, n):
    parts = []
    parts.append(torch.zeros(4))
    for i in range(n):
        parts.append(x.cuda())
    return torch.cat(parts)
"""

#: each arm appends one tensor: they are never in the list together
ARMS = """
def pick(x, flag):
    parts = []
    if flag:
        parts.append(torch.zeros(4))
    else:
        parts.append(x.cuda())
    return torch.cat(parts)
"""

#: the list is handed to a function the analysis does not follow, which may replace items
ESCAPES = APPENDED.replace(
    "    return torch.cat(parts)", "    fix(parts)\n    return torch.cat(parts)"
)

#: appended after the join: not in the list when it is joined
LATE = """
def gather(x):
    parts = [torch.zeros(4)]
    out = torch.cat(parts)
    parts.append(x.cuda())
    return out
"""


def test_a_cpu_item_stacked_with_appended_device_tensors_is_reported() -> None:
    assert lines(HISTORY) == [6]


def test_a_first_append_on_the_cpu_is_reported() -> None:
    assert lines(APPENDED) == [6]


@pytest.mark.parametrize("source", [HISTORY_ON_DEVICE, ARMS, ESCAPES, LATE])
def test_items_never_held_together_on_two_devices_are_not_reported(source: str) -> None:
    assert lines(source) == []


WRITE = """
def fill(v, n):
    idx = torch.tril_indices(n, n, -1)
    table = -torch.ones((n, n), device=v.device, dtype=torch.long)
    table[idx[0], idx[1]] = torch.arange(v.shape[0])
    return table
"""

#: a slice is a copy, which copies across devices
SLICED = WRITE.replace("table[idx[0], idx[1]]", "table[0, :]")

#: made where the table is
WRITE_ON_DEVICE = WRITE.replace(
    "torch.arange(v.shape[0])", "torch.arange(v.shape[0], device=v.device)"
)

#: a 0-dimensional value is moved to the table's device
WRITE_SCALAR = WRITE.replace("torch.arange(v.shape[0])", "torch.tensor(1)")

#: a table on the CPU takes values on the CPU
WRITE_ON_CPU = WRITE.replace("device=v.device, ", "")


def test_a_cpu_tensor_written_through_indices_into_a_device_tensor_is_reported() -> None:
    assert lines(WRITE) == [7]


@pytest.mark.parametrize("source", [SLICED, WRITE_ON_DEVICE, WRITE_SCALAR, WRITE_ON_CPU])
def test_writes_that_torch_takes_are_not_reported(source: str) -> None:
    assert 7 not in lines(source)


JOINED = """
def dca(x, w):
    d = x.device
    a = (x @ torch.eye(x.shape[1]).to(d)) * w.sum()
    b = torch.ones(3).to(d) + a.sum()
    return a + b


def features(msa, flag):
    one = torch.from_numpy(msa).float().to("cuda")
    w = one.sum(0).to("cuda")
    f = dca(one, w) if flag else torch.zeros((4, 4))
    return torch.cat((one, f), dim=-1)
"""

#: the factory's result itself is moved on the way
JOINED_MOVED = JOINED.replace("torch.zeros((4, 4))", "torch.zeros((4, 4)).to(one.device)")

#: a helper moves whatever it is given: the factory's result may be what it moved
HELPER = """
def put(t):
    return t.to("cuda")


def features(x, flag):
    one = x.to("cuda")
    f = put(one) if flag else put(torch.zeros((4, 4)))
    return torch.cat((one, f), dim=-1)
"""


def test_a_factory_joined_with_a_value_moved_on_another_path_is_reported() -> None:
    assert lines(JOINED) == [14]


@pytest.mark.parametrize("source", [JOINED_MOVED, HELPER])
def test_a_factory_the_code_may_have_moved_is_not_reported(source: str) -> None:
    assert lines(source) == []


#: a 0-dimensional index reads as its number: ``jaccard[:, j] = col`` is a copy
ZERO_DIM_INDEX = """
def assign(jaccard, n):
    col = torch.full((n,), -1)
    for _ in range(n):
        j = (torch.argmax(jaccard) % n).long()
        jaccard[:, j] = col
    return jaccard
"""

#: the items of a 1-dimensional tensor, taken one by one, are 0-dimensional
ITEMS_OF_REPEATED = """
def mix(xs, layers, weights=None):
    if weights is None:
        weights = torch.tensor([1 / len(xs)] * len(xs))
    out = None
    for x, w, layer in zip(xs, weights, layers):
        y = layer(x.cuda())
        out = w * y if out is None else out + w * y
    return out
"""


@pytest.mark.parametrize("source", [ZERO_DIM_INDEX, ITEMS_OF_REPEATED])
def test_zero_dimensional_indices_and_items_are_not_reported(source: str) -> None:
    assert lines(source) == []


#: the factory's result is combined with the moved tensor on the same path: the product
#: lives where the move put it, not on the CPU
COMBINED = """
def perturb(x):
    mask = torch.rand(x.shape).cuda() > 0.5
    mask = mask.to(x.device)
    noise = torch.rand(mask.shape) * x.max()
    return x + mask * noise


def both(x):
    a = x * (torch.rand(x.shape).cuda() > 0.5).to(x.device)
    b = perturb(x)
    return a + b
"""


def test_a_factory_combined_with_a_moved_tensor_is_not_taken_apart() -> None:
    assert 6 not in lines(COMBINED)
