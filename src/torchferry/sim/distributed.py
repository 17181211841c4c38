"""``torch.distributed`` inside the simulated GPU: NCCL process groups on gloo, NCCL's device rules.

On a CPU-only machine ``init_process_group("nccl")`` fails (the CPU wheel has no
NCCL).  Inside ``torchferry.simulate("cuda")`` it creates a real **gloo** process
group (the data is on the CPU, so every collective really runs and gives the real
result) that answers ``get_backend() == "nccl"``, and each collective first
applies the device rules ProcessGroupNCCL and NCCL apply on a GPU machine, with
their own texts:

* a CPU tensor on a group whose only backend is NCCL:
  ``RuntimeError: No backend type associated with device type cpu``
  (``ProcessGroup::getBackend`` in c10d; the same text this CPU wheel gives for a
  ``"cuda:gloo"`` group);
* the tensors of one call on different GPUs, or some on the CPU: ``ValueError:
  Tensors must be on the same device`` / ``Tensors must be CUDA and dense``
  (ProcessGroupNCCL's ``check_gpu_tensors_same_device`` / ``check_gpu_single_tensor``;
  both strings are in torch 2.13.0's ``libtorch_cuda.so``);
* two ranks of one host on the same GPU (nobody called
  ``torch.cuda.set_device(local_rank)``, or a tensor on another rank's device):
  the first collective on that device creates an NCCL communicator, and NCCL's
  ``initTransportsRank`` (``src/init.cc``) refuses it with ``Duplicate GPU detected
  : rank 1 and rank 0 both on CUDA device 1000``, which torch raises as
  ``torch.distributed.DistBackendError: NCCL error in:
  .../NCCLUtils.cpp:92, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL
  version 2.29.7`` + ``ncclInvalidUsage: ...`` + ``Last error:`` + NCCL's line
  (``C10D_NCCL_CHECK`` in ``NCCLComm::create``; the line number 92 was read from the
  2.13.0 CUDA wheel's machine code, the NCCL version is the one that wheel pins);
  the simulated bus id of device *i* is ``(i + 1) * 0x1000``;
* a collective on another device than ``init_process_group(device_id=...)``:
  ``Tensor found on device cuda:0 but backend constrained to cuda:1``.

Which device a communicator is made on follows ProcessGroupNCCL: the tensor's
device; for ``barrier()`` the order its docstring gives (``device_ids``, the bound
``device_id``, the device first used with the group, global rank mod device
count); for object collectives the current device (``_get_object_coll_device`` is
``"cuda"`` for an NCCL group, so the objects go to ``torch.cuda.current_device()``).
The devices are compared across the group at every checked collective (one small
all-gather on gloo): NCCL compares them when it creates a communicator, and where
only some ranks would create one (a rank moves to another rank's GPU after the
first collective) a GPU waits for the others until the timeout; the simulation
reports the duplicate at once.

``DistributedDataParallel`` needs nothing of its own: its device checks are
Python code that sees the simulated devices, and its first collective
(``_verify_param_shape_across_processes``) gets the communicator check.  The
reducer's own all-reduces run on gloo unchecked (they use the parameters'
device, already checked).

FSDP2 (``fully_shard``) runs: ``DTensor.__new__`` gives each DTensor its local
tensor's simulated device (:func:`import_patches`), and the collectives it runs in
the backward pass's hooks see the simulation (``modes.backward_in_simulation``).
FSDP1 (``FullyShardedDataParallel``) makes its flat parameters with collectives
the device tags do not follow, so it raises
:class:`~torchferry.errors.UnsupportedFeatureError` naming it and pointing to FSDP2
(without the simulation it refuses the CPU: "FSDP needs a non-CPU accelerator device").
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchferry._internal.patcher import Patch
from torchferry.errors import UnsupportedFeatureError
from torchferry.sim import modes as _modes
from torchferry.sim import tags as _tags

__all__ = ["patches", "NCCL_VERSION", "bus_id", "FIX"]

# nvidia-nccl-cu13==2.29.7 is what torch 2.13.0's CUDA wheel requires (its METADATA)
NCCL_VERSION = "2.29.7"
# C10D_NCCL_CHECK in NCCLComm::create(numRanks, rank, id, dev, config): __FILE__ as
# built, __LINE__ 92 (``mov $0x5c,%esi`` before std::to_string in the 2.13.0 wheel)
_NCCL_SITE = "/__w/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:92"

FIX = (
    'call torch.cuda.set_device(int(os.environ["LOCAL_RANK"])) before init_process_group '
    "and use device = torch.device(\"cuda\", local_rank) for the model and the data "
    "(torchferry.device() does both under torchrun)"
)


def bus_id(index: int) -> str:
    """The PCI bus id (hex, as NCCL prints it) of simulated CUDA device ``index``."""
    return f"{(index + 1) * 0x1000:x}"


def _duplicate_gpu(rank: int, other: int, index: int) -> Exception:
    from torch.distributed import DistBackendError

    return DistBackendError(
        f"NCCL error in: {_NCCL_SITE}, invalid usage (run with NCCL_DEBUG=WARN for details), "
        f"NCCL version {NCCL_VERSION}\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "Last error:\n"
        f"Duplicate GPU detected : rank {rank} and rank {other} both on CUDA device "
        f"{bus_id(index)}"
    )


class _Group:
    """What the user asked of one process group (the real one is gloo)."""

    def __init__(self, backend: str, nccl_types: set[str], other_types: set[str],
                 bound: torch.device | None) -> None:
        self.backend = backend  # what get_backend() answers
        self.nccl_types = nccl_types  # device types NCCL serves ({"cuda"})
        self.other_types = other_types  # device types another backend (gloo) serves
        self.bound = bound
        self.comms: list[int] = []  # device indexes with a communicator, first used first
        self.name = ""  # the group's name (the same on every rank): the store keys' prefix
        self.seq = 0  # device exchanges so far


def _parse_backend(backend: Any, device_id: torch.device | None) -> tuple[str, set[str], set[str]] | None:
    """(get_backend's answer, NCCL device types, other device types), or None: not NCCL."""
    if backend is None:
        if device_id is not None and device_id.type != "cuda":
            return None
        # BackendConfig: no backend -> the accelerator's default backend only
        return "undefined", {"cuda"}, set()
    text = str(backend).lower()
    if text == "nccl":
        return "nccl", {"cuda"}, set()
    if ":" in text:
        nccl: set[str] = set()
        other: set[str] = set()
        for pair in text.split(","):
            dev, _, name = pair.partition(":")
            (nccl if name == "nccl" else other).add(dev)
        if not nccl:
            return None
        return text, nccl, other
    return None


def _gloo_backend(nccl_types: set[str], other_types: set[str], text: str) -> str:
    if text in ("nccl", "undefined"):
        return "gloo"
    pairs = [p for p in text.split(",") if not p.endswith(":nccl")]
    return ",".join(pairs) if pairs else "gloo"


def patches(s: Any) -> list[tuple[Any, str, Any]]:
    """(module, attribute, replacement) triples for a simulation of kind ``cuda``."""
    if not s.spec.distributed or not torch.distributed.is_available():
        return []
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d
    import torch.nn.parallel.distributed as ddp_mod

    groups: dict[Any, _Group] = {}
    real_init = c10d.init_process_group
    real_new_group = c10d.new_group
    real_get_backend = c10d.get_backend
    real_destroy = c10d.destroy_process_group

    def group_of(group: Any) -> tuple[Any, _Group] | None:
        if not groups:
            return None
        pg = group if group is not None else c10d._get_default_group()
        g = groups.get(pg)
        return None if g is None else (pg, g)

    def host() -> int:
        # NCCL compares hostHash; one simulated node per torchrun node (GROUP_RANK)
        try:
            return int(os.environ.get("GROUP_RANK", "0"))
        except ValueError:
            return 0

    def communicator(pg: Any, g: _Group, index: int) -> None:
        """ProcessGroupNCCL::getNCCLComm for device ``index``: bound-device check, then
        NCCL's communicator creation (every rank of the group takes part)."""
        if g.bound is not None and g.bound.index != index:
            from torch.distributed import DistBackendError

            raise DistBackendError(
                f"Tensor found on device cuda:{index} but backend constrained to {g.bound}"
            )
        # Every checked collective compares devices across the group first: NCCL
        # compares them when it creates a communicator; when only some ranks need a new
        # one (a rank moves to another rank's GPU late), a GPU waits for the others
        # until the timeout, and the simulation reports the duplicate at once instead.
        # The exchange goes through the group's store, not a gloo collective: a gloo
        # work holding Python tensors can deadlock torch's shutdown (its runloop thread
        # needs the GIL while the main thread joins it in ~ProcessGroupGloo).
        everyone = exchange(pg, g, f"{host()},{index}")
        if index not in g.comms:
            g.comms.append(index)
        rank = pg.rank()
        for i, other in enumerate(everyone):
            if i != rank and other == f"{host()},{index}":
                raise _duplicate_gpu(rank, i, index)

    def exchange(pg: Any, g: _Group, value: str) -> list[str]:
        """Every rank's ``value``, in group-rank order, through the default store."""
        store = c10d._get_default_store()
        g.seq += 1
        rank = pg.rank()
        prefix = f"torchferry/nccl/{g.name}/"
        store.set(f"{prefix}{g.seq}/{rank}", value)
        out = [store.get(f"{prefix}{g.seq}/{i}").decode() for i in range(pg.size())]
        if g.seq > 2:  # everyone has read round seq-2 once anyone has read round seq
            with contextlib.suppress(Exception):
                store.delete_key(f"{prefix}{g.seq - 2}/{rank}")
        return out

    def tensors_in(value: Any) -> Iterator[torch.Tensor]:
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            for v in value:
                yield from tensors_in(v)

    def check(pg: Any, g: _Group, tensors: list[torch.Tensor]) -> None:
        devs = [_modes.dev_of(t) for t in tensors]
        if not tensors:
            return
        cuda = [d for d in devs if d is not None and d.type in g.nccl_types]
        if not cuda:
            kinds = {("cpu" if d is None else d.type) for d in devs}
            for kind in sorted(kinds):
                if kind not in g.other_types and kind not in g.nccl_types:
                    raise RuntimeError(f"No backend type associated with device type {kind}")
            return
        if len(cuda) != len(devs):
            raise ValueError("Tensors must be CUDA and dense")
        if any(d is not cuda[0] for d in cuda):
            raise ValueError("Tensors must be on the same device")
        communicator(pg, g, cuda[0].index)

    def collective(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(real)

        @functools.wraps(real)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:
                return real(*args, **kwargs)  # let torch word the argument error
            args_ = bound.arguments
            found = group_of(args_.get("group"))
            if found is not None:
                ts: list[torch.Tensor] = []
                for key, value in args_.items():
                    if key != "group":
                        ts.extend(tensors_in(value))
                check(found[0], found[1], ts)
            return real(*args, **kwargs)

        return wrapper

    def object_collective(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(real)

        @functools.wraps(real)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:
                return real(*args, **kwargs)
            found = group_of(bound.arguments.get("group"))
            if found is not None and "cuda" in found[1].nccl_types and not found[1].other_types:
                # _get_object_coll_device is "cuda": the pickled objects go to the current device
                device = bound.arguments.get("device")
                index = s.current
                if device is not None:
                    d = torch.device(device)
                    index = s.current if d.index is None else d.index
                communicator(found[0], found[1], index)
            return real(*args, **kwargs)

        return wrapper

    def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None,
                timeout: Any = None) -> Any:
        found = group_of(group)
        if found is not None and "cuda" in found[1].nccl_types:
            pg, g = found
            if isinstance(device_ids, list) and device_ids:
                index = int(device_ids[0])
            elif g.bound is not None:
                index = int(g.bound.index or 0)
            elif g.comms:
                index = g.comms[0]
            else:
                index = c10d.get_rank() % s.count  # "Guessing device ID based on global rank"
            communicator(pg, g, index)
            device_ids = None  # the gloo group underneath has no devices to pick
        extra = {} if timeout is None else {"timeout": timeout}  # barrier(timeout=) is 2.9+
        return real_barrier(group=group, async_op=async_op, device_ids=device_ids, **extra)

    real_barrier = c10d.barrier

    def init_process_group(backend: Any = None, init_method: Any = None, timeout: Any = None,
                           world_size: int = -1, rank: int = -1, store: Any = None,
                           group_name: str = "", pg_options: Any = None,
                           device_id: Any = None, **kwargs: Any) -> None:
        dev = device_id
        if isinstance(dev, int) and not isinstance(dev, bool):
            dev = torch.device("cuda", dev)  # noqa: FRY001 (torch reads an int device_id as a CUDA index)
        if dev is not None and dev.type == "cuda":
            # init_process_group's own sanity checks, against the simulated devices
            if dev.index is None:
                raise ValueError("Please use a device_id with index.")
            if dev.index >= s.count:
                raise ValueError(
                    f"device_id {dev} is out of range. Please use a device index less than "
                    f"the number of accelerators available: {s.count}."
                )
        parsed = _parse_backend(backend, dev)
        if parsed is None:
            return real_init(backend, init_method, timeout, world_size, rank, store,
                             group_name, pg_options, device_id, **kwargs)
        text, nccl_types, other_types = parsed
        real_init(_gloo_backend(nccl_types, other_types, text), init_method, timeout,
                  world_size, rank, store, group_name, pg_options, None, **kwargs)
        pg = c10d._get_default_group()
        g = _Group(text, nccl_types, other_types, dev if dev is not None and dev.type == "cuda" else None)
        g.name = c10d._get_process_group_name(pg)
        groups[pg] = g
        if g.bound is not None:
            # device_id: ProcessGroupNCCL connects eagerly (eager_connect_single_device)
            communicator(pg, g, int(g.bound.index or 0))

    def new_group(*args: Any, **kwargs: Any) -> Any:
        sig = inspect.signature(real_new_group)
        bound = sig.bind(*args, **kwargs)
        backend = bound.arguments.get("backend")
        default = groups.get(c10d._get_default_group()) if c10d.is_initialized() else None
        if backend is None and default is not None:
            parsed: tuple[str, set[str], set[str]] | None = (
                default.backend, default.nccl_types, default.other_types)
        else:
            parsed = _parse_backend(backend, None) if backend is not None else None
        if parsed is None:
            return real_new_group(*args, **kwargs)
        text, nccl_types, other_types = parsed
        bound.arguments["backend"] = _gloo_backend(nccl_types, other_types, text)
        dev = bound.arguments.get("device_id")
        bound.arguments["device_id"] = None
        pg = real_new_group(*bound.args, **bound.kwargs)
        if pg is not None and pg is not c10d.GroupMember.NON_GROUP_MEMBER:
            b = dev if dev is not None else (default.bound if default is not None else None)
            ng = _Group(text if backend is not None else default.backend,  # type: ignore[union-attr]
                        nccl_types, other_types, b)
            ng.name = c10d._get_process_group_name(pg)
            groups[pg] = ng
        return pg

    def get_backend(group: Any = None) -> Any:
        found = group_of(group)
        if found is None:
            return real_get_backend(group)
        return c10d.Backend(found[1].backend)

    def destroy_process_group(group: Any = None) -> None:
        if group is None:
            groups.clear()
        else:
            groups.pop(group, None)
        real_destroy(group)

    def is_nccl_available() -> bool:
        return True

    real_verify = ddp_mod._verify_param_shape_across_processes

    def _verify_param_shape_across_processes(process_group: Any, tensors: Any,
                                             logger: Any = None) -> Any:
        # DDP's first collective: an all-gather on the parameters' device (C++, unseen by
        # the wrappers above), where a GPU machine creates the NCCL communicator
        found = group_of(process_group)
        if found is not None and tensors:
            check(found[0], found[1], [tensors[0]])
        return real_verify(process_group, tensors, logger)

    out: list[tuple[Any, str, Any]] = []
    for name in ("all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce",
                 "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
                 "gather", "scatter", "send", "recv", "isend", "irecv", "all_reduce_coalesced",
                 "all_gather_coalesced", "_all_gather_base", "_reduce_scatter_base"):
        real = getattr(dist, name, None)
        if real is not None:
            out.append((dist, name, collective(name, real)))
    for name in ("all_gather_object", "broadcast_object_list", "gather_object",
                 "scatter_object_list", "send_object_list", "recv_object_list"):
        real = getattr(dist, name, None)
        if real is not None:
            out.append((dist, name, object_collective(name, real)))
    out += [
        (dist, "barrier", barrier),
        (dist, "init_process_group", init_process_group),
        (c10d, "init_process_group", init_process_group),
        (dist, "new_group", new_group),
        (c10d, "new_group", new_group),
        (dist, "get_backend", get_backend),
        (dist, "destroy_process_group", destroy_process_group),
        (c10d, "destroy_process_group", destroy_process_group),
        (dist, "is_nccl_available", is_nccl_available),
        (c10d, "is_nccl_available", is_nccl_available),
        (ddp_mod, "_verify_param_shape_across_processes", _verify_param_shape_across_processes),
    ]
    return out


_FSDP_MESSAGE = (
    "FSDP (torch.distributed.fsdp.FullyShardedDataParallel) cannot run in the simulated GPU: "
    "its flat parameters are made by collectives outside the simulation's device tracking, "
    "so they would report the CPU; use FSDP2 (torch.distributed.fsdp.fully_shard) or "
    "DistributedDataParallel in the simulation, and test FSDP on real GPUs"
)


def _fsdp_replacements(active: Callable[[], bool], originals: dict[str, Any]) -> dict[str, Any]:
    """The refusing stand-in of FSDP1; once ``active()`` is False it calls the original.

    A stand-in can outlive the simulation when someone patched over it (a wrapper that
    calls it, left in place on exit as ``Patch``'s policy says): it then does nothing of
    its own.
    """
    if "FullyShardedDataParallel" not in originals:
        return {}
    orig = originals["FullyShardedDataParallel"]
    # a subclass: FSDP's static methods, which code that never wraps a model calls
    # (torch.distributed.checkpoint.state_dict: FSDP.fsdp_modules(model)), stay torch's
    # (unless what is there is not a class: someone's wrapper function)
    base: tuple[type, ...] = (orig,) if isinstance(orig, type) else ()

    class FullyShardedDataParallel(*base):  # type: ignore[misc]
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            if active():
                raise UnsupportedFeatureError(_FSDP_MESSAGE)
            return orig(*args, **kwargs)  # not an instance of cls: no __init__ of ours

    FullyShardedDataParallel.__module__ = getattr(orig, "__module__", __name__)
    return {"FullyShardedDataParallel": FullyShardedDataParallel}


def _dtensor_replacements(active: Callable[[], bool], dtensor: type) -> dict[str, Any]:
    """``DTensor.__new__`` that gives the new DTensor its local tensor's simulated device.

    A DTensor is a wrapper: its own (empty) storage is made by C++ from the local
    tensor's real device, the CPU.  The tag on that storage is what ``.device``, the
    mode's device rules and the collectives' checks read, as for any tensor.
    """
    orig = vars(dtensor)["__new__"]
    new = orig.__func__ if isinstance(orig, staticmethod) else orig

    def dtensor_new(cls: type, local_tensor: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        out = new(cls, local_tensor, *args, **kwargs)
        if active():
            dev = _modes.dev_of(local_tensor)
            if dev is not None:
                _tags.tag(out, dev)
        return out

    return {"__new__": staticmethod(dtensor_new)}


class ImportPatch(importlib.abc.MetaPathFinder):
    """Names of a module patched while a CUDA simulation runs, once the module is imported.

    ``torch.distributed.fsdp`` and ``torch.distributed.tensor`` are heavy (about 600
    modules, 2 s here) and usually not imported yet when the simulation starts: the module
    is patched when the script imports it (this finder wraps its loader), or at once if it
    already was.  ``replacements(active, module)`` gives ``{owner_attr: replacement}``
    where ``owner`` is ``module`` or, with ``owner``, one of its attributes (a class).
    The names are replaced and put back by :attr:`patch`, a
    :class:`~torchferry._internal.patcher.Patch` (so a name someone replaced after us is
    left to them, with a warning).  ``uninstall()`` removes the finder; the owner then
    releases :attr:`patch` (``simulate.__exit__`` does, so that the warning names the
    user's line).
    """

    def __init__(self, module: str, label: str,
                 replacements: Callable[[Callable[[], bool], Any], dict[str, Any]],
                 owner: str | None = None) -> None:
        self.name = module
        self._owner = owner
        self._replacements = replacements
        self._module: Any = None
        self.patch = Patch(label, self._plan)

    def _plan(self) -> list[tuple[Any, str, Any]]:
        target = self._module if self._owner is None else getattr(self._module, self._owner)
        patch = self.patch
        new = self._replacements(lambda: patch.active, target)
        return [(target, name, obj) for name, obj in new.items()]

    def install(self) -> None:
        mod = sys.modules.get(self.name)
        if mod is not None:
            self.patch_module(mod)
        else:
            sys.meta_path.insert(0, self)

    def uninstall(self) -> None:
        """Remove the finder (the names go back with ``patch.release()``)."""
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)

    def patch_module(self, mod: Any) -> None:
        """Replace the names of ``mod`` (once)."""
        if self.patch.active:
            return
        self._module = mod
        self.patch.acquire()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)  # once: the real finders do the finding
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _PatchAfterExec(spec.loader, self)
        return spec


def import_patches(name: str = "simulate") -> list[ImportPatch]:
    """The simulation's patches of lazily imported ``torch.distributed`` modules: FSDP1's
    refusal, DTensor's device (FSDP2 and tensor parallelism run on it)."""

    def fsdp(active: Callable[[], bool], mod: Any) -> dict[str, Any]:
        originals = {n: getattr(mod, n) for n in ("FullyShardedDataParallel",) if hasattr(mod, n)}
        return _fsdp_replacements(active, originals)

    return [
        ImportPatch("torch.distributed.fsdp", f"{name}: FSDP refusal", fsdp),
        ImportPatch("torch.distributed.tensor._api", f"{name}: DTensor device",
                    _dtensor_replacements, owner="DTensor"),
    ]


class _PatchAfterExec(importlib.abc.Loader):
    def __init__(self, loader: Any, patcher: ImportPatch) -> None:
        self.loader = loader
        self.patcher = patcher

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        self.patcher.patch_module(module)
