"""Summaries across functions, classes and files, and the budgets that bound them."""

import ast
import textwrap

from torchferry.check.flow import Callee, Kind, Op, Project, Reason, program


def test_return_in_terms_of_parameters(snippet):
    s = snippet("""
        import torch
        def prep(x, flag):
            return x.float()
        def init_hidden(n):
            return torch.zeros(1, n), torch.zeros(1, n)
        h, c = init_hidden(4)
        y = prep(torch.ones(2).cuda(), True)
        print(h, c, y)
    """)
    assert s.wheres(s.function("prep").returns) == {"PARAM0"}
    assert s.wheres(s.value_at(8, "h")) == {"CPU"} and s.wheres(s.value_at(8, "c")) == {"CPU"}
    assert s.wheres(s.value_at(8, "y")) == {"ACCEL"}
    assert s.value_at(8, "h").origins[0].line == 5  # made in the helper


def test_function_called_by_the_module_sees_globals_bound_after_a_join(snippet):
    # the module's environment is a new one after each join (the ``if``'s arms): a
    # function the module calls later sees the globals as they stand at the call
    s = snippet("""
        import torch
        import torch.nn as nn
        if torch.cuda.is_available():
            device = torch.device("cuda")
        else:
            device = torch.device("cpu")
        model = nn.Linear(2, 2)
        def train(x):
            return model(x.to(device))
        if __name__ == "__main__":
            train(torch.ones(2))
    """)
    call = next(c for c in s.function("train").calls.values() if c.callee is Callee.MODULE)
    assert s.wheres(call.func) == {"CPU"} and call.func.origins[0].line == 7
    assert s.wheres(call.args[0]) == {"CPU", "ACCEL"}


def test_class_attributes_joined_over_methods_and_submodules(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(2, 2)
                self.register_buffer("mask", torch.ones(2))
                self.table = torch.zeros(2)
            def reset(self):
                self.table = torch.zeros(2).cuda()
            def forward(self, x):
                out = self.encoder(x)
                return out + self.mask + self.table
    """)
    fwd = s.function("forward")
    assert s.wheres(s.value_at(13, "out")) == {"PARAM0"}  # where the model is
    mask = [m for m in fwd.meets.values()][0].operands
    assert s.wheres(mask[1][1]) == {"PARAM0"}  # a buffer follows the model
    table = [m for m in fwd.meets.values()][1].operands[1][1]
    assert s.wheres(table) == {"CPU", "ACCEL"}  # a plain attribute, joined over both methods


def test_wrapper_method_and_helper_factory(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        class Trainer:
            def __init__(self, model, device):
                self.model = model.to(device)
            def _forward_step(self, x):
                return self.model(x)
            def _mask(self, n):
                return torch.ones(n, n)
            def run(self, x):
                return self._forward_step(x) * self._mask(3)
    """)
    run = s.function("run")
    (meet,) = run.meets.values()
    assert s.wheres(meet.operands[0][1]) == {"ACCEL"}  # the model moved in __init__
    assert s.wheres(meet.operands[1][1]) == {"CPU"} and meet.operands[1][1].origins[0].line == 9


def test_in_place_module_moves_and_escapes(snippet):
    s = snippet("""
        import torch.nn as nn
        net = nn.Linear(2, 2)
        net.cuda()
        other = nn.Linear(2, 2)
        wrap(other)
        print(net, other)
    """)
    assert s.wheres(s.value_at(6, "net")) == {"ACCEL"}
    assert "other" in s.ff.module_result().escapes


def test_recursion_reaches_a_fixed_point(snippet):
    s = snippet("""
        import torch
        def build(n):
            if n == 0:
                return torch.zeros(2)
            return build(n - 1)
        def spin(n):
            return (spin(n),)
    """)
    assert s.wheres(s.function("build").returns) == {"CPU"}
    assert s.function("spin").returns.reason is Reason.RECURSION


