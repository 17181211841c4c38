"""Checkpoints that load on any machine, and never run code.

:func:`load` is ``torch.load(f, map_location="cpu", weights_only=True)`` with
errors that say what happened: a GPU-saved checkpoint loads on a CPU-only box,
a pickle that wants to run code is refused by name, a truncated file is called
truncated.  :func:`save` writes portable (CPU) tensors atomically, so a crash
mid-write never leaves half a checkpoint over a good one.  Paths ending in
``.safetensors`` go through the ``safetensors`` package.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pickle
import re
import stat
import warnings
import zipfile
from typing import IO, Any, BinaryIO, Union

import torch

from torchferry._internal.atomic import write_atomic
from torchferry.errors import CheckpointError, DeviceUnavailableError, UnsafeCheckpointError
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
_LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
_LEGACY_MAGIC = pickle.dumps(_LEGACY_MAGIC_NUMBER, protocol=2)


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


#: The most of a file the static scan for globals reads (a pickle names them early).
_SCAN_CAP = 16 << 20


def _scan_pickles(f: Any) -> list[str]:
    """Every global the pickles at the start of ``f`` would import that the weights-only
    unpickler does not allow (a static walk over the opcodes: nothing is imported or run,
    and at most :data:`_SCAN_CAP` bytes are read).  A legacy-format checkpoint is several
    pickles in a row, a raw pickle one."""
    import io
    import pickletools

    from torch import _weights_only_unpickler as wou

    try:
        data = _read_all(f, _SCAN_CAP)
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


#: The default ``max_bytes`` of :func:`load`: this much plus twice the file's size.
LIMIT_FLOOR = 64 << 20
LIMIT_RATIO = 2
#: A pipe (or other stream that cannot seek) is read into memory up to this much.
STREAM_CAP = 8 << 30


def load(
    f: PathOrFile,
    *,
    map_location: Any = "auto",
    weights_only: bool = True,
    max_bytes: int | None | str = "auto",
) -> Any:
    """Load a checkpoint safely on any machine.

    ``map_location="auto"`` maps every storage to the CPU, so a checkpoint saved on
    any GPU loads anywhere (move it afterwards with :func:`torchferry.to`); any
    value ``torch.load`` accepts can be passed instead (a device that is not here
    raises :class:`torchferry.DeviceUnavailableError`, as :func:`torchferry.to` does).
    Only tensors and plain data are unpickled (``weights_only=True``): a file that
    needs anything else raises :class:`torchferry.UnsafeCheckpointError` naming what
    it wanted (found without running it, in zip, legacy-format and raw-pickle files
    alike).  ``weights_only=False`` unpickles anything, running whatever code the
    file holds.

    Memory is bounded on hostile files: a checkpoint's tensors are stored in it, so
    a file whose records and allocations claim more than ``max_bytes`` (by default
    64 MiB plus twice the file's size) is refused before anything is allocated
    (``max_bytes=N`` raises the limit, ``None`` removes it); a file that is not a
    checkpoint is recognised from its first 4 KiB, never read whole.

    Raises the ``OSError`` ``open()`` gives for a path it cannot open or read
    (``FileNotFoundError`` for a missing one, ``ELOOP`` for a symlink loop, ``EIO``)
    and :class:`torchferry.CheckpointError` naming the path for anything that is not a
    whole checkpoint: truncated or corrupt, empty, all zero bytes, a git-lfs pointer,
    an HTML page, JSON or other text, a plain pickle, torch's legacy ``.tar`` format.

    >>> import io, torch, torchferry
    >>> buf = io.BytesIO(); torch.save({"w": torch.ones(2)}, buf); _ = buf.seek(0)
    >>> torchferry.load(buf)
    {'w': tensor([1., 1.])}
    """
    name = _name(f)
    location = _device_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        with _open(f, name) as fh:
            if _is_safetensors(f):
                return _load_safetensors(f, location)
            if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                source: Any = f
                size = os.fstat(fh.fileno()).st_size
                head = _read_head(fh, name)
            else:  # /dev/stdin, a FIFO: torch.load needs to seek
                source, size, head = _buffered(fh, name, max_bytes)
    elif not _seekable(f):
        source, size, head = _buffered(f, name, max_bytes)
    else:
        source = f
        start = f.tell()
        head = _read_head(f, name)
        size = f.seek(0, os.SEEK_END) - start
        f.seek(start)
    limit = _limit(max_bytes, size)
    _refuse_what_is_not_a_checkpoint(source, name, head, weights_only)
    try:
        if head.startswith(_ZIP_MAGIC):
            _inspect_zip(source, name, size, limit)
        elif _is_legacy(head):
            _inspect_legacy(source, name, size, limit)
        with warnings.catch_warnings():
            # torch's note on a pickle protocol other than 2 is about itself, not the file
            warnings.filterwarnings("ignore", message="Detected pickle protocol")
            return torch.load(source, map_location=location, weights_only=weights_only)
    except (CheckpointError, DeviceUnavailableError):
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is said with the path
        err = _load_error(exc, source, name, head, weights_only)
        if err is None:
            raise
        raise err from None


def _load_error(exc: Exception, source: Any, name: str, head: bytes,
                weights_only: bool) -> BaseException | None:
    """The error :func:`load` raises for ``exc``, raised by ``torch.load`` (or the checks
    before it) on ``source``: a device not here, a pickle protocol the weights-only loader
    cannot read, what :func:`_diagnose` finds, else a :class:`CheckpointError` naming the
    path; None where ``exc`` itself is raised (a file not found or not permitted, a
    directory, an I/O error nothing explains)."""
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
        return None
    device = _device_error(exc, name)
    if device is not None:
        return device
    if weights_only and "Unsupported operand" in str(exc) and head.startswith(_ZIP_MAGIC):
        protocol = _pickle_protocol(source)
        if protocol is not None and protocol > 2:
            return CheckpointError(
                f"{name} was saved with pickle protocol {protocol} (torch.save(..., "
                f"pickle_protocol={protocol})), whose opcodes torch's weights-only loader "
                "cannot read: re-save it with torch.save's default protocol (2)"
            )
    err = _diagnose(source, name, exc, weights_only)
    if err is None:
        if isinstance(exc, OSError):
            return None  # an I/O error is an I/O error
        err = CheckpointError(
            f"{name} is not a checkpoint torch can load ({type(exc).__name__}: "
            f"{_first_line(exc)})"
        )
    return err


_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _pickle_protocol(f: Any) -> int | None:
    """The pickle protocol of a zip checkpoint's ``data.pkl`` (its PROTO opcode)."""
    start = None if isinstance(f, (str, os.PathLike)) else f.tell()
    try:
        with zipfile.ZipFile(f) as z:
            pkl = next((n for n in z.namelist() if n.endswith("data.pkl") and n.count("/") == 1),
                       None)
            if pkl is None:
                return None
            with z.open(pkl) as fh:
                first = fh.read(2)
    except Exception:  # noqa: BLE001 - not a zip we can read
        return None
    finally:
        if start is not None:
            f.seek(start)
    return first[1] if len(first) == 2 and first[0] == 0x80 else None


def _open(f: Any, name: str) -> IO[bytes]:
    """``open(f, "rb")``, the kernel's own error if it cannot (``ELOOP`` for a symlink
    loop, ``EACCES``); a missing file or a directory said as a checkpoint loader says it."""
    try:
        return open(f, "rb")  # noqa: SIM115 - the caller's with block closes it
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "no checkpoint at this path", name) from None
    except IsADirectoryError:
        raise IsADirectoryError(errno.EISDIR, "a directory, not a checkpoint file", name) from None


