"""``torchferry.simulate``: enter and leave the simulated accelerator."""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.abc
import importlib.util
import inspect
import os
import sys
import threading
from typing import Any, ClassVar, Literal

import torch

from torchferry._internal.patcher import Patch
from torchferry.errors import SimulationError, UsageError
from torchferry.sim import childenv, compiling, cuda_api, distributed, modes
from torchferry.sim import kinds as _kinds
from torchferry.sim import tags as _tags
from torchferry.sim.state import SimState

_FIND_SPEC = importlib.util.find_spec  # the real one, also while the simulation replaces it


def _find_spec_without_triton(name: str, package: str | None = None) -> Any:
    """``importlib.util.find_spec`` in the simulation: Triton is not there, as on a machine
    without it, even where the wheel installed it (a CUDA build's triton cannot run on the
    simulated GPU), so libraries that probe for it take their other path."""
    if name == "triton" or name.startswith("triton."):
        return None
    return _FIND_SPEC(name, package)


class _BlockTriton(importlib.abc.MetaPathFinder):
    """``import triton`` is refused in the simulation, naming why; a probe for it
    (``importlib.util.find_spec("triton")``, how libraries decide whether Triton is there)
    answers None, as on a machine without Triton, so they take their other path."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "triton" or fullname.startswith("triton."):
            # util.find_spec -> importlib._bootstrap._find_spec -> here
            if sys._getframe(2).f_code is _FIND_SPEC.__code__:
                return None
            raise ModuleNotFoundError(
                "Triton kernels cannot run in the simulated GPU (torchferry.simulate computes on "
                "the CPU); 'import triton' is refused inside the simulation",
                name=fullname,
            )
        return None


class InSimulation:
    """The function of a process that ``torch.multiprocessing.spawn`` starts inside a simulation.

    A spawned (or forkserver) process is a fresh interpreter: without this, the workers of
    ``mp.spawn(main_worker, nprocs=ngpus)`` (pytorch/examples imagenet's
    ``--multiprocessing-distributed``, the DDP tutorials) would see no GPU at all.  Unpickled
    in the new process (in its main thread, before torch's ``_wrap`` calls it), it starts a
    simulation of the parent's kind and device count there, as every process on a GPU
    machine sees all its GPUs, and becomes ``fn`` itself: the worker's traceback, which torch
    sends to the parent, shows no frame of ours.  That simulation lasts as long as the process.
    """

    def __init__(self, fn: Any, kind: str, count: int, memory: int | None = None) -> None:
        self.fn, self.kind, self.count, self.memory = fn, kind, count, memory

    def __reduce__(self) -> tuple[Any, tuple[Any, str, int, int | None]]:
        return (_start_in_spawned_process, (self.fn, self.kind, self.count, self.memory))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


def _start_in_spawned_process(fn: Any, kind: str, count: int, memory: int | None = None) -> Any:
    if simulate.running() is None:
        simulate(kind, count, memory=memory).__enter__()
    return fn


def _script_as_builtins(before: dict[str, Any]) -> list[int]:
    """TorchScript compiles a call of ``torch.<name>`` as its ATen operator when the name is a
    builtin; a stand-in that replaced one (``torch.is_autocast_enabled``) would be compiled
    as Python instead (``nn.MultiheadAttention`` scripted inside the simulation failed).
    Register each stand-in as its builtin's operator; returns the keys, removed on exit."""
    table = torch.jit._builtins._get_builtin_table()
    added = []
    for name, new in vars(torch).items():
        old = before.get(name)
        if old is not None and new is not old and id(old) in table and id(new) not in table:
            table[id(new)] = table[id(old)]
            added.append(id(new))
    return added


class simulate(contextlib.ContextDecorator):
    """Run GPU code paths on this CPU-only machine with a simulated accelerator.

    Inside the block ``torch.cuda.is_available()`` is True, tensors moved to
    ``"cuda"`` report ``cuda:0`` and print as GPU tensors do, and every device
    rule raises PyTorch's own error; the numbers are computed on the CPU.

    >>> import torch, torchferry as tf
    >>> with tf.simulate("cuda"):
    ...     x = torch.ones(3).to("cuda")
    ...     print(x + 1)
    tensor([2., 2., 2.], device='cuda:0')

    Also a decorator: ``@tf.simulate("cuda", count=2)``.
    """

    def __init__(self, kind: str = "cuda", count: int = 1, *, memory: int | None = None) -> None:
        if kind not in _kinds.KINDS:
            raise UsageError(
                f"simulate: kind must be one of {', '.join(_kinds.kind_names())}, not {kind!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise UsageError(f"simulate: count must be a positive integer, not {count!r}")
        if memory is not None and (
            isinstance(memory, bool) or not isinstance(memory, int) or memory < 1
        ):
            raise UsageError(f"simulate: memory must be a positive number of bytes, not {memory!r}")
        # each device's memory: what get_device_properties().total_memory and
        # mem_get_info() report (nothing is allocated or limited)
        self.memory = cuda_api.SIM_TOTAL_MEMORY if memory is None else memory
        self.spec = _kinds.spec(kind)
        self.spec.check_count(count)
        self.kind = kind
        self.count = count
        self._active = False
        self.state: SimState | None = None  # the running simulation's (sim/state.py)
        self._live = False  # the stand-ins act (see _calls_through_when_released)
        self.inherited = False  # started in a child process by sim/inherit.py

    # the simulation running in this process, if any (torch's patches are process-wide)
    _running: ClassVar[simulate | None] = None

    @classmethod
    def running(cls) -> simulate | None:
        """The simulation running in this process, or None.

        >>> simulate.running() is None
        True
        """
        return cls._running

    def __repr__(self) -> str:
        extra = "" if self.memory == cuda_api.SIM_TOTAL_MEMORY else f", memory={self.memory}"
        return f"simulate(kind={self.kind!r}, count={self.count}{extra})"

    def __enter__(self) -> simulate:
        other = simulate._running
        if other is not None and other.inherited and other is not self:
            # a simulation this process inherited from its parent (sim/inherit.py): the one
            # the program asks for itself replaces it
            other.__exit__(None, None, None)
            other = simulate._running
        if other is not None:
            raise SimulationError(
                f"{self!r}: a simulation ({other!r}) is already active; simulations cannot "
                "be nested"
            )
        if self.spec.present():
            raise SimulationError(
                f"{self!r}: this machine has a real {self.kind} device; run the code on it "
                "instead of simulating one"
            )
        state = self.state = SimState.new(self.spec, self.count, self.memory)
        self.compiler = compiling.CompileStandIn()
        self._patches = Patch(
            repr(self),
            lambda: [
                (owner, attr, self._calls_through_when_released(owner, attr, new))
                for owner, attr, new in (
                    *cuda_api.patches(state), *distributed.patches(state),
                    *self._more_patches(state),
                )
            ],
        )
        self._live = True
        before = dict(vars(torch))
        self._patches.acquire()
        self._script_builtins = _script_as_builtins(before)
        import torch.serialization as ser

        self._registry_entry = (-1, self._tagger, self._deserializer)
        ser._package_registry.insert(0, self._registry_entry)
        self._finder = _BlockTriton()
        sys.meta_path.insert(0, self._finder)
        self._compile_imports = compiling.CompileImports(repr(self), self._patches.suspended)
        self._compile_imports.install()
        importlib.util.find_spec = _find_spec_without_triton
        # a CUDA wheel's torch._dynamo may have imported triton already: hide it, or
        # `import triton` would return the cached module without asking the finder
        self._triton = {
            k: sys.modules.pop(k) for k in list(sys.modules) if k == "triton" or k.startswith("triton.")
        }
        self._imports = distributed.import_patches(repr(self)) if self.spec.distributed else []
        for patch in self._imports:
            patch.install()
        self._activation = modes.activated(state)
        self._activation.__enter__()
        simulate._running = self
        # Python processes the program starts get the same simulation (sim/inherit.py)
        self._child_env = childenv.child_environment(
            os.environ, childenv.encode(self.kind, self.count, self.memory))
        self._kind_keys = modes.kind_handlers(self.kind)
        self._aliases = modes.alias_replaced_methods()
        self._mode = modes.SimMode()
        self._mode.__enter__()
        self._active = True
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        if not self._active:
            return False
        self._active = False
        try:
            self._mode.__exit__(None, None, None)
        finally:
            import torch.serialization as ser

            with contextlib.suppress(ValueError):
                ser._package_registry.remove(self._registry_entry)
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(self._finder)
            self._compile_imports.uninstall()
            if importlib.util.find_spec is _find_spec_without_triton:  # else a user's, kept
                importlib.util.find_spec = _FIND_SPEC
            sys.modules.update(self._triton)
            childenv.restore(os.environ, self._child_env)
            for patch in self._imports:
                patch.uninstall()
                # released here, so that a "patched over" warning names the user's line
                patch.patch.release()
            for key in self._script_builtins:
                torch.jit._builtins._get_builtin_table().pop(key, None)
            self._patches.release()
            self._live = False
            state = self.state
            assert state is not None
            if state.default_device is not None:
                torch.set_default_device(None)  # the real one, restored above
                state.default_device = None
            # torch 2.4-2.8's set_default_device(None) (ours above, or the script's through
            # the stand-in) leaves device_context = None, and get_default_device() then
            # raises AttributeError; no context at all means "cpu" in every release
            ctx = getattr(torch, "_GLOBAL_DEVICE_CONTEXT", None)
            if ctx is not None and getattr(ctx, "device_context", 0) is None:
                del ctx.device_context
            _tags.clear()  # the device tags and the pinned storages
            modes.drop_aliases(self._aliases)
            modes.drop_aliases(self._kind_keys)
            self._activation.__exit__(None, None, None)
            simulate._running = None
        return False

    # ------------------------------------------------------------- patching
    def _calls_through_when_released(self, owner: Any, attr: str, new: Any) -> Any:
        """``new``, made to do nothing of its own once the simulation has ended.

        The patcher's rule for a replacement that outlives its patch
        (``_internal/patcher.py``): a test's ``monkeypatch`` of ``torch.cuda.is_available``
        made inside ``with simulate()`` is left in place at exit, and its teardown then
        restores what it saved -- our stand-in -- which went on saying True with no
        simulation.  Module functions only (methods, classes and properties are returned
        as they are; module functions include the bound methods and partials
        ``sim/standins``' ``bind`` makes); the stand-in calls what it replaced once the
        simulation is over.
        """
        real = vars(owner).get(attr) if hasattr(owner, "__dict__") else None
        function = inspect.isfunction(new) or inspect.ismethod(new)
        partial = isinstance(new, functools.partial)
        if isinstance(owner, type) or not (function or partial) or not callable(real):
            return new
        sim = self

        @functools.wraps(new)
        def standin(*args: Any, **kwargs: Any) -> Any:
            if sim._live:
                return new(*args, **kwargs)
            return real(*args, **kwargs)

        if partial:  # a stand-in given its state and originals (sim/standins bind)
            for name in ("__module__", "__name__", "__qualname__", "__doc__"):
                setattr(standin, name, getattr(new.func, name))
        return standin

    def _more_patches(self, state: SimState) -> list[tuple[Any, str, Any]]:
        """The patches beyond ``torch.cuda``'s stand-ins (installed with them, see ``Patch``)."""
        import torch.utils.data._utils.pin_memory as pm

        orig_pin = pm.pin_memory
        sim = self

        def pin_memory(data: Any, device: Any = None) -> Any:
            # the DataLoader's pin-memory thread does not inherit the function mode
            if threading.current_thread() is state.thread:
                return orig_pin(data, device)
            with modes.SimMode():
                return orig_pin(data, device)

        orig_set_default = torch.set_default_device
        orig_get_default = torch.get_default_device

        def set_default_device(device: Any) -> None:
            d = modes.resolve(device) if device is not None else None
            if d is None or d is NotImplemented:
                state.default_device = None
                orig_set_default(device)
            else:
                state.default_device = d  # factories without device= land on d
                orig_set_default(None)

        def get_default_device() -> torch.device:
            d = state.default_device
            return d if d is not None else orig_get_default()

        orig_record_stream = torch.Tensor.record_stream

        def record_stream(tensor: torch.Tensor, stream: Any) -> None:
            # A simulated tensor's memory is the CPU's, freed with its last reference: no
            # caching allocator needs telling (and the real method's argument parser rejects
            # the simulated Stream before any torch function mode could see the call).
            if _tags.sim_device(tensor) is not None or getattr(stream, "_ferry_simulated", False):
                return None
            return orig_record_stream(tensor, stream)

        real_resize = torch.UntypedStorage.resize_

        def resize_(storage: Any, size: int) -> Any:
            # FSDP2 frees and re-allocates its unsharded parameters by resizing their
            # storages: the simulated device's memory follows (the peak keeps the larger)
            tag = _tags.TAGS.get(storage._cdata)
            if tag is not None and size < tag.nbytes:
                _tags.sweep()  # the peak with the storage still at its old size
            out = real_resize(storage, size)
            if tag is not None:
                tag.nbytes = storage.nbytes()
            return out

        # the module (torch.multiprocessing.spawn the attribute is the function)
        spawn_module = importlib.import_module("torch.multiprocessing.spawn")
        orig_start = spawn_module.start_processes

        def start_processes(
            fn: Any,
            args: Any = (),
            nprocs: int = 1,
            join: bool = True,
            daemon: bool = False,
            start_method: str = "spawn",
        ) -> Any:
            # a forked child inherits the simulation; a spawned one gets its own (InSimulation)
            if start_method != "fork":
                fn = InSimulation(fn, sim.kind, sim.count, sim.memory)
            return orig_start(fn, args, nprocs, join, daemon, start_method)

        tmp = importlib.import_module("torch.multiprocessing")
        autograd = importlib.import_module("torch.autograd")
        return [
            (autograd, "_engine_run_backward",
             modes.backward_in_simulation(state, autograd._engine_run_backward)),
            *modes.function_patches(state),
            (spawn_module, "start_processes", start_processes),
            (tmp, "start_processes", start_processes),
            (torch.Tensor, "record_stream", record_stream),
            (torch.UntypedStorage, "resize_", resize_),
            (pm, "pin_memory", pin_memory),
            (torch, "compile", self.compiler),
            (torch, "set_default_device", set_default_device),
            (torch, "get_default_device", get_default_device),
        ]

    # --------------------------------------------------------- serialization
    def _tagger(self, storage: Any) -> str | None:
        d = _tags.storage_device(storage)
        return None if d is None else str(d)

    def _deserializer(self, obj: Any, location: str) -> Any:
        if not location.startswith(self.kind):
            return None
        st = self.state
        assert st is not None  # torch.load runs the deserializer only while registered
        idx = st.current if location == self.kind else int(location.split(":", 1)[1])
        if not 0 <= idx < self.count:
            raise RuntimeError(
                f"Attempting to deserialize object on {self.kind.upper()} device {idx} but "
                f"torch.{self.kind}.device_count() is {self.count}. Please use torch.load with "
                "map_location to map your storages to an existing device."
            )
        _tags.tag_storage(obj, st.devices[idx])
        return obj
