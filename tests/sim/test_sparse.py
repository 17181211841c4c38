"""Sparse COO, CSR and CSC tensors on the simulated device, as on a GPU.

A sparse tensor has no storage of its own; its device is that of its indices and
values.  Each test fails on a simulation that refuses sparse tensors on the device or
places them (or their results) on the wrong device.
"""

from __future__ import annotations

import pytest
import torch

from torchferry.errors import UnsupportedFeatureError
from torchferry.sim.session import simulate

LAYOUTS = [
    ("to_sparse_coo", torch.sparse_coo),
    ("to_sparse_csr", torch.sparse_csr),
    ("to_sparse_csc", torch.sparse_csc),
]

pytestmark = pytest.mark.filterwarnings(
    "ignore:Sparse CSR tensor support is in beta state",
    "ignore:Sparse invariant checks are implicitly disabled",
)


def _dense() -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 4, generator=g)
    x[x.abs() < 0.5] = 0
    return x


@pytest.mark.parametrize(("conv", "layout"), LAYOUTS)
def test_a_device_tensor_made_sparse_is_on_the_device(conv, layout):
    with simulate("cuda"):
        x = _dense().to("cuda")
        s = getattr(x, conv)()
        assert s.layout is layout
        assert str(s.device) == "cuda:0" and s.is_cuda and not s.is_cpu
        assert s.get_device() == 0
        for part in _parts(s):
            assert str(part.device) == "cuda:0", part
        d = s.to_dense()
        assert str(d.device) == "cuda:0" and d.layout is torch.strided
        assert torch.equal(d.cpu(), x.cpu())


def _parts(s: torch.Tensor) -> list[torch.Tensor]:
    if s.layout is torch.sparse_coo:
        c = s.coalesce()
        return [c.indices(), c.values(), s._indices(), s._values()]
    if s.layout is torch.sparse_csr:
        return [s.crow_indices(), s.col_indices(), s.values()]
    return [s.ccol_indices(), s.row_indices(), s.values()]


@pytest.mark.parametrize(("conv", "layout"), LAYOUTS)
def test_sparse_matmul_of_device_tensors_is_on_the_device(conv, layout):
    with simulate("cuda"):
        x = _dense()
        other = torch.randn(4, 3)
        want = x @ other
        s = getattr(x.to("cuda"), conv)()
        o = other.to("cuda")
        for out in (torch.sparse.mm(s, o), s @ o, torch.mm(s, o)):
            assert str(out.device) == "cuda:0" and out.layout is torch.strided
            assert torch.allclose(out.cpu(), want, atol=1e-6)


def test_sparse_results_of_sparse_device_tensors_stay_on_the_device():
    with simulate("cuda", count=2):
        s = _dense().to("cuda:1").to_sparse()
        for out in (s.coalesce(), s * 2, s + s, torch.cat([s, s]), s.t(), s.to_sparse_csr()):
            assert out.layout is not torch.strided
            assert str(out.device) == "cuda:1", out


def test_moves_between_host_and_device_copy_the_components():
    with simulate("cuda", count=2):
        host = _dense().to_sparse_csr()
        dev = host.to("cuda")
        assert str(dev.device) == "cuda:0" and dev.layout is torch.sparse_csr
        assert host.device.type == "cpu" and host.values().device.type == "cpu"
        assert dev.values().data_ptr() != host.values().data_ptr()
        other = host.cuda(1)
        assert str(other.device) == "cuda:1" and str(other.crow_indices().device) == "cuda:1"
        back = dev.cpu()
        assert back.device.type == "cpu" and back.col_indices().device.type == "cpu"
        assert str(dev.device) == "cuda:0"
        assert torch.equal(back.to_dense(), host.to_dense())
        assert dev.to("cuda:0") is dev


def test_sparse_coo_tensor_with_device_keyword_copies_host_arguments():
    with simulate("cuda"):
        i = torch.tensor([[0, 1], [1, 0]])
        v = torch.tensor([1.0, 2.0])
        s = torch.sparse_coo_tensor(i, v, (2, 2), device="cuda")
        assert str(s.device) == "cuda:0" and str(s._indices().device) == "cuda:0"
        assert i.device.type == "cpu" and v.device.type == "cpu"  # the arguments stay
        assert s.to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]]
        c = torch.sparse_csr_tensor(
            torch.tensor([0, 1, 2]), torch.tensor([1, 0]), v, (2, 2), device="cuda"
        )
        assert str(c.device) == "cuda:0" and str(c.crow_indices().device) == "cuda:0"
        assert torch.equal(c.to_dense().cpu(), s.to_dense().cpu())


