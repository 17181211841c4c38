"""Iteration and indexing of the run's own classes, ``map`` over a loader and
``dict(...)`` of keywords: what each gives, and where it lives."""

from torchferry.check.flow import Kind


def test_a_generator_iter_gives_what_it_yields(snippet):
    s = snippet("""
        import torch
        class Stream:
            def __iter__(self):
                yield torch.zeros(3).cuda()
        for t in Stream():
            print(t)
    """)
    v = s.value_at(6, "t")
    assert v.kinds == {Kind.TENSOR} and s.wheres(v) == {"ACCEL"}


def test_a_returned_iterator_gives_the_items_of_its_container(snippet):
    s = snippet("""
        import torch
        class Held:
            def __init__(self):
                self.items = [torch.zeros(3)]
            def __iter__(self):
                return iter(self.items)
            def __getitem__(self, i):
                return self.items[i]
        h = Held()
        a = next(iter(h))
        b = h[0]
        print(a, b)
    """)
    assert s.wheres(s.value_at(12, "a")) == {"CPU"}
    assert s.wheres(s.value_at(12, "b")) == {"CPU"}


def test_an_iterator_gives_its_next_and_a_module_is_left_alone(snippet):
    s = snippet("""
        import torch
        class Counter:
            def __iter__(self):
                return self
            def __next__(self):
                return torch.zeros(3)
        class Blocks(torch.nn.Module):
            def __iter__(self):
                yield torch.zeros(3)
        class Bare:
            def __iter__(self):
                return self
        for a in Counter():
            print(a)
        for b in Blocks():
            print(b)
        for c in Bare():
            print(c)
    """)
    assert s.wheres(s.value_at(14, "a")) == {"CPU"}
    assert s.value_at(16, "b").kinds != {Kind.TENSOR}
    assert s.value_at(18, "c").places is None


def test_the_batches_of_a_loader_over_a_cpu_dataset_are_made_there(snippet):
    s = snippet("""
        import torch
        from torch.utils.data import DataLoader, Dataset
        class Pairs(Dataset):
            def __getitem__(self, i):
                return torch.zeros(3), 1
        class Moving(Dataset):
            def __getitem__(self, i):
                return torch.zeros(3).cuda(), 1
        for x, y in DataLoader(Pairs()):
            print(x)
        for z, w in DataLoader(Moving()):
            print(z)
    """)
    x = s.value_at(10, "x")
    assert x.kinds == {Kind.BATCH} and s.wheres(x) == {"CPU"}
    assert any(o.text.startswith("torch.zeros") for o in x.origins)
    z = s.value_at(12, "z")
    assert not any(o.text.startswith("torch.zeros") for o in z.origins)


def test_map_gives_what_the_method_makes_of_each_item(snippet):
    s = snippet("""
        import torch
        from torch.utils.data import DataLoader
        class Feed:
            def __init__(self, loader):
                self.loader = loader
            def __iter__(self):
                return map(self.move, iter(self.loader))
            def move(self, batch):
                return [t.cuda() for t in batch]
        for batch in Feed(DataLoader(data)):
            x = batch[0]
            print(x)
    """)
    assert "ACCEL" in s.wheres(s.value_at(12, "x"))


def test_dict_of_keywords_keeps_its_values(snippet):
    s = snippet("""
        import torch
        d = dict(a=torch.zeros(3))
        x = d["a"]
        print(x)
    """)
    assert s.wheres(s.value_at(4, "x")) == {"CPU"}