def _read_head(fh: Any, name: str) -> bytes:
    try:
        return bytes(fh.read(_HEAD) or b"")
    except OSError as exc:
        raise _io_error(exc, name) from None


def _io_error(exc: OSError, name: str) -> OSError:
    """The read error, with the path when it had none (``EIO`` of ``/proc/self/mem``)."""
    if exc.filename is None and exc.errno is not None:
        return OSError(exc.errno, exc.strerror or os.strerror(exc.errno), name)
    return exc


def _seekable(f: Any) -> bool:
    try:
        return bool(f.seekable()) if hasattr(f, "seekable") else hasattr(f, "seek")
    except (OSError, ValueError):
        return False


def _buffered(fh: Any, name: str, max_bytes: Any) -> tuple[Any, int, bytes]:
    """A stream that cannot seek (a pipe), read into memory up to a cap: torch.load
    needs to seek.  Reading stops after the first bytes when they are no checkpoint."""
    import io

    cap = STREAM_CAP if max_bytes == "auto" or max_bytes is None else int(max_bytes)
    head = _read_head(fh, name)
    chunks = [head]
    got = len(head)
    if head.startswith(_ZIP_MAGIC) or head.startswith(b"\x80"):
        while True:
            try:
                chunk = fh.read(1 << 20)
            except OSError as exc:
                raise _io_error(exc, name) from None
            if not chunk:
                break
            got += len(chunk)
            if got > cap:
                raise CheckpointError(
                    f"{name} is a stream of more than {_human(cap)}, the most torchferry.load "
                    "reads from a pipe; save it to a file, or raise the limit: "
                    "torchferry.load(f, max_bytes=N)"
                )
            chunks.append(bytes(chunk))
    return io.BytesIO(b"".join(chunks)), got, head


