"""What a value is, where FRY010's meetings depend on it: an item of a tensor's shape, its
size along a dimension and a length are Python ints (no device), so a size given to a
factory or a reduction leaves the result where its tensors are; ``.data`` and ``.grad`` of
a layer's weight or bias are tensors where the layer is; and a comparison of a value that
has a device with a number is a mask there, which indexes a tensor only on its device
(or the CPU)."""

from __future__ import annotations

import textwrap

import pytest

from torchferry.check.engine import check_source


def lines(source: str) -> list[int]:
    found = check_source(textwrap.dedent(source), "m.py", select=["FRY010"])
    return sorted(f.line for f in found if f.code == "FRY010")


# the factory's tensor meets a torch function's result whose size argument is an int
# taken from a shape; the function's tensor argument is on the device
SIZES = {
    "bincount_minlength": """\
        import torch

        def confusion(y_true, y_pred):
            y_true, y_pred = y_true.cuda(), y_pred.cuda()
            n = y_true.shape[1]
            m = torch.zeros((n, n))
            m += torch.bincount(n * y_true.flatten() + y_pred.flatten(), minlength=n ** 2).reshape(n, n)
            return m
        """,
    "one_hot_classes": """\
        import torch
        import torch.nn.functional as F

        def counts(labels, logits):
            labels = labels.cuda()
            acc = torch.zeros(8)
            acc += F.one_hot(labels, num_classes=logits.shape[-1]).sum(0)
            return acc
        """,
    "narrow_length": """\
        import torch

        def trim(x, n_items):
            x = x.cuda()
            pad = torch.zeros(4)
            return pad + torch.narrow(x, 0, 0, x.shape[0] - 1)
        """,
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_sizes_from_a_shape_are_numbers(name: str) -> None:
    source = SIZES[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if "torch.zeros" in t)
    assert lines(source) == [factory]


# a layer's weight or bias as its data or its gradient, where the moved model is
WEIGHTS = {
    "weight_data": """\
        import torch
        import torch.nn as nn

        def prune(net: nn.Module):
            net = net.cuda()
            for m in net.modules():
                if isinstance(m, nn.Linear):
                    w = m.weight.data.abs().clone()
                    keep = torch.rand(w.shape)
                    w.mul_(keep)
        """,
    "weight_grad": """\
        import torch
        import torch.nn as nn

        def perturb(net: nn.Module):
            net = net.cuda()
            for m in net.modules():
                if isinstance(m, nn.Conv2d):
                    g = m.weight.grad
                    g.add_(torch.randn(g.shape))
        """,
    "bias_data": """\
        import torch
        import torch.nn as nn

        def shift(net: nn.Module):
            net = net.cuda()
            for m in net.modules():
                if isinstance(m, nn.Linear):
                    m.bias.data.sub_(torch.ones(m.out_features))
        """,
    "built_elsewhere": """\
        import torch

        def prune(build):
            net = build().cuda()
            for m in net.modules():
                w = m.weight.data
                w.mul_(torch.rand(w.shape))
        """,
}


@pytest.mark.parametrize("name", sorted(WEIGHTS))
def test_data_and_grad_of_a_layers_weights(name: str) -> None:
    source = WEIGHTS[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if "torch.rand" in t or "torch.ones" in t)
    assert lines(source) == [factory]


# a CPU tensor indexed by a mask made on the device by comparing with a number
MASKS = {
    "degree_filter": """\
        import torch

        def walk_starts(data, n):
            degrees = data.degrees.cuda()
            start = torch.arange(n)
            return start[degrees[start] > 0]
        """,
    "score_threshold": """\
        import torch

        def kept(batch, n):
            scores = batch.scores.to("cuda")
            idx = torch.randperm(n)
            return idx[scores >= 0.5]
        """,
    "nonzero_weights": """\
        import torch

        def pick(graph):
            w = graph.edge_weight.cuda()
            ids = torch.arange(w.numel())
            return ids[w != 0]
        """,
}


@pytest.mark.parametrize("name", sorted(MASKS))
def test_a_comparison_with_a_number_is_a_mask_where_its_operand_is(name: str) -> None:
    source = MASKS[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if "torch.arange" in t or "torch.randperm" in t)
    assert lines(source) == [factory]


# a part of a parameter selected by a vector (``batch.scores[idx]``: an array's or a
# tensor's elements, as a number, a list or a mapping cannot be indexed so) compared with a
# number: a mask where the parameter is, and a call of the file gives it a moved batch
SELECTED = {
    "batch_scores": """\
        import torch

        def keep_positive(batch):
            idx = torch.arange(0, batch.num_nodes)
            return idx[batch.scores[idx] > 0]

        def run(loader):
            device = torch.device("cuda")
            for batch in loader:
                batch = batch.to(device)
                keep_positive(batch)
        """,
    "method_threshold": """\
        import torch

        class Filter:
            def select(self, graph, thresh=0.5):
                nodes = torch.arange(graph.num_nodes)
                return nodes[graph.prob[nodes] >= thresh]

        def main(graphs):
            f = Filter()
            for g in graphs:
                f.select(g.cuda())
        """,
    "labels_per_class": """\
        import torch

        def per_class(sample, classes):
            perm = torch.randperm(len(sample.labels))
            out = []
            for c in range(classes):
                out.append(perm[sample.labels[perm] == c])
            return out

        def main(data):
            per_class(data.to("cuda"), 10)
        """,
}


@pytest.mark.parametrize("name", sorted(SELECTED))
def test_a_parameters_part_selected_by_a_vector_is_a_mask_where_it_is(name: str) -> None:
    source = SELECTED[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if "torch.arange" in t or "torch.randperm" in t)
    assert lines(source) == [factory]


QUIET_SELECTED = {
    # the calls give the batch as the loader yields it, on the CPU
    "unmoved_batch": SELECTED["batch_scores"].replace("batch = batch.to(device)", "pass"),
    # an item of a vector (0-dimensional) indexes a list as well as a tensor
    "zero_dim_key": """\
        import torch

        def first_positive(cfg, n):
            order = torch.arange(n)
            for i in order:
                if cfg.weights[i] > 0:
                    return order[:i]
            return order

        def main(cfg):
            first_positive(cfg.cuda(), 4)
        """,
    # a part of a parameter selected by a name or a number: it may be a number
    "keyed_part": """\
        import torch

        def grow(state, k):
            idx = torch.arange(8)
            if state.sizes[k] > 0:
                idx = idx + 1
            return idx

        def main(state):
            grow(state.to("cuda"), 2)
        """,
}


@pytest.mark.parametrize("name", sorted(QUIET_SELECTED))
def test_quiet_where_a_selected_part_is_not_known_on_the_device(name: str) -> None:
    assert lines(QUIET_SELECTED[name]) == []


QUIET = {
    # a number's comparison with a number, a parameter of unknown kind: no mask, no place
    "int_parameter": """\
        import torch

        def head(x, n):
            x = x.cuda()
            idx = torch.arange(4)
            if n > 0:
                idx = idx[:n]
            return x.sum() + len(idx)
        """,
    # 0-dimensional meetings mix with tensors on any device
    "zero_dim_threshold": """\
        import torch
        import torch.nn as nn

        def threshold(net: nn.Module):
            net = net.cuda()
            total = sum(m.weight.data.numel() for m in net.modules() if isinstance(m, nn.Linear))
            values = torch.zeros(total)
            y, _ = torch.sort(values)
            thre = y[int(total * 0.5)]
            for m in net.modules():
                if isinstance(m, nn.Linear):
                    w = m.weight.data.abs().clone()
                    mask = w.gt(thre).float()
                    m.weight.data.mul_(mask)
        """,
    "zero_dim_item_of_a_vector": """\
        import torch

        def scale(x, n):
            x = x.cuda()
            weights = torch.ones(len(x))
            return x * weights[n - 1]
        """,
    "zero_dim_item_of_a_one_size_shape": """\
        import torch
        import torch.nn.functional as F

        def loss(logits, labels, tasks):
            logits, labels = logits.cuda(), labels.cuda()
            w = torch.ones([len(tasks)])
            total = 0
            for i, t in enumerate(tasks):
                total = total + F.binary_cross_entropy_with_logits(logits[:, i], labels[:, i], pos_weight=w[i])
            return total
        """,
    "zero_dim_item_of_a_one_size_tuple_shape": """\
        import torch

        def scale(x, tasks):
            x = x.cuda()
            w = torch.zeros((len(tasks),), dtype=torch.float)
            return [w[i] * x[:, i] for i in range(len(tasks))]
        """,
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet_where_nothing_mixes_devices(name: str) -> None:
    assert lines(QUIET[name]) == []


@pytest.mark.parametrize("shape", ["[len(tasks)]", "(len(tasks), 2)", "[len(tasks), 2]"])
@pytest.mark.parametrize("use", ["w", "w[1:]"])
def test_a_vector_or_a_matrix_not_reduced_by_an_index_still_meets(shape: str, use: str) -> None:
    """Only one integer index of a vector (a shape of one size) makes a 0-dimensional item;
    the whole vector, a slice of it, or a row of a matrix keeps its dimensions."""
    source = f"""\
        import torch

        def scale(x, tasks):
            x = x.cuda()
            w = torch.ones({shape})
            return {use} * x
        """
    assert lines(source) == [5]
    if shape.startswith("(len(tasks), 2)"):
        assert lines(source.replace(f"return {use} * x", "return w[0] * x")) == [5]


def test_a_loop_value_compared_with_a_moved_one_keeps_its_first_meeting() -> None:
    """Two values of unknown kind compared (``cur == prev`` where ``prev`` joins the CPU
    factory with ``cur`` over the loop) stay a bool: the first iteration's meeting, the
    factory's tensor against the moved one, is what is reported."""
    source = """\
        import torch

        def track(batch, n, device):
            prev = torch.zeros(n)
            changes = 0
            for step in range(10):
                cur = batch.ids[:, step].to(device)
                changes += int(not (cur == prev).all())
                prev = cur
            return changes
        """
    assert lines(source) == [4]


@pytest.mark.parametrize("method", ["repeat(bs, 1)", "view(bs, -1)", "expand(bs, -1)"])
def test_a_size_argument_is_no_meeting(method: str) -> None:
    """A batch size that is an int on one path and a tensor's size on the other
    (``B = x`` where ``x`` may be an int, else ``B, _ = x.shape``) given to a method that
    takes sizes: no operand meets the factory's tensor there."""
    source = f"""\
        import torch
        import torch.nn as nn

        class Positions(nn.Module):
            def __init__(self, n, device):
                super().__init__()
                self.n = n
                self.device = device
                self.embed = nn.Embedding(n, 8)

            def forward(self, x: torch.Tensor | int, device: torch.device) -> torch.Tensor:
                if isinstance(x, int):
                    B = x
                else:
                    B, _ = x.shape
                return self.embed(self.get_pos(bs=B).to(device))

            def get_pos(self, bs):
                pos = torch.arange(0, self.n).unsqueeze(0)
                return pos.{method}.to(self.device)
        """
    assert lines(source) == []


# ``torch.tensor(a)`` of a NumPy array the code made with one or more dimensions: a tensor
# made on the CPU (no 0-dimensional number, which would mix anywhere)
ARRAYS = {
    "filled_labels": """\
        import numpy as np
        import torch

        def accuracy(model, images, n):
            model = model.cuda()
            labels = np.zeros([n])
            for i in range(n):
                labels[i] = i % 10
            labels = torch.tensor(labels).long()
            preds = model(images.cuda()).argmax(1)
            return (preds == labels).float().mean()
        """,
    "array_of_a_comprehension": """\
        import numpy as np
        import torch

        def returns(rewards, values, gamma):
            values = values.to("cuda")
            out = np.array([r * gamma for r in rewards])
            target = torch.as_tensor(out)
            return target - values
        """,
    "arange_positions": """\
        import numpy as np
        import torch

        def positions(x, length):
            x = x.cuda()
            pos = torch.tensor(np.arange(length))
            return x + pos
        """,
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_an_array_of_one_or_more_dimensions_is_data_made_on_the_cpu(name: str) -> None:
    source = ARRAYS[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if "torch.tensor(" in t or "torch.as_tensor(" in t)
    assert lines(source) == [factory]


QUIET_ARRAYS = {
    # a reduction's result may be 0-dimensional: it mixes with tensors anywhere
    "reduced": """\
        import numpy as np
        import torch

        def total(x, values):
            x = x.cuda()
            s = torch.tensor(np.sum(values))
            return x * s
        """,
    # a shape the code does not show (``()`` is 0-dimensional)
    "shape_of_a_parameter": ARRAYS["filled_labels"].replace("np.zeros([n])", "np.zeros(n)"),
    # an array of data the code does not show
    "array_of_a_parameter": ARRAYS["array_of_a_comprehension"].replace(
        "np.array([r * gamma for r in rewards])", "np.array(rewards)"),
}


@pytest.mark.parametrize("name", sorted(QUIET_ARRAYS))
def test_quiet_for_arrays_of_unknown_dimensions(name: str) -> None:
    assert lines(QUIET_ARRAYS[name]) == []


# a value computed on the device with one of torch's number constants, which are numbers
# as ``math.pi`` and ``np.inf`` are: the value stays where its tensor is
TORCH_CONSTANTS = {
    "pi_phase": """\
        import torch

        def encode(x):
            x = x.cuda()
            phase = 2 * torch.pi * x
            return torch.zeros(8) + torch.sin(phase)
        """,
    "inf_fill_through_a_helper": """\
        import torch

        def bounded(x, mode):
            if mode == "wrap":
                return torch.remainder(x, 2 * torch.pi)
            return x.clamp(-torch.inf, 1.0)

        def run(x, device):
            y = bounded(x.to(device), "wrap")
            return torch.ones(8) * y
        """,
    "e_scale_joined_arms": """\
        import torch

        def scale(x, method):
            if method == "exp":
                return x * (1 / torch.e)
            return x

        def step(model, batch):
            model = model.cuda()
            out = scale(model(batch.cuda()), "exp")
            return out - torch.full((4,), 0.5)
        """,
}


@pytest.mark.parametrize("name", sorted(TORCH_CONSTANTS))
def test_torch_number_constants_are_numbers(name: str) -> None:
    source = TORCH_CONSTANTS[name]
    factory = next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1)
                   if any(f"torch.{f}(" in t for f in ("zeros", "ones", "full")))
    assert lines(source) == [factory]


def test_torch_number_constants_alone_mix_nothing() -> None:
    assert lines("""\
        import torch

        def angles(n):
            return torch.arange(n) * (2 * torch.pi / n) + torch.zeros(n) - torch.inf
        """) == []
