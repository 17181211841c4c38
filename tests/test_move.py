"""torchferry.to / numpy / pyvalue / tree_map: the edge cases that trip other movers."""

from __future__ import annotations

import collections
import dataclasses
from collections import OrderedDict, UserDict, defaultdict, namedtuple
from collections.abc import MutableMapping
from types import MappingProxyType

import numpy as np
import pytest
import torch

import torchferry as tf

META = torch.device("meta")  # a real second device on a CPU-only machine


def on(obj, kind):
    return obj.device.type == kind


def test_single_tensor_moves_and_input_is_untouched():
    x = torch.ones(3)
    y = tf.to(x, META)
    assert y.device == META and x.device.type == "cpu"


def test_plain_containers_rebuilt_with_same_types():
    batch = [torch.ones(1), (torch.ones(1), {"a": torch.ones(1)}), "s", 3, None]
    out = tf.to(batch, META)
    assert type(out) is list and type(out[1]) is tuple and type(out[1][1]) is dict
    assert on(out[0], "meta") and on(out[1][0], "meta") and on(out[1][1]["a"], "meta")
    assert out[2:] == ["s", 3, None]
    assert batch[0].device.type == "cpu" and batch[1][1]["a"].device.type == "cpu"


def test_namedtuple_type_kept():
    Pair = namedtuple("Pair", "x y")
    out = tf.to(Pair(torch.ones(1), 5), META)
    assert type(out) is Pair and on(out.x, "meta") and out.y == 5


def test_defaultdict_keeps_type_and_factory():
    dd = defaultdict(list, {"a": torch.ones(2)})
    out = tf.to(dd, META)
    assert type(out) is defaultdict and out.default_factory is list
    assert on(out["a"], "meta") and out is not dd and on(dd["a"], "cpu")
    assert out["missing"] == []  # the factory still works


def test_ordereddict_order_and_type():
    od = OrderedDict([("b", torch.ones(1)), ("a", torch.zeros(1))])
    out = tf.to(od, META)
    assert type(out) is OrderedDict and list(out) == ["b", "a"] and on(out["a"], "meta")


class BatchEncodingLike(UserDict):
    """A Mapping with its own in-place .to(), like transformers' BatchEncoding."""

    def __init__(self, data=None, encodings="enc"):
        super().__init__(data)
        self.encodings = encodings

    def to(self, device, non_blocking=False):
        self.data = {k: v.to(device) for k, v in self.data.items()}
        return self


def test_mapping_with_own_to_is_rebuilt_not_mutated_and_keeps_attributes():
    be = BatchEncodingLike({"input_ids": torch.ones(2), "mask": torch.ones(2)}, encodings="E")
    out = tf.to(be, META)
    assert type(out) is BatchEncodingLike and out.encodings == "E"
    assert on(out["input_ids"], "meta") and on(be["input_ids"], "cpu")


def test_skip_keys_honoured_for_mapping_with_own_to_and_nested():
    be = BatchEncodingLike({"input_ids": torch.ones(2), "past": torch.ones(2)})
    out = tf.to({"enc": be, "past": torch.ones(1)}, META, skip_keys="past")
    assert on(out["enc"]["input_ids"], "meta")
    assert on(out["enc"]["past"], "cpu") and on(out["past"], "cpu")
    out2 = tf.to({"a": torch.ones(1), "b": torch.ones(1)}, META, skip_keys=["a", "b"])
    assert on(out2["a"], "cpu") and on(out2["b"], "cpu")


def test_read_only_mapping_rebuilt_as_dict():
    mp = MappingProxyType({"a": torch.ones(1)})
    out = tf.to(mp, META)
    assert isinstance(out, collections.abc.Mapping) and on(out["a"], "meta")


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: torch.Tensor
    label: str
    extra: list = dataclasses.field(default_factory=list)


def test_frozen_dataclass_moved_without_deepcopy():
    shared = [object()]
    fz = Frozen(torch.ones(2), "cat", shared)
    out = tf.to(fz, META)
    assert type(out) is Frozen and on(out.x, "meta") and on(fz.x, "cpu")
    assert out.label == "cat" and out.extra[0] is shared[0]  # nothing deep-copied


@dataclasses.dataclass
class WithInitFalse:
    x: torch.Tensor
    y: torch.Tensor = dataclasses.field(init=False)

    def __post_init__(self):
        self.y = self.x * 2


def test_dataclass_with_init_false_field():
    out = tf.to(WithInitFalse(torch.ones(1)), META)
    assert on(out.x, "meta") and on(out.y, "meta")


def test_sets_of_non_tensors_left_alone():
    s = {1, 2, "a"}
    assert tf.to(s, META) is s
    fs = frozenset({1})
    assert tf.to(fs, META) is fs


def test_object_with_own_to():
    class Custom:
        def __init__(self, t):
            self.t = t

        def to(self, device, non_blocking=False):
            return Custom(self.t.to(device))

    out = tf.to([Custom(torch.ones(1))], META)
    assert on(out[0].t, "meta")