def test_budget_makes_calls_unknown(snippet, monkeypatch):
    from torchferry.check.flow import project as project_module

    monkeypatch.setattr(project_module, "SUMMARY_BUDGET", 2)  # a parse and a summary
    proj = Project({"/p/main.py": b"", "/p/a.py": b"import torch\ndef f():\n    return torch.zeros(1)\n",
                    "/p/b.py": b"import torch\ndef g():\n    return torch.zeros(1)\n"}, packages=())
    s = snippet("""
        from a import f
        from b import g
        x, y = f(), g()
        print(x, y)
    """, project=proj)
    assert s.wheres(s.value_at(4, "x")) == {"CPU"}
    assert s.value_at(4, "y").reason is Reason.BUDGET


def test_cross_file_through_imports_and_star_imports(snippet):
    files = {
        "/r/pkg/__init__.py": b"from .models import *\n",
        "/r/pkg/models.py": b"import torch.nn as nn\nclass Net(nn.Module):\n    pass\n"
                            b"def build(cfg):\n    return Net().cuda()\n",
        "/r/pkg/util.py": b"import torch\ndevice = torch.device('cuda')\n"
                          b"def zeros(n):\n    return torch.zeros(n)\n",
    }
    train = """
        from .util import *
        from . import models
        from pkg import build
        from .models import Net
        m, n = build(None), Net()
        z = zeros(3)
        print(m, n, z, device)
    """
    files["/r/pkg/train.py"] = textwrap.dedent(train).encode()
    proj = Project(files, packages={"/r/pkg"})
    s = snippet(train, path="/r/pkg/train.py", project=proj)
    assert s.wheres(s.value_at(7, "m")) == {"ACCEL"} and s.value_at(7, "m").is_(Kind.MODULE)
    assert s.wheres(s.value_at(7, "n")) == {"CPU"}
    z = s.value_at(7, "z")
    assert s.wheres(z) == {"CPU"} and z.origins[0].path == "/r/pkg/util.py"
    assert s.wheres(s.value_at(7, "device")) == {"ACCEL"}
    assert proj.dependencies("/r/pkg/train.py") == {
        "/r/pkg/__init__.py", "/r/pkg/models.py", "/r/pkg/util.py"}


def test_dependency_salt_changes_with_a_dependency_only():
    a = {"/r/a.py": b"from b import f\n", "/r/b.py": b"def f(): pass\n", "/r/c.py": b"x = 1\n"}
    before = Project(a, packages=()).dependency_salt("/r/a.py")
    after = Project({**a, "/r/c.py": b"x = 2\n"}, packages=()).dependency_salt("/r/a.py")
    changed = Project({**a, "/r/b.py": b"def f(): return 1\n"}, packages=()).dependency_salt("/r/a.py")
    assert before == after and before != changed
    assert Project(a, packages=()).dependency_salt("/r/c.py") == ""


def test_depth_cap_is_small():
    assert 2 <= program.MAX_DEPTH <= 8 and program.RECURSION_ROUNDS <= 3


def test_scopes_that_cannot_matter_are_skipped_but_nested_ones_are_found():
    import ast
    import textwrap

    from torchferry.check.flow import analyze

    src = textwrap.dedent("""
        import torch
        def plain(a, b):
            return a + b
        def helper(n):
            return torch.zeros(n)
        def caller(x):
            return x * helper(3)
        def outer():
            class Local(torch.nn.Module):
                def forward(self, x):
                    return x + torch.ones(2)
            return Local
    """)
    tree = ast.parse(src)
    ff = analyze(tree, "/p/m.py", lines=src.splitlines())
    names = [getattr(r.node, "name", "<module>") for r in ff.results()]
    assert "plain" not in names and {"helper", "caller", "outer", "forward"} <= set(names)
    assert [getattr(n, "name", "") for n in ff.skipped()] == ["plain"]


