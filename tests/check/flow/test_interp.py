import pytest

from torchferry.check.flow import Kind, Op, Reason


def test_factories_moves_and_device_values(snippet):
    s = snippet("""
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        a = torch.zeros(3)
        b = torch.zeros(3, device=device)
        c = a.to(device)
        d = a.cuda().cpu()
        e = a.to(torch.float16)
        f = torch.zeros_like(c)
        print(a, b, c, d, e, f)
    """)
    assert s.wheres(s.value_at(9, "a")) == {"CPU"}
    assert s.wheres(s.value_at(9, "b")) == {"CPU", "ACCEL"}
    assert s.wheres(s.value_at(9, "c")) == {"CPU", "ACCEL"}
    assert s.wheres(s.value_at(9, "d")) == {"CPU"}
    assert s.wheres(s.value_at(9, "e")) == {"CPU"}  # a cast, not a move
    assert s.wheres(s.value_at(9, "f")) == {"CPU", "ACCEL"}
    assert s.value_at(9, "c").origins[0].op is Op.MOVED


def test_branches_join_and_a_move_in_one_arm_stays_visible(snippet):
    s = snippet("""
        import torch
        x = torch.ones(2)
        if flag:
            x = x.cuda()
        print(x)
    """)
    assert s.wheres(s.value_at(5, "x")) == {"CPU", "ACCEL"}


def test_try_and_returning_branch(snippet):
    s = snippet("""
        import torch
        def f(flag):
            x = torch.ones(2)
            if flag:
                return x
            else:
                x = x.cuda()
            try:
                y = x.cpu()
            except RuntimeError:
                y = x
            return y
    """)
    # the returning arm does not flow on: after the if, x is on the accelerator
    assert s.wheres(s.value_at(11, "x")) == {"ACCEL"}
    assert s.wheres(s.value_at(12, "y")) == {"CPU", "ACCEL"}
    assert s.wheres(s.function("f").returns) == {"CPU", "ACCEL"}


def test_loop_reaches_a_fixed_point(snippet):
    s = snippet("""
        import torch
        h = torch.zeros(2)
        for _ in range(3):
            print(h)
            h = h.cuda()
        print(h)
    """)
    assert s.wheres(s.value_at(4, "h")) == {"CPU", "ACCEL"}  # the second round sees the move
    assert s.wheres(s.value_at(6, "h")) == {"CPU", "ACCEL"}


def test_loop_widens_what_keeps_changing(snippet):
    s = snippet("""
        t = ()
        for i in range(9):
            t = (t,)
        print(t)
    """)
    assert s.value_at(4, "t").kinds is None


def test_containers_unpacking_subscripts_comprehensions(snippet):
    s = snippet("""
        import torch
        h, c = torch.zeros(1), torch.zeros(1).cuda()
        pair = (h, c)
        first = pair[0]
        d = {"x": c, "n": 3}
        xs = [torch.ones(1) for _ in range(3)]
        head, *rest = xs
        print(h, c, first, d["x"], d["n"], head, rest)
    """)
    assert s.wheres(s.value_at(8, "h")) == {"CPU"} and s.wheres(s.value_at(8, "c")) == {"ACCEL"}
    assert s.wheres(s.value_at(8, "first")) == {"CPU"}
    call = s.call_at(8)
    assert s.wheres(call.args[3]) == {"ACCEL"} and call.args[4].is_(Kind.SCALAR)
    assert s.wheres(call.args[5]) == {"CPU"} and s.wheres(call.args[6].item) == {"CPU"}


def test_loader_yields_cpu_batches(snippet):
    s = snippet("""
        from torch.utils.data import DataLoader
        loader = DataLoader(ds)
        for step, (x, y) in enumerate(loader):
            x = x.to("cuda")
            print(x, y)
    """)
    assert s.value_at(5, "y").is_(Kind.BATCH) and s.wheres(s.value_at(5, "y")) == {"CPU"}
    assert s.wheres(s.value_at(5, "x")) == {"ACCEL"}
    assert s.value_at(5, "y").origins[0].op is Op.BATCH


