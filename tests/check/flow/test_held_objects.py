"""A plain object handed to another class's constructor and kept there (``self.main =
main`` of ``Parts(mesh)``): a method called through that attribute (``self.main.sub(idx)``)
is a call of the held object's class's method when every construction of the run, in
any file, hands an instance of that class; its parameters are placed by that call."""

from __future__ import annotations

import textwrap

from torchferry.check.flow import Project

from .conftest import Snippet, wheres

MESH = """import torch
class Mesh:
    def __init__(self, vs, device):
        self.vs = vs.to(device)
    def sub(self, idx):
        return Parts.cut(idx, self)
class Parts:
    def __init__(self, main, n):
        self.main = main
        self.groups = []
        for k in range(n):
            idx = torch.arange(k).to(self.main.vs.device)
            self.groups.append(self.main.sub(idx))
    @staticmethod
    def cut(idx, mesh):
        mask = torch.zeros(10)
        mask[idx] = 1
        return mask
"""

MAIN = """import torch
from mesh import Mesh, Parts
device = torch.device("cuda")
mesh = Mesh(torch.ones(4, 3), device)
parts = Parts(mesh, 3)
"""


def _cut_index(files: dict[str, bytes], path: str):
    s = Snippet(files[path].decode(), path=path, project=Project(files, packages=()))
    cut = s.function("cut")
    line = next(n for n, text in enumerate(files[path].decode().splitlines(), 1) if "mask[idx] = 1" in text)
    return s.ff.placed(cut, s.value_at(line, "idx"))


def test_a_method_of_a_held_object_is_called_with_the_holder_s_arguments():
    """``self.main.sub(idx)`` in ``Parts.__init__``, ``Parts(mesh, 3)`` built in main.py
    with ``mesh = Mesh(...)``: ``Mesh.sub``'s ``idx`` is the device index, and so is the
    ``idx`` it hands to ``Parts.cut``."""
    files = {"/r/mesh.py": textwrap.dedent(MESH).encode(), "/r/main.py": textwrap.dedent(MAIN).encode()}
    assert wheres(_cut_index(files, "/r/mesh.py")) == {"ACCEL"}


def test_the_holder_in_another_file_than_the_held_class():
    """The holder ``Parts`` in parts.py, ``Mesh`` in mesh.py, both built in main.py."""
    mesh, parts = MESH.split("class Parts:")
    parts = "import torch\nfrom mesh import Mesh\nclass Parts:" + parts
    mesh = mesh.replace("return Parts.cut(idx, self)", "return idx.sum()")
    files = {"/r/mesh.py": textwrap.dedent(mesh).encode(), "/r/parts.py": parts.encode(),
             "/r/main.py": textwrap.dedent(MAIN).replace("from mesh import Mesh, Parts",
                                                        "from mesh import Mesh\nfrom parts import Parts").encode()}
    s = Snippet(files["/r/mesh.py"].decode(), path="/r/mesh.py", project=Project(files, packages=()))
    sub = s.function("sub")
    assert wheres(s.ff.placed(sub, s.value_at(6, "idx"))) == {"ACCEL"}


def test_a_holder_built_with_another_class_or_unknown_object_places_nothing():
    """``Parts(other, 3)`` with ``other`` of unknown class, next to ``Parts(mesh, 3)``:
    the attribute is not known to hold a ``Mesh``, so ``sub``'s ``idx`` stays unplaced."""
    main = textwrap.dedent(MAIN) + "other = Parts(load(), 3)\n"
    files = {"/r/mesh.py": textwrap.dedent(MESH).encode(), "/r/main.py": main.encode()}
    assert wheres(_cut_index(files, "/r/mesh.py")) != {"ACCEL"}


def test_a_class_s_calls_through_its_attributes_by_method_name():
    """``held_call_sites(name)``: the calls ``self.<attr>.<name>(...)`` of the class's own
    methods (nested functions included, static methods left out), in the order of the
    methods and of ``ast.walk`` in each, found by one walk for every name."""
    import ast

    from torchferry.check.flow import analyze

    tree = ast.parse(textwrap.dedent("""
        class Holder:
            def a(self):
                self.main.sub(1)
                self.other.sub(self.main.sub(2))
            @staticmethod
            def s(self):
                self.main.sub(3)
            def b(self):
                def inner():
                    self.main.sub(4)
                self.main.cut(5)
                main.sub(6)
        """))
    ff = analyze(tree, "<holder>")
    holder = ff.classes[id(tree.body[0])]
    sites = holder.held_call_sites("sub")
    assert [(s.method.name, s.attr, s.call.args[0].lineno) for s in sites] == [
        ("a", "main", 4), ("a", "other", 5), ("a", "main", 5), ("b", "main", 11)]
    assert [s.call.args[0].value for s in sites if isinstance(s.call.args[0], ast.Constant)] == [1, 2, 4]
    assert [s.attr for s in holder.held_call_sites("cut")] == ["main"]
    assert holder.held_call_sites("missing") == []
