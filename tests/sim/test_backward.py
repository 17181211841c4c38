"""The backward pass in the simulated GPU: the Python code the autograd engine calls
(custom ``autograd.Function.backward``, tensor hooks) runs simulated, its gradients on
the devices of the outputs they belong to."""

from __future__ import annotations

import torch

import torchferry as tf


class _Scale(torch.autograd.Function):
    """A custom function whose backward makes a device tensor, as GPU code does."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        bias = torch.full(grad.shape, 0.5, device="cuda")
        ctx.grad_device = str(grad.device)
        ctx.out = grad * 2 + bias
        return ctx.out


def test_backward_hooks_and_custom_functions_run_in_the_simulation():
    seen = []
    with tf.simulate("cuda"):
        x = torch.ones(3, device="cuda", requires_grad=True)
        y = _Scale.apply(x)
        y.register_hook(lambda g: seen.append((str(g.device), str(torch.zeros(1, device="cuda").device))))
        y.sum().backward()
        assert x.grad.tolist() == [2.5, 2.5, 2.5]
        assert str(x.grad.device) == "cuda:0"
        assert seen == [("cuda:0", "cuda:0")]
        assert str(y.grad_fn.out.device) == "cuda:0" and y.grad_fn.grad_device == "cuda:0"
        (g,) = torch.autograd.grad(_Scale.apply(x).sum(), x)
        assert str(g.device) == "cuda:0"


class _Split(torch.autograd.Function):
    """Two outputs on two devices (as DataParallel's Broadcast makes replicas)."""

    @staticmethod
    def forward(ctx, x):
        return x.to("cuda:0"), x.to("cuda:1")

    @staticmethod
    def backward(ctx, g0, g1):
        ctx.seen = (str(g0.device), str(g1.device))
        return g0 + g1.to("cuda:0")


def test_each_gradient_arrives_on_its_outputs_device():
    with tf.simulate("cuda", count=2):
        x = torch.ones(2, device="cuda:0", requires_grad=True)
        a, b = _Split.apply(x)
        ((a * 2).sum() + (b * 3).sum().to("cuda:0")).backward()
        assert a.grad_fn.seen == ("cuda:0", "cuda:1")
        assert x.grad.tolist() == [5.0, 5.0] and str(x.grad.device) == "cuda:0"


def _checkpointed_grads(device: str, reentrant: bool) -> tuple[list[float], str]:
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 3).to(device)
    x = torch.linspace(-1, 1, 6).reshape(2, 3).to(device).requires_grad_()
    y = checkpoint(lambda t: torch.tanh(lin(t)) * 2, x, use_reentrant=reentrant)
    y.sum().backward()
    return x.grad.flatten().tolist() + lin.weight.grad.flatten().tolist(), str(lin.weight.grad.device)


def test_activation_checkpointing_recomputes_on_the_simulated_device():
    # the recomputation runs in the backward pass: its saved-tensor hooks see the same
    # devices as the forward pass's (non-reentrant checkpointing compares them)
    for reentrant in (False, True):
        cpu, _ = _checkpointed_grads("cpu", reentrant)
        with tf.simulate("cuda"):
            sim, device = _checkpointed_grads("cuda", reentrant)
        assert sim == cpu and device == "cuda:0"