def test_object_whose_to_returns_none_stays_itself():
    class InPlace:
        def __init__(self):
            self.t = torch.ones(1)

        def to(self, device):  # no non_blocking parameter, returns None
            self.t = self.t.to(device)

    obj = InPlace()
    out = tf.to({"o": obj}, "cuda" if torch.cuda.is_available() else "cpu", non_blocking=True)
    assert out["o"] is obj


def test_packed_sequence_uses_its_own_to():
    from torch.nn.utils.rnn import pack_padded_sequence

    ps = pack_padded_sequence(torch.ones(3, 2, 1), torch.tensor([3, 2]))
    out = tf.to(ps, "cpu")
    assert type(out).__name__ == "PackedSequence" and out.batch_sizes.device.type == "cpu"


def test_non_tensor_leaves_untouched():
    arr = np.ones(2)
    out = tf.to({"s": "x", "i": 1, "n": None, "a": arr}, META)
    assert out == {"s": "x", "i": 1, "n": None, "a": arr} and out["a"] is arr


def test_module_inside_batch_is_an_error():
    with pytest.raises(TypeError, match="moving a module is in place"):
        tf.to({"x": torch.ones(1), "m": torch.nn.Linear(1, 1)}, META)


def test_bad_device_and_bad_non_blocking():
    with pytest.raises(tf.DeviceUnavailableError, match="not a device name"):
        tf.to(torch.ones(1), "gpu0")
    with pytest.raises(ValueError, match="non_blocking"):
        tf.to(torch.ones(1), "cpu", non_blocking="yes")


@pytest.mark.parametrize("obj", [torch.ones(1), {"x": torch.ones(1)}])
def test_bad_device_name_errs_like_torchferry_device(obj):
    """to() raised ValueError where device() raises DeviceUnavailableError."""
    with pytest.raises(tf.DeviceUnavailableError) as via_device:
        tf.device("gpu0")
    with pytest.raises(tf.DeviceUnavailableError) as via_to:
        tf.to(obj, "gpu0")
    assert "that is not a device name" in str(via_to.value)
    assert str(via_device.value).split(" but ")[1] == str(via_to.value).split(" but ")[1]


@pytest.mark.skipif(torch.accelerator.is_available(), reason="needs a machine without one")
@pytest.mark.parametrize("obj", [torch.ones(1), {"x": [torch.ones(1)]}])
@pytest.mark.parametrize("asked", ["cuda", "cuda:1", torch.device("mps")])
def test_an_absent_accelerator_errs_like_torchferry_device(obj, asked):
    """torch says "Torch not compiled with CUDA enabled" (an AssertionError); to() says
    what device() says: what was asked, what is available, and what to do."""
    with pytest.raises(tf.DeviceUnavailableError) as via_to:
        tf.to(obj, asked)
    with pytest.raises(tf.DeviceUnavailableError) as via_device:
        tf.device(asked)
    assert via_to.value.__suppress_context__
    assert str(via_device.value).split(" but ")[1] == str(via_to.value).split(" but ")[1]


@pytest.mark.skipif(torch.accelerator.is_available(), reason="needs a machine without one")
def test_a_bare_index_without_an_accelerator_is_not_called_a_bad_name():
    """``torch.device(0)`` is accelerator device 0: on a CPU-only machine the error says
    that, not "that is not a device name" (what it said before), in to() and device() alike."""
    with pytest.raises(tf.DeviceUnavailableError) as via_to:
        tf.to(torch.ones(1), 0)
    with pytest.raises(tf.DeviceUnavailableError) as via_device:
        tf.device(0)
    for err in (via_to.value, via_device.value):
        assert "not a device name" not in str(err)
        assert "a bare index means accelerator device 0, and torch sees no accelerator" in str(err)


@pytest.mark.parametrize("bad", [5, [[1]], 1.5])
def test_bad_skip_keys_is_one_clear_error(bad):
    """It was "TypeError: 'int' object is not iterable" from inside the walker."""
    with pytest.raises(TypeError, match=r"^skip_keys must be a key or an iterable of keys "):
        tf.to({"a": torch.ones(1)}, "cpu", skip_keys=bad)


@pytest.mark.parametrize("bad", [[1], {"a": 1}, "yes", 1, None])
def test_bad_non_blocking_is_one_clear_error(bad):
    """An unhashable non_blocking raised "TypeError: unhashable type: 'list'"."""
    with pytest.raises(ValueError, match=r"non_blocking must be True, False or 'auto', not "):
        tf.to(torch.ones(1), "cpu", non_blocking=bad)
    with pytest.raises(ValueError, match=r"non_blocking must be True, False or 'auto', not "):
        tf.to([torch.ones(1)], "cpu", non_blocking=bad)


class AttrStore(MutableMapping):
    """A mapping that keeps its data in an attribute (no __copy__)."""

    def __init__(self, data=None):
        self._data = dict(data or {})
        self.tag = "kept"

    def __getitem__(self, k):
        return self._data[k]

    def __setitem__(self, k, v):
        self._data[k] = v

    def __delitem__(self, k):
        del self._data[k]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


