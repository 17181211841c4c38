"""A data-parallel wrapper (``nn.DataParallel(m)``, ``DistributedDataParallel(m)``) is where
the module it wraps is; given ``output_device=``, its output's place is another question,
and the wrapper's place is left unknown."""

from __future__ import annotations

import pytest

from torchferry.check.flow import Where


@pytest.mark.parametrize(("build", "where"), [
    ("nn.DataParallel(net.cuda())", {Where.ACCEL}),
    ("nn.DataParallel(net)", {Where.CPU}),
    ("DDP(net.cuda(), device_ids=[0])", {Where.ACCEL}),
    ("nn.DataParallel(net.cuda(), output_device=1)", None),
])
def test_the_wrapper_is_where_its_module_is(snippet, build: str, where: set[Where] | None) -> None:
    s = snippet(f'''
    import torch
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    net = nn.Linear(4, 2)
    model = {build}
    print(model)
    ''')
    v = s.value_at(7, "model")
    assert (None if v.places is None else {p.where for p in v.places}) == where