def test_a_progress_bar_yields_what_it_wraps(snippet):
    s = snippet("""
        from torch.utils.data import DataLoader
        from tqdm.auto import tqdm
        pbar = tqdm(enumerate(DataLoader(ds)), total=10)
        for step, (x, y) in pbar:
            print(x, y)
    """)
    assert s.value_at(5, "y").is_(Kind.BATCH) and s.wheres(s.value_at(5, "y")) == {"CPU"}


def test_a_torchvision_dataset_gives_cpu_tensors_its_transform_made(snippet):
    s = snippet("""
        from torchvision import datasets, transforms
        data = datasets.MNIST("d", transform=transforms.ToTensor())
        other = datasets.MNIST("d", transform=transforms.ToTensor(), target_transform=f)
        x, y = data[0]
        print(x, y, other[0][0])
    """)
    assert s.value_at(5, "x").is_(Kind.TENSOR) and s.wheres(s.value_at(5, "x")) == {"CPU"}
    assert s.value_at(5, "x").origins[0].line == 2
    assert s.wheres(s.value_at(5, "other")) is None and s.value_at(5, "other").item is None


def test_annotation_is_only_a_hint(snippet):
    from torchferry.check.flow import Basis

    s = snippet("""
        import torch
        def f(x: torch.Tensor, y):
            y.unsqueeze(0)
            return x
    """)
    r = s.function("f")
    assert r.returns.is_(Kind.TENSOR) and r.returns.basis is Basis.HINT
    assert r.param_uses == {1: Kind.TENSOR}  # inferred from its use


def test_unresolved_calls_are_unknown_with_a_reason(snippet):
    s = snippet("""
        import somelib
        x = somelib.make()
        print(x)
    """)
    assert s.value_at(3, "x").kinds is None and s.value_at(3, "x").reason is Reason.OUTSIDE


def test_type_moves_by_the_type_it_names(snippet):
    s = snippet("""
        import torch
        Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
        x = torch.ones(2)
        a = x.type(torch.cuda.FloatTensor)
        b = a.type(torch.FloatTensor)
        c = a.type(torch.float16)
        d = x.type(Tensor)
        e = x.type("torch.cuda.HalfTensor")
        print(a, b, c, d, e)
    """)
    assert s.wheres(s.value_at(9, "a")) == {"ACCEL"}
    assert s.wheres(s.value_at(9, "b")) == {"CPU"}
    assert s.wheres(s.value_at(9, "c")) == {"ACCEL"}  # a dtype: a cast, not a move
    assert s.wheres(s.value_at(9, "d")) == {"ACCEL", "CPU"}  # where each path's type puts it
    assert s.value_at(9, "d").origins[0].op is Op.MOVED
    assert s.wheres(s.value_at(9, "e")) == {"ACCEL"}


def test_type_moves_by_the_type_a_branch_chose(snippet):
    s = snippet("""
        import torch
        def f(x, use_gpu, dtype):
            T = torch.cuda.FloatTensor if use_gpu else torch.FloatTensor
            S = "torch.cuda.HalfTensor" if use_gpu else "torch.HalfTensor"
            if use_gpu:
                U = torch.cuda.LongTensor
            else:
                U = torch.LongTensor
            y = torch.ones(2)
            a = y.type(T)
            b = y.type(S)
            c = y.type(U)
            d = y.type(dtype)
            e = y.cuda().type(torch.cuda.FloatTensor if use_gpu else torch.FloatTensor)
            print(a, b, c, d, e)
    """)
    for name in "abce":
        assert s.wheres(s.value_at(15, name)) == {"ACCEL", "CPU"}, name
        assert s.value_at(15, name).origins[0].op is Op.MOVED
    assert s.wheres(s.value_at(15, "d")) == {"CPU"}  # a dtype by its name: a cast


