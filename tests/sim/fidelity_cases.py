"""The fidelity case table: snippets and what real PyTorch on a real GPU does with them.

ONE table, used by the test suite (``tests/sim/test_fidelity.py``, each case run
inside ``torchferry.simulate("cuda")`` on the CPU) and by
``benchmarks/gpu/fidelity.py`` (each case run on a real CUDA GPU, printing any
case whose real outcome differs from the one recorded here).

Where the expected outcomes came from (``Case.source``):

* ``H200``: run on an NVIDIA H200 with torch 2.11.0+cu130, Python 3.12, on
  2026-11-30 (a probe script whose snippets are exactly these); every message
  there also matches the strings in torch 2.13's ``torch/lib/libtorch_cpu.so``
  and ``torch/serialization.py``.
* ``lesson``: the examples of the lesson this project started from ("Moving
  tensors between CPU and GPU"; the lesson itself is not part of this repository).
* ``torch-source``: NOT YET CHECKED ON HARDWARE: the expected outcome is read from torch's source, named in
  ``Case.cite``; ``benchmarks/gpu/fidelity.py`` checks them with the rest on the
  next GPU run.
* ``rule``: not runnable on a one-GPU machine; derived from the TensorIterator
  rule in PyTorch's ``aten/src/ATen/TensorIterator.cpp`` (the common device is
  the first non-CPU operand).

Test data, not part of the package: ``tests/sim/test_fidelity.py`` and
``benchmarks/gpu/fidelity.py`` (run from the repository root) load it by its path.
This module imports torch and numpy only: it runs on machines without torchferry's
simulation (the real-GPU check).
"""

from __future__ import annotations

import contextlib
import copy
import io
import warnings
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

__all__ = ["Case", "Outcome", "CASES", "run_case", "mismatch"]


@dataclass(frozen=True)
class Case:
    """One snippet and its real-GPU outcome: printed ``out``, or ``exc`` = (type name, message)."""

    name: str
    code: str
    out: str | None = None
    exc: tuple[str, str] | None = None
    warns: str | None = None
    source: str = "H200"
    devices: int = 1
    tags: tuple[str, ...] = field(default_factory=tuple)
    cite: str = ""  # for source="torch-source": the torch source the expected outcome is read from
    quiet: bool = False  # a GPU prints no warning for this snippet
    # the simulation cannot do what the GPU does here and refuses instead: the start of its
    # UnsupportedFeatureError message (the test suite expects that; the GPU run the outcome)
    refused: str | None = None

    @property
    def checked_on_hardware(self) -> bool:
        """False until ``benchmarks/gpu/fidelity.py`` has confirmed the case on a real GPU."""
        return self.source == "H200"


@dataclass
class Outcome:
    out: str
    exc: tuple[str, str] | None
    warnings: list[str]


def run_case(case: Case) -> Outcome:
    """Execute ``case.code`` (with torch, nn, F, np, io, copy in scope); capture what happened."""
    g = {"torch": torch, "nn": nn, "F": F, "np": np, "io": io, "copy": copy}
    buf = io.StringIO()
    exc: tuple[str, str] | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(case.code, f"<fidelity {case.name}>", "exec"), g)
        except Exception as e:  # noqa: BLE001 - the outcome under test
            exc = (type(e).__name__, str(e))
        finally:
            if torch.cuda.is_available():
                torch.cuda.set_sync_debug_mode(0)
    return Outcome(buf.getvalue(), exc, [str(w.message) for w in caught])


def mismatch(case: Case, got: Outcome) -> str | None:
    """None when ``got`` is what the table expects, else a one-paragraph description."""
    problems = []
    if case.exc is not None:
        if got.exc != case.exc:
            problems.append(
                f"expected {case.exc[0]}: {case.exc[1]!r}, got "
                + (f"{got.exc[0]}: {got.exc[1]!r}" if got.exc else "no exception")
            )
    elif got.exc is not None:
        problems.append(f"expected no exception, got {got.exc[0]}: {got.exc[1]!r}")
    if case.out is not None and got.out != case.out:
        problems.append(f"expected output {case.out!r}, got {got.out!r}")
    if case.exc is not None and case.out is None and got.out:
        problems.append(f"expected no output, got {got.out!r}")
    if case.quiet and got.warnings:
        problems.append(f"expected no warning, got {got.warnings!r}")
    if case.warns is not None and not any(w.startswith(case.warns) for w in got.warnings):
        problems.append(f"expected a warning starting {case.warns!r}, got {got.warnings!r}")
    return "; ".join(problems) or None