def test_the_cache_key_covers_the_analysis_sources():
    from torchferry.check.cache import _code_fingerprint

    assert any(part.startswith("flow/lattice.py:") for part in _code_fingerprint().split("|"))


def test_call_sites_in_the_file_say_what_a_parameter_is_given(snippet):
    s = snippet("""
        import torch
        def helper(w, n):
            return w * n
        def caller(x: torch.Tensor):
            a = helper(torch.ones(2), 3)
            b = helper(x.cuda(), n=4)
            return a, b
        def spread(args):
            return helper(*args)
    """)
    fn = s.function("helper").node
    given = s.ff.arguments(fn, 0)
    assert given is None  # helper(*args) may pass anything
    del s.ff.call_sites[id(fn)][id(s.call_at(9).node)]
    given = s.ff.arguments(fn, 0)
    assert [s.wheres(v) for _, v in given] == [{"CPU"}, {"ACCEL"}]
    assert {getattr(caller.node, "name", "") for caller, _ in given} == {"caller"}
    assert [v.kinds for _, v in s.ff.arguments(fn, 1)] == [{Kind.SCALAR}, {Kind.SCALAR}]


def test_a_static_method_called_through_self_takes_no_self(snippet):
    s = snippet("""
        import torch
        class Loss(torch.nn.Module):
            def forward(self, att, lens):
                for n in lens:
                    att = att + self._mask(n.cuda(), 2)
                return att
            @staticmethod
            def _mask(n, sigma):
                return torch.arange(n) * sigma
    """)
    fn = s.function("_mask").node
    assert [s.wheres(v) for _, v in s.ff.arguments(fn, 0)] == [{"ACCEL"}]
    assert [v.kinds for _, v in s.ff.arguments(fn, 1)] == [{Kind.SCALAR}]


