"""FRY003 on a NumPy array indexed by a tensor that may be on the accelerator
(``rev_idx[torch.multinomial(w, n)]``): NumPy reads an index that is no integer as an array,
through ``Tensor.__array__``, which is ``.numpy()`` and fails for a CUDA tensor.  An index
that may hold one element (a reduction without a dimension, an item, a sample of one) is
read through ``__index__``, which works anywhere, and is not flagged; nor is an index on
the CPU or a receiver not known to be a NumPy array.  ``torch.multinomial`` and
``torch.bernoulli`` sample where their input is."""

from __future__ import annotations

import pytest

from torchferry.check.engine import check_source

HEAD = """
import numpy as np
import torch

def pick(n, device=torch.device("cuda")):
    w = torch.rand(n, device=device)
    idx = np.arange(n)
    table = np.zeros((n, 3))
"""

FIRES = {
    "sampled-index": "    return idx[torch.multinomial(w, 10)]",
    "sampled-index-method": "    return idx[w.multinomial(8)]",
    "mask-in-a-tuple": "    return table[w > 0.5, :]",
    "topk-indices": "    return idx[torch.topk(w, 5).indices]",
    "bernoulli-mask": "    return idx[torch.bernoulli(w).bool()]",
}

QUIET = {
    "brought-home": "    return idx[torch.multinomial(w, 10).cpu()]",
    "reduction": "    return idx[w.argmax()]",
    "an-item": "    return idx[torch.multinomial(w, 10)[0]]",
    "one-sample": "    return idx[torch.multinomial(w, 1)]",
    "top-one": "    return idx[torch.topk(w, k=1).indices]",
    "cpu-index": "    return idx[torch.multinomial(torch.rand(n), 10)]",
    "not-an-array": "    return w[torch.multinomial(w, 10)]",
}


def lines(body: str) -> list[int]:
    src = HEAD + body + "\n"
    return [f.line for f in check_source(src, "<case>", select=["FRY003"])]


@pytest.mark.parametrize("name", sorted(FIRES))
def test_fires_on_an_array_indexed_by_a_device_tensor(name: str) -> None:
    assert lines(FIRES[name]) == [9]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_where_numpy_reads_an_integer_or_the_index_is_home(name: str) -> None:
    assert lines(QUIET[name]) == []


def test_a_sample_is_where_its_input_is() -> None:
    src = HEAD + "    s = torch.multinomial(w, 10)\n    return s.numpy()\n"
    assert [f.line for f in check_source(src, "<case>", select=["FRY003"])] == [10]


def test_normal_of_numbers_is_still_made_on_the_cpu() -> None:
    src = HEAD + "    s = torch.normal(0.0, 1.0, size=(n,))\n    return s.numpy()\n"
    assert check_source(src, "<case>", select=["FRY003"]) == []
