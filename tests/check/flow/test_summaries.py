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


def test_a_called_parameter_is_a_module_only_by_evidence(snippet):
    s = snippet("""
        import torch.nn as nn
        def run(fn, args):
            return fn(*args)
        def forward_pass(model, x):
            return model(x)
        def evaluated(m, x):
            m.eval()
            return m(x)
        def annotated(m: nn.Module, x):
            return m(x)
    """)
    assert s.call_at(3).callee is Callee.UNRESOLVED  # any callable
    assert 0 not in s.function("run").param_uses
    for line in (5, 8, 10):  # by its name, a use only a module has, its annotation
        assert s.call_at(line).callee is Callee.MODULE, line
    assert s.function("forward_pass").param_uses[0] is Kind.MODULE


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


def test_dependencies_through_a_file_whose_closure_is_known_and_through_a_cycle():
    files = {"/r/a.py": b"import b\n", "/r/b.py": b"import c\n", "/r/c.py": b"import b\nimport d\n",
             "/r/d.py": b"x = 1\n"}
    p = Project(files, packages=())
    assert p.dependencies("/r/c.py") == {"/r/b.py", "/r/d.py"}  # known before a's is asked
    assert p.dependencies("/r/a.py") == {"/r/b.py", "/r/c.py", "/r/d.py"}
    assert p.dependencies("/r/b.py") == {"/r/c.py", "/r/d.py"}
    salt = p.dependency_salt("/r/a.py")
    edited = Project({**files, "/r/d.py": b"x = 2\n"}, packages=())
    edited.dependency_salt("/r/c.py")
    assert edited.dependency_salt("/r/a.py") not in ("", salt)  # a file three imports away


def test_an_absolute_import_is_found_next_to_each_importer():
    # (no package: ``lib.tool`` is no module name of the run, the file next to the importer)
    files = {"/r/x/a.py": b"import lib.tool\n", "/r/x/lib/tool.py": b"",
             "/r/y/b.py": b"import lib.tool\n", "/r/y/lib/tool.py": b"",
             "/r/y/c.py": b"import lib.tool\n"}
    p = Project(files, packages=())
    assert p.imports_of("/r/x/a.py") == {"/r/x/lib/tool.py"}
    assert p.imports_of("/r/y/b.py") == p.imports_of("/r/y/c.py") == {"/r/y/lib/tool.py"}


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
        def used(a):
            return a + 1
        def caller(x):
            return used(x) * helper(3)
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
    # ``used`` neither makes nor moves a tensor, but ``caller`` needed its summary
    assert names.index("used") > names.index("caller")


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


def test_return_tensors_pt_gives_tensors_made_on_the_cpu(snippet):
    s = snippet("""
        import torch
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained("bert-base-uncased")
        def encode(text, dev):
            a = tok(text, return_tensors="pt")
            b = tok.encode(text, return_tensors="pt")
            c = tok(text, return_tensors="np")
            d = tok(text, return_tensors="pt")
            d.to(dev)
            return a, a["input_ids"], b, c, d
    """)
    a, ids, b, c, d = s.function("encode").returns.elts
    assert a.kinds is None and s.wheres(a) == {"CPU"}  # a mapping (or, for encode, a tensor)
    assert ids.is_(Kind.TENSOR) and s.wheres(ids) == {"CPU"}
    assert s.wheres(b) == {"CPU"}
    assert c.item is None and s.wheres(c) != {"CPU"}  # NumPy arrays: not this fact
    assert s.wheres(d) != {"CPU"}  # ``d.to(dev)`` as a statement moves a mapping in place


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
    # a part of the parameter on another path: the summary knows its place, not its kind;
    # given a tensor, the function returns a tensor (an attribute of a tensor is one)
    assert s.function("first").returns_other and s.function("first").returns.kinds is None
    b = s.value_at(12, "b")
    assert b.is_(Kind.TENSOR) and s.wheres(b) == {"ACCEL"}


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


