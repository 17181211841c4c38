"""Checkpoints that load on any machine, and never run code.

:func:`load` is ``torch.load(f, map_location="cpu", weights_only=True)`` with
errors that say what happened: a GPU-saved checkpoint loads on a CPU-only box,
a pickle that wants to run code is refused by name, a truncated file is called
truncated.  :func:`save` writes portable (CPU) tensors atomically, so a crash
mid-write never leaves half a checkpoint over a good one.  Paths ending in
``.safetensors`` go through the ``safetensors`` package.
"""

from __future__ import annotations

import errno
import os
import pickle
import re
import struct
import zipfile
from pathlib import Path
from typing import IO, Any, BinaryIO, Union

import torch

from torchferry._internal.atomic import write_atomic
from torchferry.errors import CheckpointError, UnsafeCheckpointError
from torchferry.move import to as _to

__all__ = ["load", "save"]

PathOrFile = Union[str, "os.PathLike[str]", BinaryIO, IO[bytes]]

# What torch raises for files that are not (whole) checkpoints.
_CORRUPT_MARKERS = (
    "PytorchStreamReader",
    "Invalid magic number",
    "zip archive",
    "central directory",
    "pickle data was truncated",
    "invalid load key",
    "Ran out of input",
    "unexpected EOF",
    "file_size",
    "record",
    "negative seek value",
)


def _name(f: Any) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return str(getattr(f, "name", "<file object>"))


def _is_safetensors(f: Any) -> bool:
    return isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors")


def _map_location(map_location: Any) -> Any:
    return "cpu" if map_location == "auto" else map_location


def _safetensors_module(what: str):
    try:
        import safetensors.torch as st
    except ImportError:
        raise ImportError(
            f"{what} a .safetensors file needs the safetensors package: "
            "pip install 'torchferry[safetensors]'"
        ) from None
    return st


_BLOCKED = re.compile(r"GLOBAL (\S+) whose module (\S+) is blocked")
_NOT_ALLOWED = re.compile(r"GLOBAL (\S+) was not an allowed global")
_UNRECOGNIZED = re.compile(r"unrecognized function `?([^`\s]+)`?")
_HEAD = 4096
_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)


def _unsafe_globals(f: Any, message: str) -> list[str]:
    """The globals a checkpoint wants that ``weights_only=True`` refuses, found without
    running anything: torch's message, then a static scan of the pickle(s)."""
    names: list[str] = []
    for pattern in (_BLOCKED, _NOT_ALLOWED, _UNRECOGNIZED):
        for m in pattern.finditer(message):
            if m.group(1) not in names:
                names.append(m.group(1))
    try:
        if hasattr(f, "seek"):
            f.seek(0)
        found = list(torch.serialization.get_unsafe_globals_in_checkpoint(f))
    except Exception:  # not a zip checkpoint: a legacy-format file or a raw pickle
        found = _scan_pickles(f)
    names += [n for n in found if n not in names]
    return names


def _read_all(f: Any, limit: int | None = None) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read() if limit is None else fh.read(limit)
    if hasattr(f, "seek") and hasattr(f, "read"):
        f.seek(0)
        data = f.read() if limit is None else f.read(limit)
        return bytes(data)
    return b""


def _scan_pickles(f: Any) -> list[str]:
    """Every global the pickles at the start of ``f`` would import that the weights-only
    unpickler does not allow (a static walk over the opcodes: nothing is imported or run).
    A legacy-format checkpoint is several pickles in a row, a raw pickle one."""
    import io
    import pickletools

    from torch import _weights_only_unpickler as wou

    try:
        data = _read_all(f)
    except OSError:
        return []
    allowed = set(wou._get_allowed_globals()) | set(wou._get_user_allowed_globals())
    found: list[str] = []
    stream = io.BytesIO(data)
    for _ in range(8):  # a legacy file: magic, protocol, sys info, the object (then storages)
        if stream.tell() >= len(data):
            break
        pushed: list[Any] = []
        memo: dict[Any, Any] = {}
        try:
            for op, arg, _pos in pickletools.genops(stream):
                name = op.name
                if name == "GLOBAL" and isinstance(arg, str):
                    full = arg.replace(" ", ".", 1)
                elif name == "STACK_GLOBAL":
                    if len(pushed) < 2 or not all(isinstance(x, str) for x in pushed[-2:]):
                        continue
                    full = f"{pushed[-2]}.{pushed[-1]}"
                elif name in ("MEMOIZE",):
                    memo[len(memo)] = pushed[-1] if pushed else None
                    continue
                elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                    memo[arg] = pushed[-1] if pushed else None
                    continue
                elif name in ("GET", "BINGET", "LONG_BINGET"):
                    pushed.append(memo.get(arg))
                    continue
                else:
                    is_str = isinstance(arg, str) and ("UNICODE" in name or name.endswith("STRING"))
                    pushed.append(arg if is_str else None)
                    continue
                if full not in allowed and full not in found:
                    found.append(full)
        except Exception:
            break
    return found


