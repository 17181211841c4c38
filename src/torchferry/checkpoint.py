"""Checkpoints that load on any machine, and never run code.

:func:`load` is ``torch.load(f, map_location="cpu", weights_only=True)`` with
errors that say what happened: a GPU-saved checkpoint loads on a CPU-only box,
a pickle that wants to run code is refused by name, a truncated file is called
truncated.  :func:`save` writes portable (CPU) tensors atomically, so a crash
mid-write never leaves half a checkpoint over a good one.  Paths ending in
``.safetensors`` go through the ``safetensors`` package.
"""

from __future__ import annotations

import os
import pickle
import re
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import IO, Any, BinaryIO, Union

import torch

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


def _unsafe_globals(f: Any, message: str) -> list[str]:
    names: list[str] = []
    try:
        if hasattr(f, "seek"):
            f.seek(0)
        names = list(torch.serialization.get_unsafe_globals_in_checkpoint(f))
    except Exception:
        pass
    for m in re.finditer(r"GLOBAL (\S+) was not an allowed global", message):
        if m.group(1) not in names:
            names.append(m.group(1))
    for m in re.finditer(r"unrecognized function `?([^`\s]+)`?", message):
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


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
    raises :class:`torchferry.UnsafeCheckpointError` naming what it wanted.  Load
    such a file only if you trust it, by passing ``weights_only=False``.

    Raises ``FileNotFoundError`` for a missing path and
    :class:`torchferry.CheckpointError` for a truncated or corrupt file.

    >>> import io, torch, torchferry
    >>> buf = io.BytesIO(); torch.save({"w": torch.ones(2)}, buf); _ = buf.seek(0)
    >>> torchferry.load(buf)
    {'w': tensor([1., 1.])}
    """
    name = _name(f)
    if isinstance(f, (str, os.PathLike)):
        path = Path(f)
        if not path.exists():
            raise FileNotFoundError(2, f"no checkpoint at {name!r}", name)
        if path.is_dir():
            raise IsADirectoryError(21, f"{name!r} is a directory, not a checkpoint file", name)
    if _is_safetensors(f):
        return _load_safetensors(f, map_location)
    location = _map_location(map_location)
    try:
        return torch.load(f, map_location=location, weights_only=weights_only)
    except pickle.UnpicklingError as exc:
        msg = str(exc)
        if weights_only and "Weights only load failed" in msg:
            names = _unsafe_globals(f, msg)
            if names:
                what = ", ".join(names)
                raise UnsafeCheckpointError(
                    f"{name}: refused to unpickle {what}: weights_only=True loads only "
                    "tensors and plain data, and this checkpoint needs more (a pickle can run "
                    "code). If you trust the file, load it knowingly with "
                    "torchferry.load(path, weights_only=False), or allow just these with "
                    "torch.serialization.safe_globals([...])."
                ) from None
        raise _corrupt(name, exc) from None
    except (EOFError, IndexError, UnicodeDecodeError, struct.error, zipfile.BadZipFile) as exc:
        # what the unpickler raises on a garbled stream
        raise _corrupt(name, exc) from None
    except (RuntimeError, ValueError) as exc:
        if any(marker in str(exc) for marker in _CORRUPT_MARKERS):
            raise _corrupt(name, exc) from None
        raise


def _corrupt(name: str, exc: BaseException) -> CheckpointError:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return CheckpointError(
        f"{name} is truncated or corrupt, not a whole checkpoint ({detail}). "
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
    without ``map_location`` anywhere).  A path is written to a temporary file
    next to it and renamed into place, so a crash mid-write never leaves a
    half-written checkpoint over a good one.  Paths ending in ``.safetensors``
    take a flat ``{name: tensor}`` dict and go through ``safetensors``.

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
    path = Path(f)
    if _is_safetensors(path):
        st = _safetensors_module("saving")
        if not (isinstance(portable, dict) and all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in portable.items()
        )):
            raise TypeError(
                "a .safetensors file holds a flat {name: tensor} dict; save other objects "
                "to a .pt path"
            )
        tensors = {k: v.detach().contiguous() for k, v in portable.items()}
        _atomic_write(path, lambda tmp: st.save_file(tensors, tmp))
    else:
        _atomic_write(path, lambda tmp: torch.save(portable, tmp))


def _atomic_write(path: Path, write) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(2, f"directory {str(directory)!r} does not exist", str(directory))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        # mkstemp makes the file private (0600); give it the mode a plain open() would,
        # or the mode of the file it replaces.
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise

