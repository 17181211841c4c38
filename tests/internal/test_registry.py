"""torchferry._internal.registry: one storage-keyed weak registry (sim tags and pinned
storages, explain's sites)."""

from __future__ import annotations

import gc

import torch

from torchferry._internal.registry import StorageRegistry


def _registry():
    return StorageRegistry(torch.UntypedStorage._expired, torch.UntypedStorage._free_weak_ref)


def test_records_follow_the_storage_and_die_with_it():
    reg = _registry()
    t = torch.ones(4)
    st = t.untyped_storage()
    reg.put(st._cdata, st._weak_ref(), "fact")
    view = t[1:]
    assert reg.live(view.untyped_storage()._cdata)[1] == "fact"  # a view shares the record
    del t, view, st
    gc.collect()
    assert reg.sweep() == [] and len(reg) == 0


def test_put_replaces_and_pop_forgets():
    reg = _registry()
    t = torch.ones(2)
    st = t.untyped_storage()
    reg.put(st._cdata, st._weak_ref(), "a")
    reg.put(st._cdata, st._weak_ref(), "b")
    assert reg.get(st._cdata)[1:] == ["b"] and len(reg) == 1
    assert reg.pop(st._cdata)[1] == "b" and reg.get(st._cdata) is None
    assert reg.pop(st._cdata) is None


def test_sim_tags_and_explain_sites_use_it():
    from torchferry.diagnose.explanation import RECORDER
    from torchferry.sim import tags

    assert tags.TAGS is tags.REGISTRY.entries and isinstance(tags.REGISTRY, StorageRegistry)
    assert isinstance(tags.PINNED, StorageRegistry)  # the simulation's pinned host storages
    assert isinstance(RECORDER.registry(), StorageRegistry)



def test_the_registry_is_generic_in_its_record_type():
    # sim's tags are a StorageRegistry[Tag] (typed attributes through sweep() and entries,
    # no type: ignore); explain's sites and sim's pinned table a StorageRegistry[list[Any]]
    from torchferry.sim import tags

    reg: StorageRegistry[tags.Tag] = StorageRegistry[tags.Tag](
        torch.UntypedStorage._expired, torch.UntypedStorage._free_weak_ref
    )
    t = torch.ones(2)
    st = t.untyped_storage()
    reg.entries[st._cdata] = tags.Tag(st._weak_ref(), torch.device("cuda", 0), st.nbytes(), None)
    assert [e.nbytes for e in reg.sweep()] == [8]
    reg.clear()