def _sniff(head: bytes) -> str | None:
    """What a file that is not a checkpoint is, when that can be told from its first bytes."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"version https://git-lfs.github.com/spec/"):
        return (
            "a git-lfs pointer file, not the checkpoint itself: run `git lfs pull` "
            "(or download the file through git-lfs) to fetch its content"
        )
    low = text[:512].lower()
    if low.startswith((b"<!doctype html", b"<html", b"<head", b"<?xml")) or b"<html" in low:
        return (
            "an HTML page, not a checkpoint: the download returned a web page (a login, "
            "consent or error page); download the file itself (for a hosted file, its raw/resolve URL)"
        )
    if text[:1] in (b"{", b"["):
        return "JSON, not a checkpoint: load it with json.load, or point at the weights file"
    if text and b"\x00" not in head:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return "a text file, not a checkpoint"
    return None


def _diagnose(f: Any, name: str, exc: BaseException, weights_only: bool) -> BaseException | None:
    """The error to raise instead of ``exc`` from ``torch.load``, or None to let it through."""
    msg = str(exc)
    try:
        head = _read_all(f, _HEAD)
    except OSError:
        head = b""
    if not head:
        return CheckpointError(f"{name} is empty, not a checkpoint")
    # Unsafe first: a protocol-0 pickle is ASCII and would pass for "a text file".
    if weights_only and (isinstance(exc, pickle.UnpicklingError) or "legacy .tar" in msg):
        names = _unsafe_globals(f, msg)
        if names:
            return _unsafe(name, names)
    kind = _sniff(head)
    if kind is not None:
        return CheckpointError(f"{name} is {kind}")
    if "legacy .tar format" in msg:
        return CheckpointError(
            f"{name} was saved in torch's legacy .tar format (PyTorch 0.3 or older), which "
            "cannot be loaded without running its pickles; if you made it yourself, re-save its "
            "contents with a current torch.save"
        )
    if isinstance(exc, pickle.UnpicklingError) and head.startswith(b"\x80") and not head.startswith(_LEGACY_MAGIC):
        return CheckpointError(
            f"{name} is a plain pickle, not a torch.save checkpoint ({_first_line(exc)})"
        )
    if isinstance(exc, (RuntimeError, ValueError)) and not any(m in msg for m in _CORRUPT_MARKERS):
        if not head.startswith(b"PK") or _zip_is_sound(f):
            return None  # not about the file (e.g. map_location): torch's error stands
    if isinstance(exc, OSError) and exc.errno not in (None, errno.EINVAL):
        return None
    return _corrupt(name, exc)


def _zip_is_sound(f: Any) -> bool:
    try:
        if hasattr(f, "seek"):
            f.seek(0)
        with zipfile.ZipFile(f) as z:
            return z.testzip() is None
    except Exception:
        return False


def _unsafe(name: str, names: list[str]) -> UnsafeCheckpointError:
    blocked = [n for n in names if n.split(".", 1)[0] in ("os", "posix", "nt", "sys", "subprocess")]
    what = ", ".join(names)
    if blocked:
        module = blocked[0].split(".", 1)[0]
        advice = (
            f"GLOBAL {blocked[0]} whose module {module} is blocked (it runs commands or "
            "reaches into the system): this file tries to run code when loaded; do not load "
            "it, and tell whoever gave it to you"
        )
    else:
        advice = (
            "weights_only=True loads only tensors and plain data, and this file needs more (a "
            "pickle can run code). If the file is your own and these are your own classes, allow "
            "just them: with torch.serialization.safe_globals([...]): torchferry.load(path); "
            "otherwise do not load it"
        )
    return UnsafeCheckpointError(f"{name}: refused to unpickle {what}: {advice}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    line = text.splitlines()[0]
    if "weights_only" in line:  # torch's advice to turn the safety off: never repeated
        parts = [p for p in text.splitlines()[1:] if p.strip() and "weights_only" not in p]
        line = parts[0].strip() if parts else "the unpickler refused it"
    return line


def load(
    f: PathOrFile,
    *,
    map_location: Any = "auto",
    weights_only: bool = True,
) -> Any:
    """Load a checkpoint safely on any machine.

    ``map_location="auto"`` maps every storage to the CPU, so a checkpoint saved on
    any GPU loads anywhere (move it afterwards with :func:`torchferry.to`); any
    value ``torch.load`` accepts can be passed instead.  Only tensors and plain
    data are unpickled (``weights_only=True``): a file that needs anything else
    raises :class:`torchferry.UnsafeCheckpointError` naming what it wanted (found
    without running it, in zip, legacy-format and raw-pickle files alike).
    ``weights_only=False`` unpickles anything, running whatever code the file holds.

    Raises ``FileNotFoundError`` for a missing path and
    :class:`torchferry.CheckpointError` naming the path for anything that is not a
    whole checkpoint: truncated or corrupt, empty, a git-lfs pointer, an HTML page,
    JSON or other text, a plain pickle, torch's legacy ``.tar`` format.

    >>> import io, torch, torchferry
    >>> buf = io.BytesIO(); torch.save({"w": torch.ones(2)}, buf); _ = buf.seek(0)
    >>> torchferry.load(buf)
    {'w': tensor([1., 1.])}
    """
    name = _name(f)
    if isinstance(f, (str, os.PathLike)):
        path = Path(f)
        if not path.exists():
            raise FileNotFoundError(errno.ENOENT, "no checkpoint at this path", name)
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a directory, not a checkpoint file", name)
    if _is_safetensors(f):
        return _load_safetensors(f, map_location)
    location = _map_location(map_location)
    try:
        _check_record_sizes(f)
        return torch.load(f, map_location=location, weights_only=weights_only)
    except (pickle.UnpicklingError, EOFError, IndexError, KeyError, UnicodeDecodeError,
            struct.error, zipfile.BadZipFile, RuntimeError, ValueError, OSError,
            MemoryError, OverflowError) as exc:
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        err = _diagnose(f, name, exc, weights_only)
        if err is None:
            raise
        raise err from None


class _Inert:
    """Stands for every object a checkpoint's pickle names, while its storages are listed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def append(self, value: Any) -> None:
        pass

    def extend(self, values: Any) -> None:
        pass