def test_parameters_torch_takes_on_the_cpu_and_the_forward_of_a_module(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        from torch.nn.utils.rnn import pack_padded_sequence
        class Decoder(nn.Module):
            def forward(self, x, lengths, mask):
                return self.pack(x * mask, lengths)
            def pack(self, x, n):
                return pack_padded_sequence(x, n)
        def loss(lp, t, il, tl):
            return torch.nn.functional.ctc_loss(lp, t, input_lengths=il, target_lengths=tl)
        dec = Decoder()
        y = dec(torch.ones(2), [2], 1)
    """)
    assert s.function("pack").cpu_params == {2}
    assert s.function("forward").cpu_params == {2}  # through self.pack(x, lengths)
    assert s.function("loss").cpu_params == {1, 2, 3}
    (call,) = [c for r in s.results for c in r.calls.values() if c.callee is Callee.MODULE]
    assert s.ff.forward_of(call.func) is s.function("forward")
    assert s.ff.forward_of(s.call_at(12).func) is None  # (torch.ones: no class of the run)


def test_a_method_stores_what_its_exits_leave_in_self(snippet):
    s = snippet("""
        import torch
        from models import Net
        class Runner:
            def __init__(self, cfg, device):
                self.model = Net(cfg)
                self.model.to(device)
                self.table = torch.zeros(2)
                if cfg:
                    self.table = self.table.cuda()
            def run(self, x):
                out = self.model(x)
                return out, self.table
    """)
    init = s.function("__init__")
    # the last store on every path wins: the model built elsewhere, then moved in place
    assert s.wheres(init.stores["model"]) == {"ACCEL"}
    # a store on one branch joins with the path that skips it
    assert s.wheres(init.stores["table"]) == {"CPU", "ACCEL"}
    assert s.wheres(s.value_at(12, "out")) == {"ACCEL"}  # the module's output, where it was moved


def test_a_store_read_back_after_a_branch_is_the_join(snippet):
    s = snippet("""
        import torch
        class Holder:
            def make(self, flag):
                if flag:
                    self.t = torch.zeros(2).cuda()
                else:
                    self.t = torch.zeros(2)
                y = self.t
                return y
    """)
    assert s.wheres(s.function("make").returns) == {"CPU", "ACCEL"}


def test_a_loader_yields_what_its_collate_function_returns(snippet):
    s = snippet("""
        import torch
        from torch.utils.data import DataLoader
        def collate(batch):
            return torch.tensor(batch, dtype=torch.long)
        def pairs(batch):
            return batch, batch
        def run(ds):
            for ids in DataLoader(ds, collate_fn=collate):
                a = ids
            for item in DataLoader(ds, collate_fn=pairs):
                b = item
            return a, b
    """)
    a, b = s.function("run").returns.elts
    assert a.is_(Kind.TENSOR) and s.wheres(a) == {"CPU"}  # the collate's tensor
    assert b.is_(Kind.BATCH)  # a pair: the batch as before


def test_torchvision_transforms_return_tensors_made_on_the_cpu(snippet):
    s = snippet("""
        import torchvision.transforms as T
        from mylib import Jitter
        class Loader:
            def __init__(self):
                self.tf = T.Compose([T.Resize(8), T.ToTensor(), T.Normalize((0.5,), (0.5,))])
            def load(self, img):
                a = self.tf(img)
                to_tensor = T.ToTensor()
                b = to_tensor(img).unsqueeze(0)
                c = T.Compose([T.ToTensor(), T.Lambda(lambda t: t.cuda())])(img)
                d = T.Compose([T.ToTensor(), Jitter()])
                return a, b, c, d(img)
    """)
    a, b, c, d = s.function("load").returns.elts
    assert a.is_(Kind.TENSOR) and s.wheres(a) == {"CPU"}
    assert b.is_(Kind.TENSOR) and s.wheres(b) == {"CPU"}
    assert c.kinds is None and d.kinds is None  # a Lambda, a transform not of torchvision


def test_a_parameter_moved_in_place_moves_the_callers_argument(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        def setup(m, device):
            m.to(device)
        def maybe(m, flag):
            if flag:
                m.cuda()
        def run():
            a = nn.Linear(2, 2)
            b = nn.Linear(2, 2)
            c = nn.Linear(2, 2)
            setup(a, "cuda")
            maybe(b, True)
            print(a, b, c)
    """)
    assert s.wheres(s.value_at(14, "a")) == {"ACCEL"}
    assert s.wheres(s.value_at(14, "b")) == {"CPU", "ACCEL"}  # moved on one path only
    assert s.wheres(s.value_at(14, "c")) == {"CPU"}


def test_a_parameter_returned_as_it_came_in_is_the_argument(snippet):
    s = snippet("""
        import torch
        def fill(label):
            label.fill_(-1)
            return label
        def first(x, flag):
            if flag:
                return x
            return x.config
        m = torch.zeros(3).cuda() > 0
        a = fill(m)
        b = first(m, True)
        print(a, b)
    """)
    a = s.value_at(12, "a")
    assert a.is_(Kind.TENSOR) and s.wheres(a) == {"ACCEL"}
    assert s.function("fill").returned_params == {0} and not s.function("fill").returns_other
    # a part of the parameter on another path: only its place is known, not its kind
    assert s.function("first").returns_other and s.value_at(12, "b").kinds is None


def test_a_torch_function_named_as_a_value_is_called_as_that_function(snippet):
    s = snippet("""
        import torch
        import torch.nn.functional as F
        from torch.nn.functional import l1_loss
        class Trainer:
            def __init__(self, net):
                self.net = net.cuda()
                self.loss_fn = F.mse_loss
                self.other = l1_loss if net else None
            def step(self, x, y):
                act = torch.relu
                h = act(x.cuda())
                loss = self.loss_fn(self.net(x), y)
                return loss, self.other(h, h), h
    """)
    h = s.value_at(13, "h")
    assert h.is_(Kind.TENSOR) and s.wheres(h) == {"ACCEL"}
    relu = [c for r in s.results for c in r.calls.values() if c.node.lineno == 11
            and isinstance(c.node.func, ast.Name)]
    assert relu[0].callee is Callee.TORCH and relu[0].qualname == "torch.relu"
    loss = s.value_at(13, "loss")
    assert loss.is_(Kind.TENSOR) and "ACCEL" in s.wheres(loss)
    calls = {c.qualname for r in s.results for c in r.calls.values() if c.node.lineno in (12, 13)}
    assert "torch.nn.functional.mse_loss" in calls
    # a reference on one path, None on the other: still only that function can be called
    assert "torch.nn.functional.l1_loss" in calls