def test_a_full_reduction_of_a_cpu_tensor_is_zero_dimensional(snippet):
    s = snippet("""
        import torch
        m = torch.ones(3)
        a = m.sum()
        b = m.sum(0)
        c = m.cuda().sum()
        print(a, b, c)
    """)
    assert s.wheres(s.value_at(6, "a")) == set()  # no place: it mixes with any device
    assert s.value_at(6, "a").is_(Kind.TENSOR)
    assert s.wheres(s.value_at(6, "b")) == {"CPU"}
    assert s.wheres(s.value_at(6, "c")) == {"ACCEL"}  # (.numpy() of it would still fail)


def test_a_weightless_module_computes_where_its_inputs_are(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        crit = nn.CrossEntropyLoss()
        layer = nn.Linear(2, 2)
        def f(out, y):
            out, y = out.cuda(), y.cuda()
            loss = crit(out, y)
            z = layer(out)
            return loss, z
    """)
    assert s.wheres(s.value_at(9, "loss")) == {"ACCEL"}  # a loss is never moved itself
    assert s.wheres(s.value_at(9, "z")) == {"CPU"}  # a layer's weights decide


def test_a_loss_chosen_on_a_branch_computes_where_its_inputs_are(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        crit = nn.CrossEntropyLoss() if flag else nn.CTCLoss()
        mixed = nn.MSELoss() if flag else nn.Linear(2, 2)
        def f(out, y):
            out, y = out.cuda(), y.cuda()
            loss = crit(out, y)
            z = mixed(out, y)
            return loss, z
    """)
    assert s.wheres(s.value_at(9, "loss")) == {"ACCEL"}  # weightless on each branch
    assert s.wheres(s.value_at(9, "z")) == {"CPU"}  # a layer's weights on one branch