def test_sparse_coo_tensor_goes_where_its_values_are():
    # tensor_new.cpp: the indices are made on the values' device, copied if need be
    with simulate("cuda"):
        i = torch.tensor([[0, 1], [1, 0]])
        v = torch.tensor([1.0, 2.0], device="cuda")
        s = torch.sparse_coo_tensor(i, v, (2, 2))
        assert str(s.device) == "cuda:0" and str(s._indices().device) == "cuda:0"
        assert s._values().data_ptr() == v.data_ptr()  # values on the device are kept
        on_host = torch.sparse_coo_tensor(i.cuda(), v, (2, 2), device="cpu")
        assert on_host.device.type == "cpu" and on_host._values().device.type == "cpu"
        assert str(v.device) == "cuda:0"


def test_a_sparse_device_tensor_with_a_host_dense_one_raises_as_the_gpu():
    with simulate("cuda"):
        s = _dense().to("cuda").to_sparse()
        with pytest.raises(RuntimeError) as info:
            torch.sparse.mm(s, torch.ones(4, 2))
        assert str(info.value) == (
            "Expected all tensors to be on the same device, but got mat1 is on cuda:0, "
            "different from other tensors on cpu (when checking argument in method "
            "wrapper_SparseCUDA__addmm)"
        )
        csr = s.to_sparse_csr()
        with pytest.raises(RuntimeError, match="in method wrapper_SparseCsrCUDA__addmm"):
            torch.sparse.mm(csr, torch.ones(4, 2))
        with pytest.raises(RuntimeError) as info:
            torch.cat([s, s.cpu()])
        assert str(info.value) == (
            "Expected all tensors to be on the same device, but got tensors is on cpu, "
            "different from other tensors on cuda:0 (when checking argument in method "
            "wrapper_SparseCUDA__cat)"
        )


def test_an_operator_without_a_sparse_cuda_kernel_raises_as_the_gpu():
    # _sparse_mm_reduce_impl has a SparseCsrCPU kernel only (native_functions.yaml)
    with simulate("cuda"):
        csr = _dense().to("cuda").to_sparse_csr()
        other = torch.ones(4, 2, device="cuda")
        with pytest.raises(NotImplementedError) as info:
            torch.sparse.mm(csr, other, "sum")
        assert str(info.value).startswith(
            "Could not run 'aten::_sparse_mm_reduce_impl' with arguments from the "
            "'SparseCsrCUDA' backend. This could be because the operator doesn't exist for "
            "this backend"
        )
        # the same call on the host runs
        assert torch.sparse.mm(csr.cpu(), other.cpu(), "sum").shape == (5, 2)


def test_host_sparse_tensors_are_untouched_by_the_simulation():
    with simulate("cuda"):
        s = _dense().to_sparse()
        assert s.device.type == "cpu" and not s.is_cuda
        assert torch.sparse.mm(s, torch.ones(4, 2)).device.type == "cpu"


def test_sparse_device_tensors_count_in_device_memory():
    with simulate("cuda"):
        before = torch.cuda.memory_allocated()
        s = torch.ones(64, 64).to_sparse().to("cuda")
        parts = s._indices().nbytes + s._values().nbytes
        assert torch.cuda.memory_allocated() - before >= parts
        del s
        assert torch.cuda.memory_allocated() == before


def test_printing_a_sparse_device_tensor_names_the_device():
    with simulate("cuda"):
        s = torch.tensor([[0.0, 1.0]], device="cuda").to_sparse()
        assert s.type() == "torch.cuda.sparse.FloatTensor"
        assert "device='cuda:0'" in repr(s) and "layout=torch.sparse_coo" in repr(s)


def test_nested_tensors_are_still_refused_on_the_device():
    with simulate("cuda"):
        nt = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
        with pytest.raises(UnsupportedFeatureError, match="^nested tensors cannot be placed"):
            nt.to("cuda")


def test_a_sparse_embedding_gradient_is_on_the_parameters_device():
    with simulate("cuda"):
        emb = torch.nn.Embedding(10, 3, sparse=True).cuda()
        opt = torch.optim.SGD(emb.parameters(), lr=0.1)
        before = emb.weight.detach().cpu().clone()
        emb(torch.tensor([1, 2, 1], device="cuda")).sum().backward()
        g = emb.weight.grad
        assert g.layout is torch.sparse_coo and str(g.device) == "cuda:0"
        assert str(g.coalesce().values().device) == "cuda:0"
        opt.step()
        assert str(emb.weight.device) == "cuda:0"
        changed = (emb.weight.detach().cpu() != before).any(dim=1).nonzero().flatten()
        assert changed.tolist() == [1, 2]