def test_annotated_self_attributes_enter_the_class_table_with_the_source_lines():
    from torchferry.check.flow import analyze

    src = textwrap.dedent("""
        import torch
        class Trainer:
            def __init__(self, net):
                self.net: torch.nn.Module = net.cuda()
            def run(self, x):
                out = self.net(x)
                print(out.tolist())
                return out
    """).lstrip("\n")
    ff = analyze(ast.parse(src), "/p/t.py", lines=src.splitlines())
    run = next(r for r in ff.results() if getattr(r.node, "name", "") == "run")
    assert any(p.where.name == "ACCEL" for p in run.returns.places or ())


def test_forward_called_by_name_is_a_call_of_the_module(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(2, 2)
            def forward(self, x):
                return self.enc.forward(x)
        def extract(model, x):
            logit = model.forward(torch.from_numpy(x).cuda())
            return logit
        def extract_cpu(model, x):
            out = model.forward(x)
            return out
    """)
    logit = s.value_at(11, "logit")
    assert logit.is_(Kind.TENSOR) and s.wheres(logit) == {"ACCEL"}
    assert s.function("extract").param_uses[0] is Kind.MODULE
    assert s.function("forward").returns.is_(Kind.TENSOR)
    # inputs of unknown kind: as ``model(x)`` of a parameter, nothing is claimed
    assert s.value_at(14, "out").kinds is None


def test_a_function_of_the_file_named_as_a_value_is_followed(snippet):
    s = snippet("""
        import torch
        def llh(model, batch):
            out = torch.sigmoid(model(batch))
            return out.sum(), out.mean()
        def evaluate(model, loader):
            model.cuda()
            loss_fn = llh
            for batch in loader:
                loss, mean = loss_fn(model, batch.cuda())
            return loss, mean
    """)
    mean = s.value_at(10, "mean")
    assert mean.is_(Kind.TENSOR) and s.wheres(mean) == {"ACCEL"}
    # the origins of the argument that put it there come along
    assert any(o.op is Op.MOVED for o in mean.origins)


def test_appending_to_a_list_joins_its_item(snippet):
    s = snippet("""
        import torch
        def collect(xs):
            outs, more = [], []
            for x in xs:
                outs.append(torch.ones(2).cuda())
            more.extend(outs)
            both = torch.cat(outs)
            return outs, more, both
    """)
    outs = s.value_at(8, "outs")
    assert s.wheres(outs.item) == {"ACCEL"}
    assert s.wheres(s.value_at(8, "more").item) == {"ACCEL"}
    both = s.value_at(8, "both")
    assert s.wheres(both) == {"ACCEL"} and both.origins  # the items' origins


def test_a_stored_module_moved_in_place_is_left_moved(snippet):
    s = snippet("""
        import torch
        from elsewhere import Encoder
        class Trainer:
            def __init__(self, device):
                self.enc = Encoder()
                self.enc.to(device)
                self.other = Encoder()
                if device:
                    self.other = Encoder().cuda()
            def step(self, x):
                return self.enc(x), self.other
    """)
    init = s.function("__init__")
    assert s.wheres(init.stores["enc"]) == {"ACCEL"}  # not unknown: the move replaced it
    assert init.stores["other"].places is None  # two stores on two paths: joined