class SlotStore(AttrStore):
    __slots__ = ("_extra",)


def test_mapping_with_data_in_an_attribute_is_never_mutated():
    """The shallow copy shared ``_data`` and the caller's mapping changed."""
    for cls in (AttrStore, SlotStore):
        x = torch.ones(1)
        store = cls({"x": x, "n": 1})
        out = tf.to(store, META)
        assert store["x"] is x and store["x"].device.type == "cpu"  # input untouched
        assert type(out) is cls and out.tag == "kept" and out["x"].device.type == "meta"
        assert out["n"] == 1


def test_mapping_whose_copy_cannot_be_unshared_is_rebuilt_and_restored():
    shared = {}

    class Global(AttrStore):  # all instances write into one module-level dict
        def __init__(self, data=None):
            self._data = shared
            self._data.update(data or {})
            self.tag = "kept"

    x = torch.ones(1)
    g = Global({"x": x})
    out = tf.to(g, META)
    assert g["x"] is x  # the write into the shared dict was undone
    assert out["x"].device.type == "meta"


def test_cycle_is_named_with_its_path():
    d = {"a": [torch.ones(1)]}
    d["a"].append(d)
    with pytest.raises(tf.errors.NestingError, match=r"cyclic or too deeply nested structure at \['a'\]\[1\]"):
        tf.to(d, META)
    with pytest.raises(ValueError, match="cyclic"):  # a builtin base too
        tf.numpy(d)


def test_too_deep_nesting_is_named():
    x: object = torch.ones(1)
    for _ in range(600):
        x = {"k": [x]}
    with pytest.raises(tf.errors.NestingError, match=r"cyclic or too deeply nested structure at \['k'\]\[0\]") as info:
        tf.to(x, META)
    assert "levels" in str(info.value)


def test_moderate_nesting_still_moves():
    x: object = torch.ones(1)
    for _ in range(100):
        x = {"k": [x]}
    out = tf.to(x, META)
    for _ in range(100):
        out = out["k"][0]
    assert out.device.type == "meta"


def test_recursion_elsewhere_is_not_blamed_on_the_structure():
    class Deep:
        def to(self, device, **k):
            def f(n):
                return f(n + 1)
            return f(0)

    with pytest.raises(RecursionError) as info:
        tf.to({"o": Deep()}, META)
    assert not isinstance(info.value, tf.errors.NestingError)


def test_non_blocking_auto_is_false_for_host(monkeypatch):
    seen = []
    real = torch.Tensor.to

    def spy(self, *a, **k):
        seen.append(k.get("non_blocking", False))
        return real(self, *a, **k)

    monkeypatch.setattr(torch.Tensor, "to", spy)
    tf.to([torch.ones(1)], "cpu")
    tf.to([torch.ones(1)], "meta")
    tf.to([torch.ones(1)], "cpu", non_blocking=True)
    assert seen == [False, False, True]


@pytest.mark.parametrize(
    "target, expected",
    [("cuda", True), ("cuda:1", True), ("xpu", True), ("cpu", False), ("mps", False), ("meta", False)],
)
def test_auto_non_blocking_only_for_cuda_and_xpu(target, expected):
    from torchferry.move import auto_non_blocking

    assert auto_non_blocking(torch.device(target)) is expected


def test_numpy_bf16_requires_grad():
    t = torch.ones(3, dtype=torch.bfloat16, requires_grad=True) * 2
    arr = tf.numpy(t)
    assert arr.dtype == np.float32 and arr.tolist() == [2.0, 2.0, 2.0]


def test_numpy_float8_and_complex32_and_conj_neg():
    f8 = torch.ones(2).to(torch.float8_e4m3fn)
    assert tf.numpy(f8).dtype == np.float32
    c = torch.tensor([1 + 2j]).conj()
    assert tf.numpy(c).tolist() == [1 - 2j]
    n = torch.tensor([1.0 + 1j])._neg_view()
    assert tf.numpy(n).tolist() == [-1 - 1j]


def test_numpy_copy_controls_aliasing():
    t = torch.zeros(3)
    shared = tf.numpy(t)
    private = tf.numpy(t, copy=True)
    t[0] = 7
    assert shared[0] == 7 and private[0] == 0


def test_numpy_nested():
    out = tf.numpy({"a": [torch.ones(1)], "b": 2})
    assert isinstance(out["a"][0], np.ndarray) and out["b"] == 2


def test_pyvalue():
    out = tf.pyvalue({"loss": torch.tensor(0.5), "acc": torch.tensor([1, 0]), "one": torch.ones(1, 1),
                      "empty": torch.ones(0), "bf": torch.ones(2, dtype=torch.bfloat16)})
    assert out == {"loss": 0.5, "acc": [1, 0], "one": 1.0, "empty": [], "bf": [1.0, 1.0]}
    assert isinstance(out["loss"], float)


def test_tree_map_generic():
    assert tf.tree_map(lambda t: t.shape[0], {"a": torch.ones(4)}) == {"a": 4}