CASES: list[Case] = [
    Case(
        "add_cpu_cuda",
        "a=torch.ones(3); b=torch.ones(3,device='cuda'); print(a+b)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "add_cuda_cpu",
        "a=torch.ones(3); b=torch.ones(3,device='cuda'); print(b+a)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "add_cpu0dim",
        "print(torch.ones(3,device='cuda')+torch.tensor(1.))",
        out="tensor([2., 2., 2.], device='cuda:0')\n",
    ),
    Case(
        "add_cuda0dim_cpu",
        "print(torch.ones(3)+torch.tensor(1.,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "iadd_cpu_cuda",
        "a=torch.ones(3); a.add_(torch.ones(3,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "iadd_cuda_cpu",
        "a=torch.ones(3,device='cuda'); a.add_(torch.ones(3))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "add_out",
        "c=torch.empty(3); torch.add(torch.ones(3,device='cuda'), torch.ones(3,device='cuda'), out=c)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "mul_scalar_cpu2",
        "print(torch.ones(3,device='cuda')*torch.ones(1))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "eq",
        "print(torch.tensor([1,2],device='cuda')==torch.tensor([1,2]))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "ordinal_factory",
        "torch.ones(3, device='cuda:5')",
        exc=(
            "AcceleratorError",
            "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
        ),
    ),
    Case(
        "ordinal_to",
        "torch.ones(3).to('cuda:5')",
        exc=(
            "AcceleratorError",
            "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
        ),
    ),
    Case(
        "ordinal_cuda",
        "torch.ones(3).cuda(5)",
        exc=(
            "AcceleratorError",
            "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
        ),
    ),
    Case(
        "ordinal_set_device",
        "torch.cuda.set_device(5)",
        exc=(
            "AcceleratorError",
            "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
        ),
    ),
    Case(
        "ordinal_props",
        "torch.cuda.get_device_properties(5)",
        exc=("AssertionError", "Invalid device id"),
    ),
    Case(
        "linear2d_xcpu",
        "m=nn.Linear(4,2).cuda(); m(torch.ones(5,4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)",
        ),
    ),
    Case(
        "linear2d_xcpu_nobias",
        "m=nn.Linear(4,2,bias=False).cuda(); m(torch.ones(5,4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat2 is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_mm)",
        ),
    ),
    Case(
        "linear3d_xcpu",
        "m=nn.Linear(4,2).cuda(); m(torch.ones(2,5,4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)",
        ),
    ),
    Case(
        "linear1d_xcpu",
        "m=nn.Linear(4,2).cuda(); m(torch.ones(4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)",
        ),
    ),
    Case(
        "linear2d_wcpu",
        "m=nn.Linear(4,2); m(torch.ones(5,4,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat1 is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_addmm)",
        ),
    ),
    Case(
        "linear3d_wcpu",
        "m=nn.Linear(4,2); m(torch.ones(2,5,4,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat1 is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_addmm)",
        ),
    ),
    Case(
        "mm_cpu_cuda",
        "torch.mm(torch.ones(2,2), torch.ones(2,2,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat2 is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_mm)",
        ),
    ),
    Case(
        "mm_cuda_cpu",
        "torch.mm(torch.ones(2,2,device='cuda'), torch.ones(2,2))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)",
        ),
    ),
    Case(
        "matmul_op",
        "torch.ones(2,2,device='cuda') @ torch.ones(2,2)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)",
        ),
    ),
    Case(
        "matmul3d",
        "torch.matmul(torch.ones(3,2,2,device='cuda'), torch.ones(3,2,2))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_bmm)",
        ),
    ),
    Case(
        "bmm",
        "torch.bmm(torch.ones(3,2,2,device='cuda'), torch.ones(3,2,2))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_bmm)",
        ),
    ),
    Case(
        "mv",
        "torch.mv(torch.ones(2,2,device='cuda'), torch.ones(2))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_addmv_)",
        ),
    ),
    Case(
        "dot",
        "torch.dot(torch.ones(2,device='cuda'), torch.ones(2))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got tensor is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__dot)",
        ),
    ),
    Case(
        "embedding_idxcpu",
        "e=nn.Embedding(10,3).cuda(); print(e(torch.tensor([1,2])).device)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)",
        ),
    ),
    Case(
        "embedding_wcpu",
        "e=nn.Embedding(10,3); e(torch.tensor([1,2],device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA__index_select)",
        ),
    ),
    Case(
        "index_select_idxcpu",
        "print(torch.ones(3,2,device='cuda').index_select(0, torch.tensor([0,1])).device)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)",
        ),
    ),
    Case(
        "index_select_selfcpu",
        "torch.ones(3,2).index_select(0, torch.tensor([0,1],device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA__index_select)",
        ),
    ),
    Case(
        "cross_entropy",
        "F.cross_entropy(torch.randn(4,3,device='cuda'), torch.tensor([0,1,2,0]))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got target is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_nll_loss_forward)",
        ),
    ),
    Case(
        "cross_entropy_rev",
        "F.cross_entropy(torch.randn(4,3), torch.tensor([0,1,2,0],device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got target is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_nll_loss_forward)",
        ),
    ),
    Case(
        "nll_loss",
        "F.nll_loss(torch.randn(4,3,device='cuda'), torch.tensor([0,1,2,0]))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got target is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_nll_loss_forward)",
        ),
    ),
    Case(
        "mse_loss",
        "F.mse_loss(torch.randn(4,device='cuda'), torch.randn(4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "l1_loss",
        "F.l1_loss(torch.randn(4,device='cuda'), torch.randn(4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "bce_logits",
        "F.binary_cross_entropy_with_logits(torch.randn(4,device='cuda'), torch.rand(4))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "cat",
        "torch.cat([torch.ones(2,device='cuda'), torch.ones(2)])",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got tensors is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_cat)",
        ),
    ),
    Case(
        "cat_rev",
        "torch.cat([torch.ones(2), torch.ones(2,device='cuda')])",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got tensors is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_cat)",
        ),
    ),
    Case(
        "stack",
        "torch.stack([torch.ones(2,device='cuda'), torch.ones(2)])",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got tensors is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_cat)",
        ),
    ),
    Case(
        "where",
        "torch.where(torch.ones(2)>0, torch.ones(2,device='cuda'), torch.ones(2,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "where_scalar",
        "print(torch.where(torch.ones(2,device='cuda')>0, torch.ones(2,device='cuda'), torch.tensor(0.)))",
        out="tensor([1., 1.], device='cuda:0')\n",
    ),
    Case(
        "conv_xcpu",
        "c=nn.Conv2d(3,4,3).cuda(); c(torch.ones(1,3,5,5))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got weight is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA___slow_conv2d_forward)",
        ),
    ),
    Case(
        "conv_wcpu",
        "c=nn.Conv2d(3,4,3); c(torch.ones(1,3,5,5,device='cuda'))",
        exc=(
            "RuntimeError",
            "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same",
        ),
    ),
    Case(
        "conv1d_xcpu",
        "c=nn.Conv1d(3,4,3).cuda(); c(torch.ones(1,3,5))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got weight is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA___slow_conv2d_forward)",
        ),
    ),
    Case(
        "lstm_hcpu",
        "m=nn.LSTM(3,4).cuda(); m(torch.ones(2,1,3,device='cuda'), (torch.zeros(1,1,4), torch.zeros(1,1,4)))",
        exc=(
            "RuntimeError",
            "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu",
        ),
    ),
    Case(
        "lstm_xcpu",
        "m=nn.LSTM(3,4).cuda(); m(torch.ones(2,1,3))",
        exc=(
            "RuntimeError",
            "Input and parameter tensors are not at the same device, found input tensor at cpu and parameter tensor at cuda:0",
        ),
    ),
    Case(
        "lstm_xcpu_hcuda",
        "m=nn.LSTM(3,4).cuda(); m(torch.ones(2,1,3), (torch.zeros(1,1,4,device='cuda'), torch.zeros(1,1,4,device='cuda')))",
        exc=(
            "RuntimeError",
            "Input and hidden tensors are not at the same device, found input tensor at cpu and hidden tensor at cuda:0",
        ),
    ),
    Case(
        "gru_hcpu",
        "m=nn.GRU(3,4).cuda(); m(torch.ones(2,1,3,device='cuda'), torch.zeros(1,1,4))",
        exc=(
            "RuntimeError",
            "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu",
        ),
    ),
    Case(
        "rnn_hcpu",
        "m=nn.RNN(3,4).cuda(); m(torch.ones(2,1,3,device='cuda'), torch.zeros(1,1,4))",
        exc=(
            "RuntimeError",
            "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu",
        ),
    ),
    Case(
        "lstm_wcpu",
        "m=nn.LSTM(3,4); m(torch.ones(2,1,3,device='cuda'))",
        exc=(
            "RuntimeError",
            "Input and parameter tensors are not at the same device, found input tensor at cuda:0 and parameter tensor at cpu",
        ),
    ),
    Case(
        "layer_norm",
        "F.layer_norm(torch.ones(2,3,device='cuda'), (3,), torch.ones(3), torch.zeros(3))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got weight is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__native_layer_norm)",
        ),
    ),
    Case(
        "batch_norm",
        "bn=nn.BatchNorm1d(3); bn(torch.ones(2,3,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got weight is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__native_batch_norm)",
        ),
    ),
    Case(
        "gather",
        "torch.gather(torch.ones(2,3,device='cuda'), 1, torch.tensor([[0],[1]]))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_gather)",
        ),
    ),
    Case(
        "scatter",
        "torch.zeros(2,3,device='cuda').scatter_(1, torch.tensor([[0],[1]]), 1.0)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_scatter__value)",
        ),
    ),
    Case(
        "idx_cpu_by_cuda",
        "torch.arange(5)[torch.tensor([0,1],device='cuda')]",
        exc=(
            "RuntimeError",
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)",
        ),
    ),
    Case(
        "idx_cuda_by_cpu",
        "print(torch.arange(5,device='cuda')[torch.tensor([0,1])])",
        out="tensor([0, 1], device='cuda:0')\n",
    ),
    Case(
        "mask_cpu_by_cuda",
        "torch.arange(3)[torch.tensor([True,False,True],device='cuda')]",
        exc=(
            "RuntimeError",
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)",
        ),
    ),
    Case(
        "mask_cuda_by_cpu",
        "print(torch.arange(3,device='cuda')[torch.tensor([True,False,True])])",
        out="tensor([0, 2], device='cuda:0')\n",
    ),
    Case(
        "setitem_cpu_by_cuda", "a=torch.arange(5); a[torch.tensor([0,1],device='cuda')]=0", out=""
    ),
    Case(
        "setitem_cuda_val_cpu",
        "a=torch.zeros(5,device='cuda'); a[torch.tensor([0,1])]=torch.ones(2); print(a)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "setitem_cpu_val_cuda",
        "a=torch.zeros(5); a[0:2]=torch.ones(2,device='cuda'); print(a)",
        out="tensor([1., 1., 0., 0., 0.])\n",
    ),
    Case(
        "masked_fill_cpu_mask",
        "print(torch.zeros(3,device='cuda').masked_fill(torch.tensor([True,False,True]), 1.))",
        exc=(
            "RuntimeError",
            "expected self and mask to be on the same device, but got mask on cpu and self on cuda:0",
        ),
    ),
    Case(
        "clamp_cpu",
        "torch.clamp(torch.ones(3,device='cuda'), min=torch.zeros(3))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got min is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_clamp_Tensor)",
        ),
    ),
    Case(
        "numpy",
        "torch.ones(3,device='cuda').numpy()",
        exc=(
            "TypeError",
            "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        ),
    ),
    Case(
        "asarray",
        "np.asarray(torch.ones(3,device='cuda'))",
        exc=(
            "TypeError",
            "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        ),
    ),
    Case(
        "numpy_grad",
        "torch.ones(3,device='cuda',requires_grad=True).numpy()",
        exc=(
            "TypeError",
            "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        ),
    ),
    Case(
        "print1",
        "print(torch.ones(3,device='cuda')*2)",
        out="tensor([2., 2., 2.], device='cuda:0')\n",
    ),
    Case(
        "print_scalar",
        "print(torch.tensor(1.5,device='cuda'))",
        out="tensor(1.5000, device='cuda:0')\n",
    ),
    Case(
        "print_f64",
        "print(torch.ones(2,dtype=torch.float64,device='cuda'))",
        out="tensor([1., 1.], device='cuda:0', dtype=torch.float64)\n",
    ),
    Case(
        "print_int",
        "print(torch.arange(3,device='cuda'))",
        out="tensor([0, 1, 2], device='cuda:0')\n",
    ),
    Case(
        "print_bool",
        "print(torch.ones(2,device='cuda')>0)",
        out="tensor([True, True], device='cuda:0')\n",
    ),
    Case(
        "print_grad",
        "print(torch.ones(2,device='cuda',requires_grad=True))",
        out="tensor([1., 1.], device='cuda:0', requires_grad=True)\n",
    ),
    Case(
        "print_gradfn",
        "x=torch.ones(2,device='cuda',requires_grad=True); print(x*2)",
        out="tensor([2., 2.], device='cuda:0', grad_fn=<MulBackward0>)\n",
    ),
    Case(
        "print_2d",
        "print(torch.zeros(2,3,device='cuda'))",
        out="tensor([[0., 0., 0.],\n        [0., 0., 0.]], device='cuda:0')\n",
    ),
    Case(
        "print_big",
        "torch.manual_seed(0); print(torch.arange(2000,device='cuda').float())",
        out="tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03], device='cuda:0')\n",
    ),
    Case("print_empty", "print(torch.empty(0,device='cuda'))", out="tensor([], device='cuda:0')\n"),
    Case(
        "print_half",
        "print(torch.ones(2,device='cuda').half())",
        out="tensor([1., 1.], device='cuda:0', dtype=torch.float16)\n",
    ),
    Case(
        "print_param",
        "print(nn.Parameter(torch.ones(2,device='cuda')))",
        out="Parameter containing:\ntensor([1., 1.], device='cuda:0', requires_grad=True)\n",
    ),
    Case(
        "device_attrs",
        "x=torch.ones(2).to('cuda'); print(x.device, x.is_cuda, x.get_device(), torch.ones(2).get_device(), x.device.index, x.is_cpu)",
        out="cuda:0 True 0 -1 0 False\n",
    ),
    Case(
        "to_same_is",
        "x=torch.ones(2,device='cuda'); print(x.to('cuda') is x, x.cuda() is x, x.to('cuda:0') is x, x.cpu() is x)",
        out="True True True False\n",
    ),
    Case(
        "item_many",
        "torch.ones(3,device='cuda').item()",
        exc=("RuntimeError", "a Tensor with 3 elements cannot be converted to Scalar"),
    ),
    Case(
        "float_many",
        "float(torch.ones(3,device='cuda'))",
        exc=("ValueError", "only one element tensors can be converted to Python scalars"),
    ),
    Case(
        "bool_many",
        "bool(torch.ones(3,device='cuda'))",
        exc=("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous"),
    ),
    Case(
        "item",
        "print(torch.ones(1,device='cuda').item(), torch.ones(2,device='cuda').tolist())",
        out="1.0 [1.0, 1.0]\n",
    ),
    Case(
        "sync_warn_item",
        "torch.cuda.set_sync_debug_mode('warn'); torch.ones(1,device='cuda').item()",
        out="",
        warns="called a synchronizing CUDA operation",
    ),
    Case(
        "sync_err_item",
        "torch.cuda.set_sync_debug_mode('error'); torch.ones(1,device='cuda').item()",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_cpu",
        "torch.cuda.set_sync_debug_mode('error'); torch.ones(1,device='cuda').cpu()",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_tolist",
        "torch.cuda.set_sync_debug_mode('error'); torch.ones(1,device='cuda').tolist()",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_bool",
        "x=torch.ones(1,device='cuda'); torch.cuda.set_sync_debug_mode('error'); bool(x)",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_nonzero",
        "x=torch.ones(3,device='cuda'); torch.cuda.set_sync_debug_mode('error'); x.nonzero()",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_mask",
        "x=torch.ones(3,device='cuda'); m=x>0; torch.cuda.set_sync_debug_mode('error'); x[m]",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_print",
        "x=torch.ones(3,device='cuda'); torch.cuda.set_sync_debug_mode('error'); print(x)",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_to_cuda",
        "x=torch.ones(3); torch.cuda.set_sync_debug_mode('error'); print(x.to('cuda').device)",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_sum",
        "x=torch.ones(3,device='cuda'); torch.cuda.set_sync_debug_mode('error'); print(x.sum().device)",
        out="cuda:0\n",
    ),
    Case(
        "sync_err_numpy_cpu",
        "x=torch.ones(3,device='cuda'); torch.cuda.set_sync_debug_mode('error'); x.cpu().numpy()",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
    ),
    Case(
        "sync_err_sync",
        "torch.cuda.set_sync_debug_mode('error'); torch.cuda.synchronize(); print('ok')",
        out="ok\n",
    ),
    Case(
        "sync_err_cpu_nb",
        "x=torch.ones(3,device='cuda'); torch.cuda.set_sync_debug_mode('error'); print(x.to('cpu', non_blocking=True).device)",
        out="cpu\n",
    ),
    Case(
        "sync_bad",
        "torch.cuda.set_sync_debug_mode('loud')",
        exc=(
            "RuntimeError",
            "invalid value of debug_mode, expected one of `default`, `warn`, `error`",
        ),
    ),
    Case(
        "pin",
        "x=torch.ones(3).pin_memory(); print(x.is_pinned(), x.device, torch.ones(3).is_pinned())",
        out="True cpu False\n",
    ),
    Case(
        "pin_cuda",
        "torch.ones(3,device='cuda').pin_memory()",
        exc=(
            "RuntimeError",
            "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned",
        ),
    ),
    Case(
        "grad_device",
        "m=nn.Linear(2,2).cuda(); m(torch.ones(1,2,device='cuda')).sum().backward(); print(m.weight.grad.device)",
        out="cuda:0\n",
    ),
    Case(
        "optim_state",
        "m=nn.Linear(2,2).cuda(); o=torch.optim.Adam(m.parameters()); m(torch.ones(1,2,device='cuda')).sum().backward(); o.step(); s=o.state[m.weight]; print(s['exp_avg'].device, s['step'].device)",
        out="cuda:0 cpu\n",
    ),
    Case(
        "tensor_type",
        "print(torch.ones(2,device='cuda').type(), torch.ones(2).cuda().type())",
        out="torch.cuda.FloatTensor torch.cuda.FloatTensor\n",
    ),
    Case(
        "new_ones",
        "x=torch.ones(2,device='cuda'); print(x.new_ones(2).device, torch.zeros_like(x).device, x.new_tensor([1]).device, torch.empty_like(x, device='cpu').device)",
        out="cuda:0 cuda:0 cuda:0 cpu\n",
    ),
    Case(
        "as_tensor_same",
        "x=torch.ones(2,device='cuda'); print(torch.as_tensor(x, device='cuda') is x)",
        out="True\n",
    ),
    Case(
        "module_to",
        "m=nn.Linear(2,2); w=m.weight; m.to('cuda'); print(m.weight is w, m.weight.device)",
        out="True cuda:0\n",
    ),
    Case(
        "lerp",
        "torch.lerp(torch.ones(2,device='cuda'), torch.ones(2), 0.5)",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "addcmul",
        "torch.addcmul(torch.ones(2,device='cuda'), torch.ones(2), torch.ones(2,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "softmax_out",
        "print(torch.softmax(torch.ones(2,device='cuda'), 0))",
        out="tensor([0.5000, 0.5000], device='cuda:0')\n",
    ),
    Case(
        "dropout_cpu_train",
        "print(F.dropout(torch.ones(2,device='cuda'), 0.0))",
        out="tensor([1., 1.], device='cuda:0')\n",
    ),
    Case("int_tensor_from_cuda", "print(int(torch.tensor(3,device='cuda')))", out="3\n"),
    Case(
        "foreach",
        "torch._foreach_add_([torch.ones(2,device='cuda')], [torch.ones(2)])",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
        ),
    ),
    Case(
        "sum_dim",
        "print(torch.ones(2,3,device='cuda').sum(0))",
        out="tensor([2., 2., 2.], device='cuda:0')\n",
    ),
    Case("tolist_mixed", "print(torch.tensor([1,2,3], device='cuda').tolist())", out="[1, 2, 3]\n"),
    Case(
        "index_add",
        "torch.zeros(3,device='cuda').index_add_(0, torch.tensor([0]), torch.ones(1))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_index_add_)",
        ),
    ),
    Case(
        "one_hot", "print(F.one_hot(torch.tensor([0,1],device='cuda'), 3).device)", out="cuda:0\n"
    ),
    Case("randperm", "print(torch.randperm(3, device='cuda').device)", out="cuda:0\n"),
    Case(
        "stream",
        "s=torch.cuda.Stream()\nwith torch.cuda.stream(s):\n    x=torch.ones(2,device='cuda')\nprint(torch.cuda.current_stream(), s.query())",
        out="<torch.cuda.Stream device=cuda:0 cuda_stream=0x0> True\n",
    ),
    Case(
        "acc",
        "print(torch.accelerator.is_available(), torch.accelerator.current_accelerator(), torch.accelerator.device_count(), torch.accelerator.current_device_index())",
        out="True cuda 1 0\n",
    ),
    Case(
        "event",
        "s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True); s.record(); e.record(); e.synchronize(); print(type(s.elapsed_time(e)))",
        out="<class 'float'>\n",
    ),
    Case(
        "event_notiming",
        "s=torch.cuda.Event(); e=torch.cuda.Event(); s.record(); e.record(); e.synchronize(); s.elapsed_time(e)",
        exc=("ValueError", "Both events must be created with argument 'enable_timing=True'."),
    ),
    Case(
        "mem",
        "torch.cuda.empty_cache(); a=torch.cuda.memory_allocated(); x=torch.ones(1024,device='cuda'); print(torch.cuda.memory_allocated()-a)",
        out="4096\n",
    ),
    Case(
        "sync_get",
        "print(torch.cuda.get_sync_debug_mode()); torch.cuda.set_sync_debug_mode('warn'); print(torch.cuda.get_sync_debug_mode())",
        out="0\n1\n",
    ),
    Case("str_format", "print(f'{torch.tensor(2.5,device=\"cuda\"):.2f}')", out="2.50\n"),
    Case(
        "generator",
        "g=torch.Generator(device='cuda'); g.manual_seed(0); "
        "print(torch.randn(2, device='cuda', generator=g).device, g.device)",
        out="cuda:0 cuda\n",
    ),
    Case(
        "generator_cpu_with_cuda",
        "g=torch.Generator(); torch.randn(2, device='cuda', generator=g)",
        exc=("RuntimeError", "Expected a 'cuda' device type for generator but found 'cpu'"),
    ),
    Case(
        "backward_gradient_on_cpu",
        "x=torch.ones(2,device='cuda',requires_grad=True); (x*2).backward(torch.ones(2))",
        exc=("RuntimeError", "invalid gradient at index 0 - expected device cuda:0 but got cpu"),
    ),
    Case(
        "cross_entropy_0dim_cpu_target",
        "F.cross_entropy(torch.randn(3, device='cuda'), torch.tensor(1))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got target is on cpu, different "
            "from other tensors on cuda:0 (when checking argument in method "
            "wrapper_CUDA_nll_loss_forward)",
        ),
    ),
    Case(
        "index_select_0dim_cpu_index",
        "torch.ones(3, 2, device='cuda').index_select(0, torch.tensor(1))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got index is on cpu, different "
            "from other tensors on cuda:0 (when checking argument in method "
            "wrapper_CUDA__index_select)",
        ),
    ),
    Case(
        "getitem_0dim_cpu_index",
        "print(torch.arange(3.0, device='cuda')[torch.tensor(1)])",
        out="tensor(1., device='cuda:0')\n",
    ),
    Case(
        "where_cpu_0dim_condition",
        "print(torch.where(torch.tensor(True), torch.ones(2, device='cuda'), 0.0))",
        out="tensor([1., 1.], device='cuda:0')\n",
    ),
    # the lesson, verbatim
    Case(
        "lesson_portable",
        'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
        'print("using:", device)\n'
        "x = torch.ones(3)\nprint(x.device)\nx = x.to(device)\nprint(x.device)\n"
        "y = torch.ones(3, device=device)\nz = x + y\nprint(z)\n"
        "back = z.cpu().numpy()\nprint(back)\n",
        out="using: cuda\ncpu\ncuda:0\ntensor([2., 2., 2.], device='cuda:0')\n[2. 2. 2.]\n",
        source="lesson",
    ),
    Case(
        "lesson_mixing",
        'a = torch.ones(3)\nb = torch.ones(3, device="cuda")\nprint(a + b)\n',
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!",
        ),
        source="lesson",
    ),
    # two devices: not runnable on the one-GPU reference machine
    Case(
        "add_cuda0_cuda1",
        "torch.ones(3, device='cuda:0') + torch.ones(3, device='cuda:1')",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cuda:1!",
        ),
        source="rule",
        devices=2,
    ),
    Case(
        "add_cuda1_cuda0",
        "torch.ones(3, device='cuda:1') + torch.ones(3, device='cuda:0')",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:1 and cuda:0!",
        ),
        source="rule",
        devices=2,
    ),
    Case(
        "print_cuda1",
        "print(torch.ones(2, device='cuda:1'))",
        out="tensor([1., 1.], device='cuda:1')\n",
        source="rule",
        devices=2,
    ),
    # ---- real programs' paths.  source="torch-source": not yet checked on hardware.
    Case(
        "fused_adamw_grad_scaler",
        "m=nn.Linear(4,4).cuda(); opt=torch.optim.AdamW(m.parameters(), fused=True)\n"
        "sc=torch.amp.GradScaler('cuda')\n"
        "with torch.autocast('cuda', dtype=torch.float16):\n"
        "    loss=m(torch.ones(2,4,device='cuda')).float().sum()\n"
        "sc.scale(loss).backward(); sc.unscale_(opt)\n"
        "torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0); sc.step(opt); sc.update()\n"
        "print(m.weight.device)",
        out="cuda:0\n",
        source="torch-source",
        cite="torch/optim/adam.py _fused_adam: found_inf goes to each group's device, the key "
        "torch._C._group_tensors_by_device_and_dtype gives (the tensors' CUDA device)",
    ),
    Case(
        "conv_xcpu_batch2",
        "c=nn.Conv2d(3,8,3).cuda(); c(torch.ones(2,3,32,32))",
        exc=(
            "RuntimeError",
            "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
            "same or input should be a MKLDNN tensor and weight is a dense tensor",
        ),
        source="torch-source",
        cite="aten/src/ATen/native/Convolution.cpp: _select_conv_backend -> Mkldnn for a CPU "
        "float input with batch > 1 (use_mkldnn); the Mkldnn branch of _convolution calls "
        "check_input_same_type_as_parameters(input, weight, bias, backend)",
    ),
    Case(
        "conv1d_xcpu_batch2",
        "c=nn.Conv1d(3,4,3).cuda(); c(torch.ones(2,3,16))",
        exc=(
            "RuntimeError",
            "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
            "same or input should be a MKLDNN tensor and weight is a dense tensor",
        ),
        source="torch-source",
        cite="aten/src/ATen/native/Convolution.cpp: as conv_xcpu_batch2 (1-d viewed as 2-d)",
    ),
    Case(
        "conv_depthwise_wcpu",
        "c=nn.Conv2d(4,4,3,groups=4); c(torch.ones(2,4,8,8,device='cuda'))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got weight is on cpu, different "
            "from other tensors on cuda:0 (when checking argument in method "
            "wrapper_CUDA___conv_depthwise2d)",
        ),
        source="torch-source",
        cite="aten/src/ATen/native/Convolution.cpp: is_depthwise and not use_cudnn_depthwise "
        "(float32) -> CudaDepthwise2d -> at::_conv_depthwise2d, no type check before its "
        "generated CUDA wrapper's device check",
    ),
    Case(
        "traced_function_device",
        "__name__='fidelity'\n"
        "f=torch.jit.trace(lambda x: x*2, torch.ones(2,device='cuda'))\n"
        "print(f(torch.ones(2,device='cuda')).device)",
        out="cuda:0\n",
        source="torch-source",
        cite="torch/jit: a ScriptFunction's kernels run on its inputs' device",
    ),
    Case(
        "device_context_manager",
        "with torch.device('cuda'):\n    print(torch.zeros(1).device)",
        out="cuda:0\n",
        source="torch-source",
        cite="torch/utils/_device.py DeviceContext: factories get device=",
    ),
    Case(
        "int_device",
        "print(torch.device(0), torch.ones(2).to(0).device, nn.Linear(2,2).to(0).weight.device)",
        out="cuda:0 cuda:0 cuda:0\n",
        source="torch-source",
        cite="torch/csrc/Device.cpp / python_arg_parser: an int is an index of the current "
        "accelerator (CUDA on a CUDA build)",
    ),
    Case(
        "data_parallel_one_device",
        "m=nn.DataParallel(nn.Linear(2,2)); print(m(torch.ones(3,2)).device, m.module.weight.device)",
        out="cuda:0 cuda:0\n",
        source="torch-source",
        cite="torch/nn/parallel/data_parallel.py: with one device __init__ moves the module to "
        "device_ids[0] and forward scatters the input there",
    ),
    Case(
        "data_parallel_two_devices",
        "torch.manual_seed(0); m=nn.DataParallel(nn.Linear(2,1).cuda())\n"
        "out=m(torch.ones(4,2)); out.sum().backward()\n"
        "print(out.device, out.shape, m.module.weight.grad.device)",
        out="cuda:0 torch.Size([4, 1]) cuda:0\n",
        source="torch-source",
        devices=2,
        cite="torch/nn/parallel/data_parallel.py: scatter, replicate, parallel_apply, gather to "
        "output_device=device_ids[0]",
    ),
    Case(
        "data_parallel_module_on_cpu",
        "m=nn.DataParallel(nn.Linear(2,2)); m(torch.ones(4,2))",
        exc=(
            "RuntimeError",
            "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but "
            "found one of them on device: cpu",
        ),
        source="torch-source",
        devices=2,
        cite="torch/nn/parallel/data_parallel.py DataParallel.forward",
    ),
    Case(
        "lstm_no_warning",
        "m=nn.GRU(3,4,num_layers=2).cuda(); print(m(torch.ones(2,1,3,device='cuda'))[0].device)",
        out="cuda:0\n",
        quiet=True,
        source="torch-source",
        cite="torch/backends/cudnn/__init__.py is_acceptable: warns only without cuDNN",
    ),
    Case(
        "autocast_float32",
        "with torch.autocast('cuda', dtype=torch.float32):\n"
        "    print(torch.is_autocast_enabled('cuda'))",
        out="True\n",
        quiet=True,
        source="torch-source",
        cite="torch/amp/autocast_mode.py: the 'not supported, disabling' check is CPU autocast's",
    ),
    Case(
        "cuda_seed_leaves_cpu_generator",
        "torch.manual_seed(0); a=torch.rand(3)\n"
        "torch.manual_seed(0); torch.cuda.manual_seed(1); torch.rand(4,device='cuda')\n"
        "print(torch.equal(a, torch.rand(3)))",
        out="True\n",
        source="torch-source",
        cite="torch/cuda/random.py manual_seed: seeds torch.cuda.default_generators[idx] only",
    ),
    Case(
        "cuda_api_answers",
        "x=torch.ones(256,device='cuda'); torch.cuda.ipc_collect()\n"
        "torch.cuda.set_per_process_memory_fraction(0.5)\n"
        "print('allocated_bytes.all.current' in torch.cuda.memory_stats(),\n"
        "      isinstance(x, torch.cuda.FloatTensor), isinstance(x, torch.FloatTensor),\n"
        "      x.untyped_storage().device, torch.cuda.get_per_process_memory_fraction(),\n"
        "      torch.cuda.nvtx.range_push('a'), torch.cuda.nvtx.range_pop(),\n"
        "      torch.cuda.default_generators[0].device)",
        out="True True False cuda:0 0.5 0 0 cuda:0\n",
        source="torch-source",
        cite="torch/cuda/__init__.py, memory.py, nvtx.py; torch/csrc/tensor/python_tensor.cpp "
        "(legacy type instance checks)",
    ),
    Case(
        "autocast_queries",
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    print(torch.is_autocast_enabled('cuda'), torch.get_autocast_dtype('cuda'))",
        out="True torch.bfloat16\n",
        source="torch-source",
        cite="torch/amp/autocast_mode.py __enter__: torch.set_autocast_enabled(device, True)",
    ),
    Case(
        "cuda_amp_autocast",
        "with torch.cuda.amp.autocast():\n"
        "    print(nn.Linear(2,2).cuda()(torch.ones(1,2,device='cuda')).dtype)",
        out="torch.float16\n",
        warns="`torch.cuda.amp.autocast(args...)` is deprecated.",
        source="torch-source",
        cite="torch/cuda/amp/autocast_mode.py: autocast('cuda', float16), deprecated",
    ),
    Case(
        "fstring_of_device_tensors",
        "x=torch.ones(2,device='cuda'); p=nn.Parameter(torch.tensor(2.,device='cuda'))\n"
        "print(f'{x}'); print(f'{x.sum():.1f}'); print(f'{p}')",
        out="tensor([1., 1.], device='cuda:0')\n2.0\n"
        "Parameter containing:\ntensor(2., device='cuda:0', requires_grad=True)\n",
        source="torch-source",
        cite="torch/_tensor.py Tensor.__format__: a plain 0-dim tensor formats .item(), anything "
        "else (a Parameter too) object.__format__, i.e. str(self) = repr",
    ),
    Case(
        "format_spec_on_a_device_vector",
        "x=torch.ones(2,device='cuda'); f'{x:.2f}'",
        exc=("TypeError", "unsupported format string passed to Tensor.__format__"),
        source="torch-source",
        cite="torch/_tensor.py Tensor.__format__ -> object.__format__ with a non-empty spec",
    ),
    Case(
        "legacy_float_tensor_of_a_cuda_tensor",
        "x=torch.ones(2,device='cuda'); torch.FloatTensor(x)",
        exc=(
            "TypeError",
            "expected TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)) "
            "(got TensorOptions(dtype=float, device=cuda:0, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))",
        ),
        source="torch-source",
        cite="torch/csrc/utils/tensor_new.cpp legacy_tensor_generic_ctor_new, new(Tensor other): "
        "TORCH_CHECK_TYPE(other.options().type_equal(options), 'expected ', options, ' (got ', "
        "other.options(), ')'); the text is the CPU build's for a meta tensor with device=cuda:0",
    ),
    Case(
        "legacy_long_tensor_of_a_cuda_tensor",
        "torch.LongTensor(torch.ones(2,device='cuda',dtype=torch.int64))",
        exc=(
            "TypeError",
            "expected TensorOptions(dtype=long int, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)) "
            "(got TensorOptions(dtype=long int, device=cuda:0, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))",
        ),
        source="torch-source",
        cite="torch/csrc/utils/tensor_new.cpp legacy_tensor_generic_ctor_new (as above)",
    ),
    Case(
        "legacy_constructor_of_a_cuda_storage",
        "torch.FloatTensor(torch.ones(2,device='cuda').untyped_storage())",
        exc=(
            "RuntimeError",
            'Attempted to set the storage of a tensor on device "cpu" to a storage on different '
            'device "cuda:0".  This is no longer allowed; the devices must match.',
        ),
        source="torch-source",
        cite="tensor_new.cpp new_with_storage: at::empty({}, cpu options).set_(storage); "
        "aten/src/ATen/native/Resize.h checkSetStorage",
    ),
    Case(
        "legacy_constructor_forms_that_work",
        "x=torch.ones(2,device='cuda'); p=torch.ones(2)\n"
        "print(torch.FloatTensor(p).device, torch.DoubleTensor(2,3).shape, "
        "torch.LongTensor([1,2]).tolist(), torch.Tensor(x).device)",
        out="cpu torch.Size([2, 3]) [1, 2] cuda:0\n",
        source="torch-source",
        cite="tensor_new.cpp: BASE_CTOR (torch.Tensor) skips the type check and returns "
        "other.alias(); sizes and sequences make CPU tensors",
    ),
    Case(
        "tensor_new_of_a_cpu_tensor",
        "torch.ones(2,device='cuda').new(torch.ones(2))",
        exc=(
            "TypeError",
            "expected TensorOptions(dtype=float, device=cuda, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)) "
            "(got TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))",
        ),
        source="torch-source",
        cite="tensor_new.cpp legacy_tensor_generic_ctor_new (NEW): options = "
        "dispatchKeyToTensorOptions(CUDA), a device type without index",
    ),
    Case(
        "tensor_new_with_another_device_type",
        "torch.ones(2).new(2, device='cuda')",
        exc=(
            "RuntimeError",
            "legacy constructor expects device type: cpu but device type: cuda was passed",
        ),
        source="torch-source",
        cite="tensor_new.cpp check_legacy_ctor_device",
    ),
    Case(
        "type_as_a_cuda_tensor_moves",
        "a=torch.ones(2); b=torch.ones(2,device='cuda',dtype=torch.float64); y=a.type_as(b)\n"
        "print(y.device, y.dtype, (y+b).device, y.type_as(b) is y); y+a",
        out="cuda:0 torch.float64 cuda:0 True\n",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!",
        ),
        source="torch-source",
        cite="aten/src/ATen/native/TypeProperties.cpp type_as: self.to(other.options())",
    ),
    Case(
        "type_with_cuda_and_cpu_type_names",
        "a=torch.ones(2); x=torch.ones(2,device='cuda')\n"
        "print(a.type(torch.cuda.FloatTensor).device, a.type('torch.cuda.DoubleTensor').type(), "
        "x.type('torch.FloatTensor').device, x.type(torch.DoubleTensor).type(), x.type())",
        out="cuda:0 torch.cuda.DoubleTensor cpu torch.DoubleTensor torch.cuda.FloatTensor\n",
        source="torch-source",
        cite="torch/csrc/autograd/python_variable_methods.cpp THPVariable_type: "
        "options_from_string(name), device = Device(type) when the type differs, dispatch_to",
    ),
    Case(
        "new_factories_of_a_cuda_tensor",
        "x=torch.ones(2,device='cuda')\n"
        "print(x.new_tensor([1]).device, x.new_zeros(2).device, x.new_ones(1).device, "
        "x.new_empty(1).device, x.new_full((1,),2.).device, x.new(2).device)",
        out="cuda:0 cuda:0 cuda:0 cuda:0 cuda:0 cuda:0\n",
        source="torch-source",
        cite="THPVariable_new_*: OptionalDeviceGuard(device_of(self)) and the options of self",
    ),
    Case(
        "legacy_cuda_constructors",
        "x=torch.cuda.FloatTensor(2,3); y=torch.cuda.LongTensor([1,2]); "
        "z=torch.cuda.FloatTensor(np.ones(2))\n"
        "print(x.device, x.shape, y.device, y.tolist(), z.device, z.dtype, "
        "torch.cuda.FloatTensor(x).device, torch.cuda.FloatTensor(2, device='cuda:0').device)",
        out="cuda:0 torch.Size([2, 3]) cuda:0 [1, 2] cuda:0 torch.float32 cuda:0 cuda:0\n",
        source="torch-source",
        cite="torch/csrc/tensor/python_tensor.cpp Tensor_new -> tensor_new.cpp "
        "legacy_tensor_ctor(CUDA key): sizes / sequences on the current device or device=",
    ),
    Case(
        "legacy_cuda_constructor_of_a_cpu_tensor",
        "torch.cuda.FloatTensor(torch.ones(2))",
        exc=(
            "TypeError",
            "expected TensorOptions(dtype=float, device=cuda, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)) "
            "(got TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))",
        ),
        source="torch-source",
        cite="tensor_new.cpp legacy_tensor_generic_ctor_new, new(Tensor other): options = "
        "dispatchKeyToTensorOptions(CUDA), a device type without index",
    ),
    Case(
        "legacy_cuda_constructor_with_device_cpu",
        "torch.cuda.FloatTensor(2, device='cpu')",
        exc=(
            "RuntimeError",
            "legacy constructor expects device type: cuda but device type: cpu was passed",
        ),
        source="torch-source",
        cite="tensor_new.cpp check_legacy_ctor_device",
    ),
    Case(
        "pin_memory_of_pinned_memory_is_itself",
        "p=torch.ones(4).pin_memory(); v=p[1:]\n"
        "print(p.pin_memory() is p, v.pin_memory() is v, v.is_pinned(), "
        "torch.ones(2).pin_memory() is torch.ones(2))",
        out="True True True False\n",
        source="torch-source",
        cite="aten/src/ATen/native/Memory.cpp pin_memory: if (self.is_pinned(device)) "
        "return self; before at::_pin_memory",
    ),
    Case(
        "module_to_device_keyword",
        "m=nn.Linear(2,2); m.to(device='cuda'); x=torch.ones(2).to(device='cuda')\n"
        "print(m.weight.device, m.bias.device, x.device, torch._C._nn._parse_to(device='cuda')[0])",
        out="cuda:0 cuda:0 cuda:0 cuda\n",
        source="torch-source",
        cite="torch/nn/modules/module.py Module.to: torch._C._nn._parse_to(*args, **kwargs), "
        "the same parser for positional and keyword device",
    ),
    Case(
        "cuda_graph_is_a_class",
        "print(isinstance(torch.cuda.CUDAGraph, type), isinstance(torch.cuda.graph, type), "
        "type(None) in (torch.cuda.CUDAGraph | None).__args__)",
        out="True True True\n",
        source="torch-source",
        cite="torch/cuda/graphs.py: class CUDAGraph(torch._C._CUDAGraph), class graph",
    ),
    Case(
        "find_spec_triton_without_triton",
        "import importlib.util\n"
        "print(importlib.util.find_spec('triton') is None or torch.version.cuda is not None)",
        out="True\n",
        source="torch-source",
        cite="importlib.util.find_spec returns None for a module no finder finds; torch's "
        "torch/utils/_triton.py has_triton_package probes the same way (a CUDA wheel has "
        "Triton: then the case holds by the second operand)",
    ),
    Case(
        "compile_wraps_and_runs",
        "m=torch.compile(nn.Linear(2,2).cuda(), mode='max-autotune-no-cudagraphs', dynamic=False)\n"
        "print(type(m).__name__, type(m._orig_mod).__name__, list(m.state_dict()), "
        "m(torch.ones(1,2,device='cuda')).device)",
        out="OptimizedModule Linear ['_orig_mod.weight', '_orig_mod.bias'] cuda:0\n",
        source="torch-source",
        cite="torch/__init__.py compile -> torch._dynamo.optimize(...)(model): "
        "eval_frame.OptimizedModule(mod, ctx) registers the module as _orig_mod",
    ),
    Case(
        "wrapper_class_torch_function_results",
        "class W:\n"
        "    def __init__(self, t): self.t = t\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        un = lambda a: a.t if isinstance(a, W) else a\n"
        "        return W(func(*[un(a) for a in args], **{k: un(v) for k, v in (kwargs or {}).items()}))\n"
        "w=W(torch.ones(2,device='cuda'))\n"
        "print(torch.add(w,1).t.device, torch.mul(w, torch.ones(2,device='cuda')).t.device)",
        out="cuda:0 cuda:0\n",
        source="torch-source",
        cite="torch/overrides.py handle_torch_function: a non-Tensor argument's "
        "__torch_function__ computes the result with real tensors (here on the GPU)",
    ),
    Case(
        "dcp_get_model_state_dict_plain_model",
        "from torch.distributed.checkpoint.state_dict import get_model_state_dict\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "m=nn.Linear(2,2).cuda(); sd=get_model_state_dict(m)\n"
        "print(FSDP.fsdp_modules(m), sorted(sd), sd['weight'].device)",
        out="[] ['bias', 'weight'] cuda:0\n",
        source="torch-source",
        cite="torch/distributed/checkpoint/state_dict.py _verify_options: "
        "FSDP.fsdp_modules(model), empty for a model without FSDP; the state dict's tensors are the parameters",
    ),
    Case(
        "sparse_coo_tensor_of_device_tensors",
        "i=torch.tensor([[0,1],[1,0]],device='cuda'); v=torch.ones(2,device='cuda')\n"
        "s=torch.sparse_coo_tensor(i,v,(2,2)); print(s.device, s.layout, s.to_dense().sum().item())",
        out="cuda:0 torch.sparse_coo 2.0\n",
        source="torch-source",
        cite="aten/src/ATen/native/sparse/SparseTensor.cpp sparse_coo_tensor: the options of "
        "values (its device); a GPU makes a CUDA sparse tensor",
    ),
    Case(
        "sparse_coo_tensor_moves_host_indices_to_the_values_device",
        "i=torch.tensor([[0,1],[1,0]]); v=torch.ones(2,device='cuda')\n"
        "s=torch.sparse_coo_tensor(i,v,(2,2)); print(s.device, s._indices().device, i.device)",
        out="cuda:0 cuda:0 cpu\n",
        source="torch-source",
        cite="torch/csrc/utils/tensor_new.cpp sparse_coo_tensor_ctor: values made on device= "
        "(default: their own), indices by internal_new_from_data(values.options(), ...) "
        "(Note [Ensuring sparse values and indices match devices])",
    ),
    Case(
        "sparse_csr_of_a_device_tensor_stays_on_the_device",
        "x=torch.tensor([[0.,1.],[2.,0.]],device='cuda'); s=x.to_sparse_csr()\n"
        "y=torch.sparse.mm(s, torch.ones(2,1,device='cuda'))\n"
        "print(s.device, s.is_cuda, s.crow_indices().device, y.device, y.flatten().tolist(), "
        "s.to_dense().device, s.cpu().device, s.cpu().cuda().layout)",
        out="cuda:0 True cuda:0 cuda:0 [1.0, 2.0] cuda:0 cpu torch.sparse_csr\n",
        source="torch-source",
        cite="native_functions.yaml: _to_sparse_csr (CUDA: dense_to_sparse_csr), addmm "
        "(SparseCsrCUDA: addmm_sparse_compressed_dense), _to_dense (SparseCsrCUDA) make their "
        "results on the input's device",
    ),
    Case(
        "sparse_coo_device_times_host_dense",
        "s=torch.ones(2,2,device='cuda').to_sparse(); torch.sparse.mm(s, torch.ones(2,2))",
        exc=(
            "RuntimeError",
            "Expected all tensors to be on the same device, but got mat1 is on cuda:0, different "
            "from other tensors on cpu (when checking argument in method wrapper_SparseCUDA__addmm)",
        ),
        source="torch-source",
        cite="_sparse_mm (SparseTensorMath.cpp) makes zeros like mat2 (cpu) and calls "
        "_sparse_addmm -> addmm; the SparseCUDA dispatch key wins, and torchgen's wrapper for "
        "it checks out args then self, mat1, mat2 (is_cuda_dispatch_key(SparseCUDA) -> "
        "device_guard -> gen_device_check)",
    ),
    Case(
        "sparse_csr_mm_with_reduce_has_no_cuda_kernel",
        "s=torch.ones(2,2,device='cuda').to_sparse_csr()\n"
        "try:\n"
        "    torch.sparse.mm(s, torch.ones(2,2,device='cuda'), 'sum')\n"
        "except NotImplementedError as e:\n"
        "    print(str(e).split('. ')[0])",
        out="Could not run 'aten::_sparse_mm_reduce_impl' with arguments from the "
        "'SparseCsrCUDA' backend\n",
        source="torch-source",
        cite="native_functions.yaml: _sparse_mm_reduce_impl dispatch has SparseCsrCPU only; "
        "_sparse_mm.reduce (composite) calls it; the dispatcher's reportError text",
    ),
    Case(
        "sync_debug_error_flags_bincount",
        "x=torch.tensor([0,1,1],device='cuda'); torch.cuda.set_sync_debug_mode('error')\n"
        "try:\n"
        "    torch.bincount(x)\n"
        "finally:\n"
        "    torch.cuda.set_sync_debug_mode(0)",
        exc=("RuntimeError", "called a synchronizing CUDA operation"),
        source="torch-source",
        cite="aten/src/ATen/native/cuda/SummaryOps.cu _bincount_cuda_template: "
        "self.min().item() / self.max().item() size the output (a device-to-host copy)",
    ),
    Case(
        "warning_module_filter_matches_the_callers_module",
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always'); warnings.filterwarnings('ignore', module='torch')\n"
        "    torch.nn.functional.softmax(torch.ones(3,device='cuda'))\n"
        "    torch.tensor(torch.ones(2,device='cuda'))\n"
        "print(len(w), sorted(x.filename.startswith('<fidelity') for x in w))",
        out="2 [True, True]\n",
        source="torch-source",
        cite="torch/nn/functional.py _get_softmax_dim: warnings.warn(..., stacklevel=3) and "
        "torch/csrc/utils/tensor_new.cpp TORCH_WARN (PyErr_WarnEx, stacklevel 1): both "
        "attributed to the calling frame, whose module the filter does not match",
    ),
    Case(
        "mem_get_info_total_is_the_device_size",
        "free, total = torch.cuda.mem_get_info(); x = torch.ones(1024, device='cuda')\n"
        "print(total == torch.cuda.get_device_properties(0).total_memory, 0 < free <= total, "
        "torch.cuda.mem_get_info()[0] <= free)",
        out="True True True\n",
        source="torch-source",
        cite="torch/cuda/memory.py mem_get_info: cudaMemGetInfo (free, total); total is the "
        "device's memory, cudaDeviceProp.totalGlobalMem",
    ),
    Case(
        "python_child_process_sees_the_gpus",
        "import subprocess, sys\n"
        "r=subprocess.run([sys.executable,'-c','import torch; "
        "print(torch.cuda.is_available(), torch.cuda.device_count()==%d, torch.ones(1).cuda().device)'"
        " % torch.cuda.device_count()], capture_output=True, text=True)\n"
        "print(r.stdout, end='')",
        out="True True cuda:0\n",
        source="torch-source",
        tags=("process",),
        cite="a child process inherits the parent's environment and sees the machine's GPUs "
        "(torch/cuda/__init__.py device_count: the driver's count, CUDA_VISIBLE_DEVICES unset)",
    ),
    Case(
        "factory_pin_memory_true",
        "t=torch.empty(4, pin_memory=True); z=torch.zeros(2, device='cpu', pin_memory=True)\n"
        "print(t.is_pinned(), t.device, z.is_pinned(), t.to('cuda', non_blocking=True).device)",
        out="True cpu True cuda:0\n",
        source="torch-source",
        cite="aten/src/ATen/native/TensorFactories.cpp empty_cpu: pin_memory=True allocates "
        "with the accelerator's pinned host allocator (found running safetensors' load_file(device='cuda:0'))",
    ),
    Case(
        "meta_tensor_to_cpu",
        "torch.zeros(2, device='meta').to('cpu')",
        exc=("NotImplementedError", "Cannot copy out of meta tensor; no data!"),
        source="torch-source",
        cite="aten/src/ATen/native/Copy.cpp copy_impl: TORCH_CHECK_NOT_IMPLEMENTED(!self.is_meta()...), "
        "the same on every build",
    ),
    Case(
        "lazy_linear_to_device",
        "m=nn.LazyLinear(4).to('cuda'); n=nn.LazyLinear(4).to('cuda'); n.load_state_dict(m.state_dict())\n"
        "print(m(torch.ones(2,3,device='cuda')).device, m.weight.device, m.weight.shape)",
        out="cuda:0 cuda:0 torch.Size([4, 3])\n",
        source="torch-source",
        cite="torch/nn/parameter.py UninitializedTensorMixin._allowed_methods (to, copy_); "
        "materialize: torch.empty(shape, device=self.data.device) (found in torch_geometric's "
        "test_linear.py)",
    ),
    Case(
        "script_calls_a_torch_builtin_replaced_by_the_simulation",
        "import tempfile, importlib.util, os  # TorchScript reads the source of a file\n"
        "p = os.path.join(tempfile.mkdtemp(), 'ferry_script_case.py')\n"
        "open(p, 'w').write('import torch\\ndef f(t: torch.Tensor) -> bool:\\n    return torch.is_autocast_enabled()\\n')\n"
        "spec = importlib.util.spec_from_file_location('ferry_script_case', p); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "print(torch.jit.script(mod.f)(torch.ones(1, device='cuda')))",
        out="False\n",
        source="torch-source",
        cite="torch/jit/_builtins.py: torch.is_autocast_enabled is aten::is_autocast_enabled "
        "(False outside autocast); nn.MultiheadAttention.forward calls it (found scripting it "
        "in torch_geometric's test_aggr_utils.py)",
    ),
    Case(
        "dynamo_explain_graph_conv_imported_in_a_child_process",
        "import subprocess, sys\n"
        "child = '''\n"
        "import torch, torch._dynamo as dynamo\n"
        "def spread(src, index, n):\n"
        "    return src.new_zeros(n, src.size(1)).index_add_(0, index, src)\n"
        "class MeanConv(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.lin = torch.nn.Linear(4, 4)\n"
        "    def forward(self, x, ei):\n"
        "        deg = spread(torch.ones(ei.size(1), 1, device=ei.device), ei[1], x.size(0))\n"
        "        return spread(self.lin(x)[ei[0]], ei[1], x.size(0)) / deg.clamp(min=1)\n"
        "x = torch.randn(3, 4, device='cuda'); ei = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]], device='cuda')\n"
        "e = dynamo.explain(MeanConv().cuda())(x, ei)\n"
        "print(e.graph_count, e.graph_break_count, e.break_reasons)\n"
        "'''\n"
        "r=subprocess.run([sys.executable, '-c', child], capture_output=True, text=True)\n"
        "print(r.stdout, end='')",
        out="1 0 []\n",
        source="torch-source",
        tags=("process",),
        cite="torch/_dynamo/eval_frame.py explain: graph_break_count = graph_count - 1; a "
        "tensor's .device is a torch.device constant (torch/_dynamo/utils.py "
        "common_constant_types), new_zeros and index_add_ are graph ops: one graph, as on "
        "the CPU (found in torch_geometric's test_compile_graph_breaks for GCN and PNA)",
    ),
]