class _StorageLister(pickle.Unpickler):
    """Lists the storage records a zip checkpoint's ``data.pkl`` refers to, running nothing:
    every global is :class:`_Inert` (no module is imported), so rebuilding calls only it."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file)
        self.storages: dict[str, tuple[str, int]] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch" and name.endswith("Storage"):
            return name  # the storage type, read by name in persistent_load
        return _Inert

    def persistent_load(self, pid: Any) -> Any:
        # ('storage', storage type, key, location, numel), as torch.save writes it
        if isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage":
            self.storages[str(pid[2])] = (str(pid[1]), int(pid[4]))
        return _Inert()


def _check_record_sizes(f: Any) -> None:
    """Refuse a zip checkpoint whose storage record is not the size its tensor needs.

    torch 2.13 refuses such a file (``record size (8 bytes) does not match expected size
    ...``); torch 2.8 loads it, filling the missing part of the tensor from whatever memory
    held, and ignores extra bytes.  So the sizes are checked here, with torch 2.13's text,
    whatever the torch: from the zip directory and ``data.pkl`` alone (no tensor data is read).
    Anything that is not a readable zip checkpoint is left to ``torch.load``.
    """
    if not isinstance(f, (str, os.PathLike)) and not (hasattr(f, "seek") and hasattr(f, "tell")):
        return
    start = None if isinstance(f, (str, os.PathLike)) else f.tell()
    try:
        with zipfile.ZipFile(f) as z:
            infos = {i.filename: i for i in z.infolist()}
            pkl = next((n for n in infos if n.endswith("data.pkl") and n.count("/") == 1), None)
            if pkl is None:
                return
            prefix = pkl[: -len("data.pkl")]
            with z.open(pkl) as fh:
                lister = _StorageLister(fh)
                lister.load()
    except Exception:
        return  # not a zip checkpoint we can read: torch.load says what it is
    finally:
        if start is not None:
            f.seek(start)
    # the legacy storage class names torch.save writes, e.g. FloatStorage (no deprecated
    # TypedStorage attribute is touched)
    dtypes = {name: dtype for dtype, name in torch.storage._dtype_to_storage_type_map().items()}
    dtypes["UntypedStorage"] = torch.uint8
    for key, (storage_type, numel) in lister.storages.items():
        info = infos.get(f"{prefix}data/{key}")
        dtype = dtypes.get(storage_type)
        if info is None or dtype is None:
            continue  # a missing record, an unknown type: torch.load says what it is
        nbytes = numel * torch._utils._element_size(dtype)
        if info.file_size != nbytes:
            raise RuntimeError(
                f"record size ({info.file_size} bytes) does not match expected size ({nbytes} "
                f"bytes = {nbytes} elements * 1 bytes/element) for dtype Byte"
            )


def _corrupt(name: str, exc: BaseException) -> CheckpointError:
    return CheckpointError(
        f"{name} is truncated or corrupt, not a whole checkpoint ({_first_line(exc)}). "
        "Re-save it, or copy it again if it came over the network."
    )


def _load_safetensors(f: Any, map_location: Any) -> dict[str, torch.Tensor]:
    st = _safetensors_module("loading")
    location = _map_location(map_location)
    if not isinstance(location, (str, torch.device)):
        raise ValueError(
            "map_location for a .safetensors file must be a device (str or torch.device)"
        )
    try:
        return st.load_file(os.fspath(f), device=str(location))
    except Exception as exc:  # safetensors raises its own SafetensorError for bad headers
        if type(exc).__name__ in ("SafetensorError",) or isinstance(exc, (OSError, ValueError)):
            raise _corrupt(_name(f), exc) from None
        raise


def save(obj: Any, f: PathOrFile) -> None:
    """Save a checkpoint that loads on any machine, atomically.

    Every tensor inside ``obj`` is moved to the CPU first (the file then loads
    without ``map_location`` anywhere).  A path is written as ``torch.save`` would
    write it, but atomically (see :mod:`torchferry._internal.atomic`): the bytes go
    to a temporary file next to it, which is synced and renamed into place, so a
    crash, a kill or a full disk never leaves a half-written checkpoint over a good
    one.  A symlink's target is written (the link stays), ``/dev/null`` and other
    devices or pipes are written into directly, a read-only file or a path ending
    in ``/`` is refused with the error ``open()`` gives, the file's mode is kept, a
    hard-linked file is updated in place so every link sees it, and temporary
    files left by a killed earlier save to the same path are removed.  Paths
    ending in ``.safetensors`` take a flat ``{name: tensor}`` dict and go through
    ``safetensors``.

    Save ``model.state_dict()``, not the module itself: whole-module pickles
    cannot be loaded with ``weights_only=True``.

    >>> import tempfile, os, torch, torchferry
    >>> path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
    >>> torchferry.save({"w": torch.ones(2)}, path)
    >>> torchferry.load(path)["w"]
    tensor([1., 1.])
    """
    if isinstance(obj, torch.nn.Module):
        raise TypeError(
            f"save the module's weights, not the module: torchferry.save(model.state_dict(), "
            f"path) (a pickled {type(obj).__name__} cannot be loaded with weights_only=True)"
        )
    portable = _to(obj, "cpu", non_blocking=False)
    if not isinstance(f, (str, os.PathLike)):
        torch.save(portable, f)
        return
    if _is_safetensors(f):
        st = _safetensors_module("saving")
        if not (isinstance(portable, dict) and all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in portable.items()
        )):
            raise TypeError(
                "a .safetensors file holds a flat {name: tensor} dict; save other objects "
                "to a .pt path"
            )
        tensors = {k: v.detach().contiguous() for k, v in portable.items()}
        write_atomic(f, lambda fh: fh.write(st.save(tensors)))
    else:
        write_atomic(f, lambda fh: _torch_save_into(portable, fh))


class _Recording:
    """A file that remembers the OSError its ``write`` raised: torch's zip writer reports a
    failed write (a full disk) as its own ``RuntimeError: ... unexpected pos``."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.error: OSError | None = None

    def write(self, data: Any) -> int:
        try:
            return self.fh.write(data)
        except OSError as exc:
            self.error = self.error or exc
            raise

    def flush(self) -> None:
        self.fh.flush()


def _torch_save_into(obj: Any, fh: IO[bytes]) -> None:
    out = _Recording(fh)
    try:
        torch.save(obj, out)  # type: ignore[arg-type]
    except RuntimeError:
        if out.error is not None:
            raise out.error from None  # ENOSPC, EIO: what open().write would say
        raise
