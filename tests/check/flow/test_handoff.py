"""What a call hands off of its arguments: by its summary, by the vocabulary, or, when the
analysis cannot follow it, whatever it could change by mutation."""

from torchferry.check.flow import Callee, handoff
from torchferry.check.flow.vocab import keeps_arguments


def test_a_summary_hands_off_only_what_the_callee_can_change(snippet):
    s = snippet("""
        import torch
        def validate(loader, model, meter):
            model.eval()
            for x in loader:
                out = model(x)
                meter.update(out.mean().item())
            return meter.avg
        def setup(model):
            model.cuda()
        def keep(holder, model):
            holder.model = model
        def passed_on(model):
            return unknown_helper(model)
        def main(loader, meter, holder):
            model = torch.nn.Linear(2, 2)
            validate(loader, model, meter)
            setup(model)
            keep(holder, model)
            passed_on(model)
    """)
    assert handoff.handed_params(s.function("validate")) == {0, 2}  # the loader is iterated
    assert handoff.handed_params(s.function("setup")) == {0}  # moved in place
    assert handoff.handed_params(s.function("keep")) == {0, 1}  # one written, one stored in it
    assert handoff.handed_params(s.function("passed_on")) == {0}  # given to an unknown call
    main = s.function("main")
    handed = {c.node.lineno: {a.id for a in c.node.args if id(a) in main.handed_calls[id(c.node)]}
              for c in main.calls.values() if id(c.node) in main.handed_calls}
    assert handed == {16: {"loader", "meter"}, 17: {"model"}, 18: {"holder", "model"},
                      19: {"model"}}
    assert main.escapes == {"model"}  # (``passed_on`` gives back what it cannot follow)


def test_a_call_of_unknown_result_lets_escape_only_what_it_hands_off(snippet):
    s = snippet("""
        import torch
        class Meter:
            def __init__(self):
                self.avg = 0
        def validate(loader, model):
            top1 = Meter()
            model.eval()
            for x in loader:
                model(x)
            return top1.avg
        def main(loader):
            model = torch.nn.Linear(2, 2).cuda()
            acc = validate(loader, model)
            return acc
    """)
    main = s.function("main")
    assert s.call_at(13).callee is Callee.FUNCTION
    assert "model" not in main.escapes and "loader" in main.escapes


def test_a_method_of_the_run_hands_off_its_receiver_by_its_summary(snippet):
    s = snippet("""
        import torch
        class Runner:
            def log(self, x):
                print(x.shape)
            def park(self, m):
                m.cpu()
        def main(r, t):
            r = Runner()
            model = torch.nn.Linear(2, 2)
            r.log(model)
            r.park(model)
    """)
    main = s.function("main")
    log, park = (next(c for c in main.calls.values() if c.node.lineno == n) for n in (10, 11))
    assert main.handed_calls[id(log.node)] == set()
    assert id(park.node.args[0]) in main.handed_calls[id(park.node)]


def test_an_unknown_call_lets_escape_only_what_mutation_reaches(snippet):
    s = snippet("""
        import torch
        from elsewhere import restore, log_value
        def main():
            model = torch.nn.Linear(2, 2)
            t = torch.zeros(3)
            n = 3
            restore(model)
            log_value(t, n)
    """)
    main = s.function("main")
    assert main.escapes == {"model"}  # a tensor's place and a number cannot change


def test_library_calls_known_to_keep_their_arguments(snippet):
    assert keeps_arguments("torch.nn.utils.clip_grad_norm_")
    assert keeps_arguments("torch.nn.utils.get_total_norm")
    assert keeps_arguments("torch.nn.functional.cross_entropy")
    assert keeps_arguments("torch.stack") and keeps_arguments("numpy.asarray")
    assert not keeps_arguments("torch.compile") and not keeps_arguments("torch.load")
    assert keeps_arguments("torch.optim.Adam") and not keeps_arguments("helpers.fit")
    s = snippet("""
        import torch
        def step(model, clip):
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            return norm
        def main():
            model = torch.nn.Linear(2, 2).cuda()
            n = step(model, 1.0)
            return n
    """)
    assert s.wheres(s.value_at(4, "norm")) == {"PARAM0"}  # where the parameters are
    assert s.wheres(s.value_at(8, "n")) == {"ACCEL"}
    assert 0 not in handoff.handed_params(s.function("step"))


def test_an_optimizer_built_on_the_parameters_keeps_the_model_in_place(snippet):
    s = snippet("""
        import torch
        def fit(model, loader):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for x in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
        def fit_elsewhere(model):
            holder = make_optimizer(model.parameters())
            return holder
    """)
    assert handoff.handed_params(s.function("fit")) == {1}
    assert handoff.handed_params(s.function("fit_elsewhere")) == {0}


def test_a_place_summary_keeps_the_modules_a_function_copies_state_between(snippet):
    s = snippet("""
        import torch
        def hard(main, target):
            target.load_state_dict(main.state_dict())
        def soft(main, target, tau):
            for m, t in zip(main.parameters(), target.parameters()):
                t.data.copy_(tau * m.data + (1.0 - tau) * t.data)
        def rebind(main, target):
            for m, t in zip(main.parameters(), target.parameters()):
                t.data = m.data.cuda()
        def frozen(model):
            for p in model.parameters():
                p.data.mul_(0.5)
        def kept(model, store):
            for p in model.parameters():
                store.append(p)
        def shown(model):
            print(model)
            model.eval()
            torch.save(model.state_dict(), "m.pt")
        def through(main, target):
            soft(main, target, 0.5)
            rebind(main, target)
        def main():
            a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
            hard(a, b)
            soft(a, b, 0.1)
    """)
    keeps, moves = handoff.Effect.KEEPS_PLACE, handoff.Effect.MAY_MOVE
    assert handoff.place_effects(s.function("hard")) == (keeps, keeps)
    assert handoff.place_effects(s.function("soft")) == (keeps, keeps, keeps)
    # (the loop is judged whole: a rebound item of one module counts for both)
    assert handoff.place_effects(s.function("rebind")) == (moves, moves)
    assert handoff.place_effects(s.function("shown")) == (keeps,)
    assert handoff.place_effects(s.function("frozen")) == (keeps,)
    assert handoff.place_effects(s.function("kept")) == (moves, moves)  # (its items stored)
    assert handoff.place_effects(s.function("through")) == (moves, moves)
    # the summary that asks what a call may change still hands the written target off
    assert handoff.handed_params(s.function("soft")) == {0, 1}
    main = s.function("main")
    assert all(not main.moving_calls[id(c.node)] for c in main.calls.values()
               if id(c.node) in main.moving_calls)
    assert len(main.moving_calls) == 2


def test_the_reads_of_the_parameters_are_walked_once_for_both_questions(snippet, monkeypatch):
    s = snippet("""
        def keep(holder, model):
            holder.model = model
            model.eval()
    """)
    res = s.function("keep")
    walks = []
    walk = handoff._reads_of
    monkeypatch.setattr(handoff, "_reads_of", lambda *a: walks.append(a) or walk(*a))
    assert handoff.handed_params(res) == {0, 1}
    assert handoff.place_effects(res) == (handoff.Effect.MAY_MOVE,) * 2  # (stored, then moved)
    assert len(walks) == 1