def _limit(max_bytes: Any, size: int) -> int | None:
    if max_bytes == "auto":
        return LIMIT_FLOOR + LIMIT_RATIO * size
    if max_bytes is None:
        return None
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError(f"max_bytes must be a byte count, None or 'auto', not {max_bytes!r}")
    return max_bytes


def _human(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def _device_location(map_location: Any) -> Any:
    """``map_location`` for torch.load; a device that is not here (``"cuda"`` on a CPU
    machine, ``"gpu"``) is :class:`DeviceUnavailableError`, as torchferry.to says it."""
    location = _map_location(map_location)
    if isinstance(location, (str, torch.device)) or (
        isinstance(location, int) and not isinstance(location, bool)
    ):
        from torchferry.devices import _resolve

        return _resolve(location, "map_location argument of torchferry.load")
    return location


_DEVICE_ERRORS = (
    "deserialize object on a CUDA device",
    "don't know how to restore data location",
    "not compiled with CUDA",
    "not linked with support for",
)


def _device_error(exc: BaseException, name: str) -> DeviceUnavailableError | None:
    """torch's error for storages mapped to a device that is not here (a ``map_location``
    dict or ``None`` for a GPU checkpoint), said as torchferry.to says it."""
    msg = str(exc)
    if not any(m in msg for m in _DEVICE_ERRORS):
        return None
    from torchferry.devices import available_devices

    return DeviceUnavailableError(
        f"{name}: its tensors were mapped to a device that is not here ({_first_line(exc)}; "
        f"available here: {', '.join(available_devices())}). Fix: load with "
        "map_location='auto' (the default: the CPU), then move with torchferry.to"
    )


class _NoGlobals(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError("no globals")


def _is_legacy(head: bytes) -> bool:
    """Whether the file starts with the magic number torch's legacy format pickles first."""
    import io

    try:
        return _NoGlobals(io.BytesIO(head)).load() == _LEGACY_MAGIC_NUMBER
    except Exception:  # noqa: BLE001 - anything else is not that
        return False


def _refuse_what_is_not_a_checkpoint(source: Any, name: str, head: bytes, weights_only: bool) -> None:
    """Raise for a file torch.save did not write, said from its first bytes (no more of
    it is read than a scan for the globals a pickle would import)."""
    if not head:
        raise CheckpointError(f"{name} is empty, not a checkpoint")
    if head.startswith(_ZIP_MAGIC) or _is_legacy(head):
        return
    tar = head[257:262] == b"ustar"
    if tar and not weights_only:
        return  # torch.load reads the legacy .tar format itself, running its pickles
    if not tar and head.strip(b"\x00") != b"":
        names = _scan_pickles(source)  # a raw pickle that runs code is unsafe first
        if names and weights_only:
            raise _unsafe(name, names)
    if not head.strip(b"\x00"):
        raise CheckpointError(
            f"{name} is all zero bytes (at least its first {len(head)}), not a checkpoint: "
            "space was reserved but never written (a crash, a full disk or a copy that "
            "stopped); save or copy it again"
        )
    if tar:
        raise CheckpointError(
            f"{name} was saved in torch's legacy .tar format (PyTorch 0.3 or older), which "
            "cannot be loaded without running its pickles; if you made it yourself, re-save its "
            "contents with a current torch.save"
        )
    kind = _sniff(head)
    if kind is not None:
        raise CheckpointError(f"{name} is {kind}")
    if head.startswith(b"\x80") and len(head) > 1:
        raise CheckpointError(
            f"{name} is a plain pickle (protocol {head[1]}), not a torch.save checkpoint: "
            "load it with pickle only if you trust it, or save the data with torch.save"
        )
    raise CheckpointError(
        f"{name} is not a checkpoint: neither a zip archive (what torch.save writes) nor "
        f"a pickle; it begins with the bytes {head[:8].hex(' ')}"
    )


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
    every global is :class:`_Inert` (no module is imported), so rebuilding calls only it.
    The two allowed globals that allocate memory from a number alone (``bytearray(N)``,
    ``torch.Tensor(N)``) are counted in ``claimed`` (bytes) instead."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file)
        self.storages: dict[str, tuple[str, int]] = {}
        self.claimed = 0

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch" and name.endswith("Storage"):
            return name  # the storage type, read by name in persistent_load
        if module in ("builtins", "__builtin__") and name == "bytearray":
            return self._claim(1)
        if module == "torch" and name == "Tensor":
            return self._claim(4)  # float32, torch's default dtype
        return _Inert

    def _claim(self, itemsize: int) -> Any:
        def allocate(*args: Any, **kwargs: Any) -> _Inert:
            dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            if dims and all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
                n = itemsize
                for d in dims:
                    n *= max(d, 0)
                self.claimed += n
            return _Inert()

        return allocate

    def persistent_load(self, pid: Any) -> Any:
        # ('storage', storage type, key, location, numel), as torch.save writes it; the
        # legacy format adds view metadata
        if isinstance(pid, tuple) and len(pid) in (5, 6) and pid[0] == "storage":
            self.storages[str(pid[2])] = (str(pid[1]), int(pid[4]))
        return _Inert()


def _inspect_zip(f: Any, name: str, size: int, limit: int | None) -> None:
    """Refuse a zip checkpoint that claims more memory than ``limit`` (its records'
    uncompressed sizes plus what ``data.pkl`` allocates from numbers alone), or whose
    storage record is not the size its tensor needs.

    torch 2.13 refuses a record of the wrong size (``record size (8 bytes) does not match
    expected size ...``); torch 2.8 loads it, filling the missing part of the tensor from
    whatever memory held, and ignores extra bytes.  So the sizes are checked here, with
    torch 2.13's text, whatever the torch.  Only the zip directory and ``data.pkl`` are
    read (streamed), no tensor data.  What is not a readable zip is left to torch.load.
    """
    start = None if isinstance(f, (str, os.PathLike)) else f.tell()
    try:
        with zipfile.ZipFile(f) as z:
            infos = {i.filename: i for i in z.infolist()}
            records = sum(i.file_size for i in infos.values())
            _within(name, records, "its records, uncompressed", size, limit)
            pkl = next((n for n in infos if n.endswith("data.pkl") and n.count("/") == 1), None)
            if pkl is None:
                return
            prefix = pkl[: -len("data.pkl")]
            with z.open(pkl) as fh:
                lister = _StorageLister(fh)
                try:
                    lister.load()
                except Exception:  # noqa: BLE001 - torch.load says what is wrong with it
                    return
    except CheckpointError:
        raise
    except Exception:  # noqa: BLE001
        return  # not a zip checkpoint we can read: torch.load says what it is
    finally:
        if start is not None:
            f.seek(start)
    _within(name, records + lister.claimed, "its records and the objects its pickle makes",
            size, limit)
    dtypes = _storage_dtypes()
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


def _storage_dtypes() -> dict[str, torch.dtype]:
    """The legacy storage class names torch.save writes (e.g. FloatStorage), with their
    dtypes (no deprecated TypedStorage attribute is touched)."""
    dtypes = {name: dtype for dtype, name in torch.storage._dtype_to_storage_type_map().items()}
    dtypes["UntypedStorage"] = torch.uint8
    return dtypes


def _inspect_legacy(f: Any, name: str, size: int, limit: int | None) -> None:
    """Refuse a legacy-format checkpoint (PyTorch before 1.6) whose storages claim more
    than ``limit``: torch allocates each storage while unpickling, before reading its bytes.
    Only the pickles at the start are read, and nothing is imported or run."""
    if limit is None:
        return
    start = None if isinstance(f, (str, os.PathLike)) else f.tell()
    try:
        with open(f, "rb") if start is None else contextlib.nullcontext(f) as fh:
            for _ in range(3):  # the magic number, the protocol version, the system info
                _NoGlobals(fh).load()
            lister = _StorageLister(fh)
            lister.load()
    except Exception:  # noqa: BLE001 - torch.load says what is wrong with it
        return
    finally:
        if start is not None:
            f.seek(start)
    dtypes = _storage_dtypes()
    claimed = lister.claimed + sum(
        numel * torch._utils._element_size(dtypes.get(kind, torch.uint8))
        for kind, numel in lister.storages.values()
    )
    _within(name, claimed, "its storages and the objects its pickle makes", size, limit)


def _within(name: str, claimed: int, what: str, size: int, limit: int | None) -> None:
    if limit is None or claimed <= limit:
        return
    raise CheckpointError(
        f"{name}: refused to load: it would make torch allocate {_human(claimed)} ({what}) "
        f"from a file of {_human(size)}, over the limit of {_human(limit)} (64 MiB + 2 x the "
        "file's size: a checkpoint holds the bytes of its tensors, so a file claiming more "
        "is broken or hostile). If you trust it, raise the limit: "
        "torchferry.load(path, max_bytes=N) (None: no limit)"
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
    portable = _portable(obj)
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


_CONTAINERS = (dict, list, tuple, set, frozenset)


def _portable(obj: Any) -> Any:
    """``obj`` with every tensor on the CPU, the object graph kept (as ``copy.deepcopy``
    and pickle keep it: a memo keyed by identity): a list shared 40 levels deep stays one
    list, tied weights stay one storage, a view keeps its base.  An object whose tensors
    are all on the CPU already is returned as it is (torch.save keeps its sharing)."""
    if not _needs_moving(obj):
        return obj
    memo: dict[int, Any] = {}
    storages: dict[tuple[Any, int], torch.UntypedStorage] = {}
    try:
        return _copy_to_cpu(obj, memo, storages)
    except RecursionError:
        return _to(obj, "cpu", non_blocking=False)  # its NestingError says where


def _needs_moving(obj: Any) -> bool:
    """Whether anything in ``obj`` is off the CPU or not plain data (walked once per
    object, without recursion)."""
    seen: set[int] = set()
    todo = [obj]
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, torch.Tensor):
            if o.device.type != "cpu":
                return True
        elif isinstance(o, (torch.UntypedStorage, torch.storage.TypedStorage)):
            if o.device.type != "cpu":
                return True
        elif isinstance(o, dict):
            todo.extend(o.keys())
            todo.extend(o.values())
        elif isinstance(o, _CONTAINERS):
            todo.extend(o)
        elif not isinstance(o, (str, bytes, bytearray, int, float, complex, bool, type(None),
                                torch.dtype, torch.device, torch.Size, torch.layout)):
            return True  # a dataclass, a custom object: torchferry.to moves what it holds
    return False


def _copy_to_cpu(o: Any, memo: dict[int, Any], storages: dict) -> Any:
    key = id(o)
    if key in memo:
        return memo[key]
    if isinstance(o, torch.Tensor):
        out: Any = _tensor_to_cpu(o, storages)
    elif isinstance(o, (torch.UntypedStorage, torch.storage.TypedStorage)):
        out = o.cpu()
    elif type(o) in (dict, list) or isinstance(o, dict) and hasattr(o, "copy"):
        out = o.copy()  # a dict subclass (OrderedDict, defaultdict) keeps its class
        memo[key] = out  # before the children: a container that holds itself
        if isinstance(o, dict):
            for k, v in o.items():
                out[k] = _copy_to_cpu(v, memo, storages)
        else:
            out[:] = [_copy_to_cpu(v, memo, storages) for v in o]
        return out
    elif type(o) is tuple:
        out = tuple(_copy_to_cpu(v, memo, storages) for v in o)
    elif type(o) in (set, frozenset) or isinstance(o, (str, bytes, int, float, type(None))):
        out = o
    else:  # a namedtuple, dataclass, custom object: as torchferry.to moves it
        out = _to(o, "cpu", non_blocking=False)
    memo[key] = out
    return out


def _tensor_to_cpu(t: torch.Tensor, storages: dict) -> torch.Tensor:
    """``t`` on the CPU; tensors that shared a storage share the CPU copy of it, once."""
    if t.device.type == "cpu":
        return t
    if t.layout != torch.strided or t.is_quantized or t.device.type == "meta":
        return _to(t, "cpu", non_blocking=False)
    src = t.untyped_storage()
    skey = (t.device, src.data_ptr())
    if skey not in storages:
        whole = torch.empty(0, dtype=torch.uint8, device=t.device).set_(src)
        storages[skey] = whole.to("cpu").untyped_storage()
    out = torch.empty(0, dtype=t.dtype).set_(storages[skey], t.storage_offset(), t.size(),
                                            t.stride())
    if isinstance(t, torch.nn.Parameter):
        return torch.nn.Parameter(out, requires_grad=t.requires_grad)
    if t.requires_grad:
        out.requires_grad_(True)
    return out


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