def test_self_of_a_method_placed_by_the_instances_the_file_moves(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                self.start = self.fc(torch.ones(2))
            def forward(self, x):
                return self.fc(x)
        class Kept(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            def forward(self, x):
                return self.fc(x)
        def main(device):
            model = Net().to(device)
            return model(torch.ones(2)), Kept()(torch.ones(2))
    """)
    fwd = [r for r in s.results if getattr(r.node, "name", "") == "forward"]
    out = fwd[0].value(fwd[0].node.body[0].value)
    assert s.wheres(out) == {"PARAM0"}
    placed = s.ff.placed(fwd[0], out)
    assert s.wheres(placed) == {"ACCEL"}
    assert placed.origins[0].op is Op.OUTPUT and placed.origins[1].op is Op.MOVED
    assert placed.origins[1].line == 17  # the move of the instance
    kept = fwd[1].value(fwd[1].node.body[0].value)
    assert s.wheres(s.ff.placed(fwd[1], kept)) == {"PARAM0"}  # never moved here
    init = s.function("__init__")  # while it is built, the module is on the CPU
    start = init.value(init.node.body[2].value)
    assert s.ff.placed(init, start) == start


def test_self_of_a_method_placed_by_a_method_that_moves_its_own_object(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            def forward(self, x):
                return self.fc(x)
            def read(self, x):
                return self.fc(x)
        class Mover(Base):
            def build(self, device):
                self.to(device)
        class Other(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            def home(self):
                self.cpu()
            def read(self, x):
                return self.fc(x)
    """)
    base, other = (r for r in s.results if getattr(r.node, "name", "") == "read")
    out = base.value(base.node.body[0].value)
    placed = s.ff.placed(base, out)  # a Base may be a Mover, moved by ``build``
    assert s.wheres(placed) == {"ACCEL"}
    assert placed.origins[1].op is Op.MOVED and placed.origins[1].line == 13
    kept = other.value(other.node.body[0].value)  # moved home only: left where it is
    assert s.wheres(s.ff.placed(other, kept)) == {"PARAM0"}


def test_parameter_placed_by_the_calls_of_the_file(snippet):
    s = snippet("""
        import torch
        def report(pred):
            return pred.max(1)[1]
        def evaluate(net, x):
            return report(net(x))
        def main(device, x):
            net = torch.nn.Linear(2, 2)
            net.to(device)
            return evaluate(net, x)
        def public(t):
            return t.float()
        def helper(t):
            return t.float()
        def relay(flag, u):
            return helper(u), helper(torch.ones(2).cuda())
    """)
    rep = s.function("report")
    out = rep.value(rep.node.body[0].value)
    assert s.wheres(out) == {"PARAM0"}
    placed = s.ff.placed(rep, out)  # report <- evaluate <- main, where net is moved
    assert s.wheres(placed) == {"ACCEL"}
    assert any(o.op is Op.MOVED and o.line == 8 for o in placed.origins)
    pub = s.function("public")
    t = pub.value(pub.node.body[0].value)
    assert s.ff.placed(pub, t) == t  # no call here: the callers decide
    helper = s.function("helper")
    t = helper.value(helper.node.body[0].value)
    # one call passes a tensor on the device, the other its own parameter (unplaced): the
    # helper's parameter keeps its place, never the caller's
    assert s.wheres(s.ff.placed(helper, t)) == {"PARAM0", "ACCEL"}


def test_the_parameters_a_function_combines(snippet):
    s = snippet("""
        import torch
        class MaskedLinear(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input, weight, mask):
                return input.mm((weight * mask).t())
        def count_along(h, n, device):
            return h * 2, n.to(device), torch.cat([h, h])
        class Net(torch.nn.Module):
            def helper(self, a, b):
                return a + b
            def forward(self, x):
                return MaskedLinear.apply(x, x, x), count_along(x, x, "cpu"), self.helper(x, x)
    """)
    net = next(n for n in s.tree.body if isinstance(n, ast.ClassDef) and n.name == "Net")
    calls = {n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id: n
             for n in ast.walk(net.body[1]) if isinstance(n, ast.Call)}
    cls = s.ff.method_of[id(net.body[1])]
    owner, fn, first = s.ff.target_of(calls["apply"], cls, "self")
    assert (fn.name, first) == ("forward", 1)  # ``ctx`` comes first
    assert owner.meeting_params(fn) == {(1, 2), (1, 3), (2, 3)}
    owner, fn, first = s.ff.target_of(calls["count_along"], cls, "self")
    assert (fn.name, first) == ("count_along", 0)
    assert owner.meeting_params(fn) == frozenset()  # a move is no meeting
    owner, fn, first = s.ff.target_of(calls["helper"], cls, "self")
    assert (fn.name, first) == ("helper", 1)
    assert owner.meeting_params(fn) == {(1, 2)}


def test_the_tensors_of_a_list_meet_in_a_torch_function(snippet):
    s = snippet("""
        import torch
        def listed(h, w, n):
            return torch.cat([h, w]), torch.stack((h, n.to(h.device)))
        def moved(h, w):
            return torch.cat([h, w.type_as(h)])
    """)
    listed, moved = s.tree.body[1], s.tree.body[2]
    assert s.ff.meeting_params(listed) == {(0, 1)}  # ``n`` is moved where ``h`` is
    assert s.ff.meeting_params(moved) == frozenset()


def test_values_that_follow_the_model(snippet):
    s = snippet("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(4, 1)
                self.start = self.head(torch.ones(4))
            def forward(self, x, step):
                return self.normalize(self.head(x)), self.clip(torch.ones(1)), x.view(-1), step
            def normalize(self, t):
                return t
            def clip(self, t):
                return t
    """)
    def ret(name):
        r = s.function(name)
        v = r.value(r.node.body[-1].value)
        return r, v
    fwd = s.function("forward")
    out = fwd.node.body[0].value.elts
    assert s.ff.follows_model(fwd, fwd.value(out[2]))  # an input used as a tensor
    assert not s.ff.follows_model(fwd, fwd.value(out[3]))  # ``step``: maybe a number
    assert s.ff.follows_model(*ret("normalize"))  # given the head's output
    assert not s.ff.follows_model(*ret("clip"))  # given a CPU tensor only
    init = s.function("__init__")  # while it is built, the module is on the CPU
    assert not s.ff.follows_model(init, init.value(init.node.body[2].value))

def test_a_call_given_a_tensor_returns_the_parts_of_it_as_tensors(snippet):
    """The summary of ``get_batch`` knows the places of ``source[i:j]`` (its parameter's)
    but not its kind; a call that gives a tensor gets tensors back, at the tensor's place,
    with the argument's origins and not the parameter's."""
    s = snippet("""
        import torch
        def get_batch(source, i):
            data = source[i:i + 2]
            target = source[i + 1:i + 3].view(-1)
            return data, target
        def size_of(source):
            return source.size(0)
        ids = torch.tensor([1, 2, 3, 4])
        data, target = get_batch(ids, 0)
        n = size_of(ids)
        print(data, target, n)
    """)
    assert s.function("get_batch").returns.elts[0].kinds is None  # the summary
    data = s.value_at(11, "data")
    assert data.is_(Kind.TENSOR) and s.wheres(data) == {"CPU"}
    assert [o.op for o in data.origins] == [Op.MADE] and data.origins[0].text == "torch.tensor(...)"
    assert s.value_at(11, "target").is_(Kind.TENSOR)
    assert not s.value_at(11, "n").is_(Kind.TENSOR)  # a method of the tensor: not its part


def test_an_instance_attribute_of_a_plain_class_of_the_run(snippet):
    """``corpus.train`` of ``corpus = data.Corpus(...)``: what the class's methods store
    in ``self.train``, from the other file."""
    files = {
        "/r/data.py": textwrap.dedent("""
            import torch
            class Corpus(object):
                def __init__(self, path):
                    self.train = self.tokenize(path)
                    self.valid = torch.zeros(1)
                    self.given = path
                def tokenize(self, path):
                    return torch.tensor([len(path)])
            class Lazy:
                def __init__(self):
                    self.train = torch.zeros(2)
                def __getattr__(self, name):
                    return torch.ones(1).cuda()
        """).encode(),
    }
    main = """
        import data
        corpus = data.Corpus("p")
        lazy = data.Lazy()
        other = data.Corpus("q")
        other.valid = torch.zeros(1).cuda()
        print(corpus.train, corpus.given, corpus.valid, lazy.train)
    """
    files["/r/main.py"] = textwrap.dedent(main).encode()
    s = snippet(main, path="/r/main.py", project=Project(files, packages=()))
    assert s.value_at(6, "corpus").is_(Kind.OTHER)  # (the instance itself)
    values = {ast.unparse(n): s.results[0].value(n) for n in ast.walk(s.tree)
              if isinstance(n, ast.Attribute) and n.lineno == 6}
    t = values["corpus.train"]
    assert t.is_(Kind.TENSOR) and s.wheres(t) == {"CPU"} and t.origins[0].path == "/r/data.py"
    assert values["corpus.given"].places is None  # a constructor's parameter: not known here
    assert values["corpus.valid"].places is None  # assigned from outside the class too
    assert values["lazy.train"].places is None  # a class with __getattr__


def test_a_method_of_the_run_called_on_an_instance_is_followed(snippet):
    """``net.predict(x)``, ``net.train(a, b)`` (overriding ``nn.Module.train``): the class's
    methods, given the instance as ``self``; the call is a method's, with its receiver."""
    s = snippet("""
        import torch
        import torch.nn as nn
        class Layer(nn.Linear):
            pass
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [Layer(2, 2)]
            def predict(self, x):
                h = x * 2
                for layer in self.layers:
                    h = layer(h)
                return h
            def train(self, a, b):
                return a
        net = Net()
        x = torch.ones(2).cuda()
        out, same = net.predict(x), net.train(x, x)
        print(out, same)
    """)
    c = s.call_at(18)
    assert c.callee is Callee.METHOD and c.qualname == "predict" and c.receiver.is_(Kind.MODULE)
    assert len(c.args) == 1 and s.wheres(c.args[0]) == {"ACCEL"}
    assert s.value_at(19, "same").is_(Kind.TENSOR) and s.wheres(s.value_at(19, "same")) == {"ACCEL"}
    predict = s.function("predict")
    assert [s.wheres(bound["1"]) for _, bound in s.ff.call_sites[id(predict.node)].values()] == [{"ACCEL"}]
    # (the layer is a torch.nn layer's subclass: it holds weights)
    assert program.holds_parameters(s.ff.class_info(s.tree.body[2]))


def test_a_collate_function_returning_a_tuple_gives_its_parts(snippet):
    """The loader yields the collate's tuple: its tensors are items of the batch (where
    they were made), its lists of lengths are lists, not tensors to move; a function
    given such a loader by every call is not taken to iterate a plain loader."""
    s = snippet("""
        import torch
        from torch.utils.data import DataLoader
        def collate(samples):
            lengths = [len(x) for x in samples]
            ids = torch.zeros(len(samples), 8).long()
            return ids, lengths
        def run(ds):
            for ids, lengths in DataLoader(ds, collate_fn=collate):
                print(ids, lengths)
        def epoch(batches):
            for ids, lengths in batches:
                print(ids, lengths)
        epoch(DataLoader([], collate_fn=collate))
    """)
    ids, lengths = s.value_at(9, "ids"), s.value_at(9, "lengths")
    assert ids.is_(Kind.BATCH) and s.wheres(ids) == {"CPU"} and ids.origins[0].op is Op.BATCH
    assert lengths.is_(Kind.OTHER)
    res = s.function("epoch")
    assert s.ff.as_called(res, frozenset((Kind.LOADER,))) is None


def test_a_method_init_calls_sees_the_attributes_init_stored() -> None:
    """``__init__`` calling ``self._refresh()`` interprets ``_refresh`` before the class's
    table of attributes is complete; interpreted again in its turn, it sees what
    ``__init__`` stores (a parameter, a tensor made there), as ``forward`` does."""
    from .conftest import Snippet

    s = Snippet("""
        import torch
        class Net(torch.nn.Module):
            def __init__(self, p):
                super().__init__()
                self.w = torch.nn.Parameter(p)
                self.prev = torch.zeros(3)
                self._refresh()
            def _refresh(self):
                w = self.w
                prev = self.prev
                return torch.eq(prev, w)
            def forward(self, x):
                self._refresh()
                return x * self.w
    """)
    w = s.value_at(11, "w")
    assert w.is_(Kind.TENSOR) and w.origins[0].text == "torch.nn.Parameter(...)"
    prev = s.value_at(11, "prev")
    assert prev.is_(Kind.TENSOR) and prev.origins[0].text == "torch.zeros(...)"


def test_the_parameters_a_function_converts_before_any_use(snippet):
    from torchferry.check.flow.converted import converted_params
    s = snippet("""
        import torch
        def steps(n, x, y, z, w, v):
            k = int(n)
            x = x.cpu().int()
            for i in y.tolist():
                print(i + x)
            z = z.to(torch.long)
            w = torch.zeros(3)
            return v.to(x.device) * k, z, w
        def relay(a, b):
            return steps(a, b, b, b, b, b)
        def maybe(x, flag):
            if flag:
                x = x.cpu()
            return x + 1
    """)
    fns = {n.name: n for n in s.tree.body if isinstance(n, ast.FunctionDef)}
    # ``z.to(torch.long)`` is a cast on z's device; ``w`` is never read as it came in
    assert converted_params(s.ff, fns["steps"]) == {0, 1, 2, 5}
    assert converted_params(s.ff, fns["relay"]) == {0}  # (b is also steps's z, cast only)
    assert converted_params(s.ff, fns["maybe"]) == frozenset()  # moved on one path only