def test_iterating_a_module_list_gives_submodules_that_follow_the_model(snippet):
    s = snippet("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([nn.Linear(2, 2)])
                self.heads = nn.ModuleDict({"a": nn.Linear(2, 2)})
            def forward(self, x):
                for t, (block, head) in enumerate(zip(self.blocks, self.heads)):
                    y = block(x)
                    z = head
                return y, z
    """)
    assert s.wheres(s.value_at(11, "y")) == {"PARAM0"}  # the model's place
    assert s.value_at(11, "y").is_(Kind.TENSOR)
    assert not s.value_at(11, "z").is_(Kind.MODULE)  # a ModuleDict yields its keys


def test_shape_of_a_value_of_unknown_kind_is_no_tensor(snippet):
    s = snippet("""
        import numpy as np
        def f(model, x):
            y = model.generate(x.cuda())
            shape = (y.shape[0], 1)
            return shape
    """)
    v = s.value_at(5, "shape")
    assert v.elts is not None and not v.elts[0].places


def test_an_assigned_item_s_container_and_index_are_evaluated(snippet):
    s = snippet("""
        import torch
        def f(x):
            idx = x.cuda()
            out = torch.zeros(4)
            out[idx] = 1
            out[pick(idx)] += 2
            return out
    """)
    assert s.wheres(s.value_at(5, "out")) == {"CPU"}
    assert s.wheres(s.value_at(5, "idx")) == {"ACCEL"}
    assert s.call_at(6).node.func.id == "pick"  # a call in an assigned item's index is seen


def test_the_items_of_a_vector_factory_are_0_dimensional(snippet):
    s = snippet("""
        import torch
        def f(h, ids):
            for i in torch.arange(h.shape[0]):
                h[ids == i] = 0
            for row in torch.zeros(3, 4):
                print(row)
    """)
    assert s.value_at(4, "i").places == frozenset()  # a 0-dim CPU tensor mixes anywhere
    assert s.wheres(s.value_at(6, "row")) == {"CPU"}  # a row of a matrix is not


def test_a_move_to_a_tensor_parameter_s_device_is_wherever_it_is(snippet):
    s = snippet("""
        import torch
        from torch import Tensor
        def draw(bounds: Tensor, n: int) -> Tensor:
            return torch.rand(n).to(device=bounds.device)
        def to_target(h, args):
            return h.to(args.device)
        x = draw(torch.zeros(2), 3)
        print(x)
    """)
    assert s.wheres(s.function("draw").returns) == {"PARAM0"}
    assert s.wheres(s.value_at(8, "x")) == {"CPU"}  # the caller's bounds are on the CPU
    # the device of something that is not a tensor (a configuration): a device the code chose
    assert s.wheres(s.function("to_target").returns) == {"ACCEL"}


def test_load_with_a_map_location_puts_what_it_loads_there(snippet):
    s = snippet("""
        import torch
        device = torch.accelerator.current_accelerator() if fast else torch.device("cpu")
        a = torch.load("m.pt", map_location=device)
        b = torch.load("m.pt", map_location="cpu")
        c = torch.load("m.pt", map_location=lambda s, loc: s)
        d = torch.load("m.pt")
        print(a, b, c, d)
    """)
    a = s.value_at(7, "a")
    assert s.wheres(a) == {"CPU", "ACCEL"} and a.kinds is None  # (a module, a state dict...)
    assert a.origins[0].op is Op.LOADED and a.origins[0].to == a.places
    assert s.wheres(s.value_at(7, "b")) == {"CPU"}
    assert s.value_at(7, "c").places is None and s.value_at(7, "d").places is None


def test_the_first_run_of_a_call_in_a_loop(snippet):
    from torchferry.check.flow.first_run import first_run

    s = snippet("""
        import torch
        def gen(model, steps, device):
            token = torch.zeros(1)
            warm = False
            for i in range(steps):
                model(token)
                if warm:
                    model(token)
                for j in range(2):
                    if j > 0:
                        break
                    model(token)
                token = token.to(device)
                warm = True
            model(token)
    """)
    res = s.function("gen")
    calls = {c.node.lineno: c for c in res.calls.values()}
    first = first_run(res, calls[6].node)
    assert first is not None and s.wheres(first.args[0]) == {"CPU"}
    assert s.wheres(calls[6].args[0]) == {"CPU", "ACCEL"}  # the loop's fixed point
    assert first_run(res, calls[8].node) is None  # under a test the loop changes
    assert first_run(res, calls[12].node) is None  # in a loop that breaks
    assert first_run(res, calls[15].node) is None  # not in a loop


def test_the_first_run_of_a_call_in_a_loop_that_breaks_or_continues(snippet):
    import ast

    from torchferry.check.flow.first_run import first_run

    s = snippet("""
        import torch
        def gen(model, device):
            token = torch.zeros(1)
            while True:
                out = model(token)
                token = token.to(device)
                if out.sum() > 0:
                    break
            for i in range(3):
                if i == 0:
                    continue
                model(token.cpu())
                token = token.to(device)
    """)
    res = s.function("gen")
    calls = {c.node.lineno: c for c in res.calls.values() if ast.unparse(c.node.func) == "model"}
    first = first_run(res, calls[5].node)  # a break of the outermost loop: ran on round 1 or never
    assert first is not None and s.wheres(first.args[0]) == {"CPU"}
    assert first_run(res, calls[12].node) is None  # a continue may skip round 1


def test_a_scopes_paths_are_those_of_a_walk_down_from_its_root():
    import ast

    from torchferry.check.flow.first_run import _SCOPES, _Scope

    tree = ast.parse(
        "def f(xs, m):\n"
        "    for x in xs:\n"
        "        while m(x):\n"
        "            y = [g(z) for z in x] if x else h(lambda q: q(x))\n"
        "    def inner():\n"
        "        return m(1)\n"
        "    return inner\n"
    )
    fn = tree.body[0]

    def reference(node, target, path):  # down every child, not into a nested scope
        for child in ast.iter_child_nodes(node):
            if child is target:
                return [*path, child]
            if not isinstance(child, _SCOPES):
                found = reference(child, target, [*path, child])
                if found is not None:
                    return found
        return None

    scope = _Scope(fn)
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
    assert len(calls) == 5
    for call in calls:
        assert scope.path(call) == reference(fn, call, [fn])
    assert [scope.path(c) is None for c in calls].count(True) == 2  # in the lambda, in inner()
    assert scope.path(fn) is None


def test_a_global_bound_in_the_arms_of_a_test_is_that_arms_value_under_the_same_test(snippet):
    from torchferry.check.flow.arms import global_in_arm

    s = snippet("""
        import torch
        big = False
        if big:
            m = torch.nn.Linear(2, 2).cuda()
        else:
            m = torch.nn.Linear(2, 2)
        def f(x):
            if not big:
                m(x)
            if big:
                m(x)
            m(x)
    """)
    res = s.function("f")
    calls = {c.node.lineno: c for c in res.calls.values() if c.node.lineno in (9, 11, 12)}
    assert s.wheres(calls[9].func) == {"CPU", "ACCEL"}  # the join over the module's arms
    assert s.wheres(global_in_arm(s.ff, calls[9].node, "m", calls[9].func)) == {"CPU"}
    assert s.wheres(global_in_arm(s.ff, calls[11].node, "m", calls[11].func)) == {"ACCEL"}
    assert global_in_arm(s.ff, calls[12].node, "m", calls[12].func) is None  # under no test


def test_arithmetic_with_a_tensor_moved_to_the_cpu_is_on_the_cpu(snippet):
    s = snippet("""
        import torch
        def f(edge_index, n):
            num = n if n is not None else edge_index.max() + 1
            row, col = edge_index.cpu()
            idx = row * num + col
            other = edge_index * num
            print(idx, other)
    """)
    # ``num`` may be a 0-dimensional tensor where ``edge_index`` is: with ``row`` on the CPU
    # the product is on the CPU (or fails), not on the device
    assert s.wheres(s.value_at(7, "idx")) == {"CPU"}
    assert s.wheres(s.value_at(7, "other")) == {"PARAM0", "PARAM1"}


def test_items_of_a_vector_of_numbers_written_out_have_no_place(snippet):
    s = snippet("""
        import torch
        def f(sizes):
            offsets = torch.as_tensor([0, *sizes[:-1]]).cumsum_(0)
            rows = torch.tensor([[0, 1], [2, 3]])
            for o, r in zip(offsets, rows):
                print(o, r)
    """)
    # ``o`` is 0-dimensional (it mixes with tensors on any device); ``r`` is a row
    assert s.wheres(s.value_at(6, "o")) == set()
    assert s.wheres(s.value_at(6, "r")) == {"CPU"}


def test_a_factory_on_the_device_of_a_parameter_is_where_the_argument_is(snippet):
    s = snippet("""
        import torch
        def one_hot(index, n):
            return torch.zeros((index.size(0), n), device=index.device)
        def f(labels):
            a = one_hot(torch.tensor(labels), 4)
            b = one_hot(labels.cuda(), 4)
            print(a, b)
    """)
    assert s.wheres(s.value_at(7, "a")) == {"CPU"}
    assert s.wheres(s.value_at(7, "b")) == {"ACCEL"}


def test_a_value_of_unknown_kind_does_not_hide_where_arithmetic_is(snippet):
    s = snippet("""
        import torch
        from settings import cfg
        def f(x):
            y = torch.ones(x).cuda() / cfg.dim ** 0.5
            z = torch.ones(2) * cfg.scale
            w = cfg.a * cfg.b
            print(y, z, w)
    """)
    assert s.wheres(s.value_at(7, "y")) == {"ACCEL"}
    assert s.wheres(s.value_at(7, "z")) == {"CPU"}
    assert s.wheres(s.value_at(7, "w")) is None


def test_einops_functions_give_tensors_where_their_tensors_are(snippet):
    s = snippet("""
        import torch
        from einops import einsum, rearrange
        def f(a, b):
            x = einsum(torch.ones(2, 3).cuda(), torch.ones(3).cuda(), "i j, j -> i")
            y = rearrange(torch.ones(4), "(a b) -> a b", a=2)
            print(x, y)
    """)
    assert s.wheres(s.value_at(6, "x")) == {"ACCEL"} and s.value_at(6, "x").is_(Kind.TENSOR)
    assert s.wheres(s.value_at(6, "y")) == {"CPU"}


def test_what_a_module_parameter_returns_is_not_the_module(snippet):
    s = snippet("""
        def evaluate(model, batch):
            model.eval()
            out, ptr = model(batch)
            return out, ptr, model
    """)
    res = s.function("evaluate")
    assert res.kind_of(s.value_at(4, "model")) == {Kind.MODULE}
    assert res.kind_of(s.value_at(4, "out")) is None
    assert res.kind_of(s.value_at(4, "ptr")) is None


def test_a_parameter_named_as_loaders_are_is_a_loader_by_hint(snippet):
    ff = snippet("x = 1").ff
    for name in ("train_loader", "dl", "val_dl", "dl_test"):
        assert ff.hint_kinds(name, None) == {Kind.LOADER}, name
    assert ff.hint_kinds("handler", None) is None


def test_a_submodule_assigned_a_value_of_unknown_kind_on_some_path_keeps_its_constructions(snippet):
    s = snippet("""
        import torch.nn as nn
        from elsewhere import Merged, make_head
        class Region(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(2, 2)
        class Chain(nn.Module):
            def __init__(self, merged, head=None):
                super().__init__()
                self.region = Merged() if merged else Region()
                self.head = head if head is not None else make_head()
            def forward(self, x):
                return self.region(x), self.head(x)
    """)
    region, head = (c.func for c in sorted(s.function("forward").calls.values(),
                                             key=lambda c: c.node.col_offset))
    assert region.is_(Kind.MODULE) and [o.text for o in region.origins] == ["Region(...)"]
    # what a parameter gives or an unresolved call returns tells nothing of weights
    assert head.is_(Kind.MODULE) and head.origins == ()


def test_a_torch_function_of_a_tuple_of_tensors_computes_where_they_are(snippet):
    s = snippet("""
        import torch
        pad = torch.zeros(2, 3)
        eye = torch.eye(2)
        both = torch.cat((pad, eye), axis=1)
        moved = torch.stack((pad.cuda(), eye.cuda()))
        shaped = torch.reshape(pad, (n, m))
        print(both, moved, shaped)
    """)
    assert s.wheres(s.value_at(7, "both")) == {"CPU"}
    assert [o.op for o in s.value_at(7, "both").origins] == [Op.MADE, Op.MADE]
    assert s.wheres(s.value_at(7, "moved")) == {"ACCEL"}
    # a tuple of sizes of unknown kind is no tensor: where ``pad`` is
    assert s.wheres(s.value_at(7, "shaped")) == {"CPU"}


def test_pad_sequence_computes_where_the_lists_tensors_are(snippet):
    s = snippet("""
        import torch
        from torch.nn.utils.rnn import pad_sequence
        def f(data, device):
            tensors = [torch.tensor(t) for t in data]
            padded = torch.nn.utils.rnn.pad_sequence(tensors, batch_first=True)
            seqs = []
            for t in data:
                seqs.append(torch.as_tensor(t))
            imported = pad_sequence(seqs)
            moved = pad_sequence([torch.tensor(t).to(device) for t in data])
            print(padded, imported, moved)
    """)
    assert s.wheres(s.value_at(11, "padded")) == {"CPU"}
    assert s.value_at(11, "padded").is_(Kind.TENSOR)
    assert s.wheres(s.value_at(11, "imported")) == {"CPU"}
    assert s.wheres(s.value_at(11, "moved")) == {"ACCEL"}


@pytest.mark.parametrize("binding", [
    'th = importlib.import_module("torch")',
    'th = pytest.importorskip("torch")',
    'th, have_torch, _ = optional_package("torch", min_version="2.2.0")',
])
def test_a_module_imported_by_a_call_is_that_module(snippet, binding):
    s = snippet(f"""
        import importlib
        import pytest
        from dipy.utils.optpkg import optional_package
        {binding}
        def f(x):
            t = th.from_numpy(x)
            print(t)
    """)
    assert s.wheres(s.value_at(7, "t")) == {"CPU"}
    assert s.value_at(7, "t").is_(Kind.TENSOR)


def test_a_tuple_from_another_call_is_no_module(snippet):
    s = snippet("""
        th, have_torch = import_module("torch")
        def f(x):
            t = th.from_numpy(x)
            print(t)
    """)
    assert s.value_at(4, "t").kinds is None



_WEIGHTLESS = """
    import torch
    import torch.nn as nn
    from data import to_var
    relu = nn.ReLU()
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.crit = nn.L1Loss(reduce=False)
        def step(self, x, y):
            {prep}
            loss = nn.L1Loss(reduce=False)(x, y)
            kept = self.crit(x, y)
            keyed = nn.MSELoss()(x, target=y)
            act = relu(x)
            pooled = nn.MaxPool2d(2)(x)
            return loss, kept, keyed, act, pooled
"""


@pytest.mark.parametrize("prep, of_both, of_x", [
    ("x, y = x.cuda(), y.cuda()", {"ACCEL"}, {"ACCEL"}),
    ("x, y = torch.zeros(3), torch.ones(3)", {"CPU"}, {"CPU"}),
    ("x, y = to_var(x), to_var(y)", None, None),
    ("x, y = torch.zeros(3), to_var(y)", None, {"CPU"}),  # one input of unknown place
])
def test_a_weightless_module_computes_where_its_tensor_inputs_are(snippet, prep, of_both, of_x):
    # losses (of two inputs), an activation and pooling (of x): built on the CPU, they
    # compute where their inputs are, and of an input of unknown place, nobody knows where
    s = snippet(_WEIGHTLESS.replace("{prep}", prep))
    expected = {"loss": of_both, "kept": of_both, "keyed": of_both, "act": of_x, "pooled": of_x}
    for name, where in expected.items():
        v = s.value_at(16, name)
        assert s.wheres(v) == where, name
        assert v.is_(Kind.TENSOR), name


def test_values_and_items_of_a_known_dict_keep_its_values(snippet):
    s = snippet("""
        import torch
        net = torch.nn.Linear(2, 2).cuda()
        stats = {"a": torch.ones(2).cuda(), "b": torch.zeros(2).cuda()}
        for name, w in net.state_dict().items():
            print(name, w)
        for v in stats.values():
            print(v)
        for key, (i, u) in enumerate(stats.items()):
            print(key, u)
        other = unknown.items()
        print(other)
    """)
    assert s.wheres(s.value_at(5, "w")) == {"ACCEL"}
    assert s.value_at(5, "w").is_(Kind.TENSOR)
    assert s.wheres(s.value_at(7, "v")) == {"ACCEL"}
    assert s.wheres(s.value_at(9, "u")) == {"ACCEL"}
    assert s.value_at(11, "other").kinds is None  # a dict the analysis does not know


def test_the_attributes_a_file_stores_outside_self_are_those_of_a_full_walk():
    import ast

    from torchferry.check.flow.treeindex import tree_index

    def _outside_stores(tree):
        return set(tree_index(tree).outside_stores())

    def reference(tree):  # every node, isinstance tests
        out = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) and not (
                    isinstance(n.value, ast.Name) and n.value.id == "self"):
                out.add(n.attr)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr":
                out.add("")
        return out

    tree = ast.parse(
        "class A:\n"
        "    def f(self, o):\n"
        "        self.w = 1\n"
        "        o.a, (o.b, [*o.c]) = 1, (2, [3])\n"
        "        del o.d, self.e\n"
        "        [0 for o.f in range(2)]\n"
        "        for o.g in []: pass\n"
        "        with open('x') as o.h: pass\n"
        "        o.i += 1\n"
        "        o.j: int = 2\n"
        "        return self.k.l, o.m\n"
    )
    assert _outside_stores(tree) == reference(tree) == set("abcdfghij")
    with_setattr = ast.parse("def g(o):\n    return [setattr(o, 'x', 1)]\n")
    assert _outside_stores(with_setattr) == reference(with_setattr) == {""}
