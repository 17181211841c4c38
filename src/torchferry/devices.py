"""Choosing the device once.

:func:`device` is the lesson's first line, ``device = "cuda" if
torch.cuda.is_available() else "cpu"``, made complete: it honours an explicit
choice, an environment override and torchrun's ``LOCAL_RANK``, knows xpu and
mps, and says clearly what is wrong when the asked-for device is not there.
(Why a GPU is or is not seen, ``ferry doctor``, lives in :mod:`torchferry.doctor`.)
"""

from __future__ import annotations

import os
from typing import Any

import torch

from torchferry._internal.vocabulary import ACCELERATOR_KINDS
from torchferry.errors import DeviceUnavailableError

__all__ = ["device", "available_devices"]

ENV_VAR = "TORCHFERRY_DEVICE"
# The order in which an accelerator is preferred when nothing is asked for.
PREFERENCE = ACCELERATOR_KINDS


# ----------------------------------------------------------------- selection
def _backend(kind: str) -> Any:
    if kind == "mps":
        return getattr(torch.backends, "mps", None)
    return getattr(torch, kind, None)


def _is_available(kind: str) -> bool:
    if kind in ("cpu", "meta"):
        return True
    backend = _backend(kind)
    fn = getattr(backend, "is_available", None)
    if fn is None:
        return False
    try:
        return bool(fn())
    except Exception:  # a broken driver can raise instead of answering
        return False


def _count(kind: str) -> int:
    if kind == "mps":
        return 1 if _is_available("mps") else 0
    if kind in ("cpu", "meta"):
        return 1
    fn = getattr(_backend(kind), "device_count", None)
    try:
        return int(fn()) if fn is not None else 0
    except Exception:
        return 0


def available_devices() -> list[str]:
    """Names of the devices torch can use here, e.g. ``['cuda:0', 'cuda:1', 'cpu']``.

    >>> "cpu" in available_devices()
    True
    """
    names = []
    for kind in PREFERENCE:
        if _is_available(kind):
            n = _count(kind)
            names += [kind] if kind == "mps" else [f"{kind}:{i}" for i in range(n)]
    return names + ["cpu"]


def _unavailable(asked: str, by: str, why: str) -> DeviceUnavailableError:
    hint = (
        f"unset {ENV_VAR} or set it to an available device"
        if by == ENV_VAR
        else "ask for an available device, or call torchferry.device() with no argument"
    )
    who = f"the {ENV_VAR} environment variable" if by == ENV_VAR else f"the {by}"
    return DeviceUnavailableError(
        f"{asked!r} was asked for by {who}, but {why} "
        f"(available here: {', '.join(available_devices())}). Fix: {hint}; "
        "'ferry doctor' explains why an accelerator is not seen."
    )


def _not_a_device(asked: Any, by: str) -> DeviceUnavailableError:
    """The error for a value ``torch.device()`` refused (also :func:`torchferry.to`'s)."""
    if isinstance(asked, int) and not isinstance(asked, bool):
        # torch.device(0) means "the accelerator's device 0": refused where there is none
        why = f"a bare index means accelerator device {asked}, and torch sees no accelerator here"
    else:
        why = "that is not a device name (use cpu, cuda, cuda:1, mps or xpu)"
    return _unavailable(str(asked), by, why)


def _resolve(asked: Any, by: str) -> torch.device:
    if isinstance(asked, torch.device):
        dev = asked
    else:
        text = asked.strip() if isinstance(asked, str) else asked
        try:
            dev = torch.device(text)
        except (RuntimeError, TypeError, ValueError):
            raise _not_a_device(asked, by) from None
    kind = dev.type
    if kind in ("cpu", "meta"):
        return dev
    if not _is_available(kind):
        if kind == "cuda":
            why = "torch.cuda.is_available() is False on this machine"
        elif kind == "mps":
            why = "torch.backends.mps.is_available() is False on this machine"
        else:
            why = f"no {kind} device is available to torch on this machine"
        raise _unavailable(str(asked), by, why)
    if dev.index is not None and kind != "mps":
        n = _count(kind)
        if dev.index >= n:
            raise _unavailable(
                str(asked), by, f"only {n} {kind} device{'s' if n != 1 else ''} "
                f"{'is' if n == 1 else 'are'} visible"
            )
    return dev


def _first_accelerator() -> str | None:
    for kind in PREFERENCE:
        if _is_available(kind):
            return kind
    return None


def device(prefer: torch.device | str | None = None) -> torch.device:
    """Pick the device once: ``dev = torchferry.device()``.

    In order: ``prefer`` if given; else the ``TORCHFERRY_DEVICE`` environment
    variable (``cpu``, ``cuda``, ``cuda:1``, ``mps``, ``xpu``); else, under
    torchrun (``LOCAL_RANK`` set), this process's accelerator
    ``type:(LOCAL_RANK % count)``, made current; else the first available of
    cuda, xpu, mps, cpu, judged by ``is_available()`` (not by how torch was
    built).  Asking for a device that is not there raises
    :class:`torchferry.DeviceUnavailableError` saying what was asked, by whom,
    and what is available.

    >>> import torchferry
    >>> torchferry.device("cpu")
    device(type='cpu')
    """
    if prefer is not None:
        return _resolve(prefer, "prefer argument")
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return _resolve(env, ENV_VAR)
    kind = _first_accelerator()
    local_rank = os.environ.get("LOCAL_RANK", "").strip()
    if local_rank and kind is not None:
        try:
            rank = int(local_rank)
        except ValueError:
            raise DeviceUnavailableError(
                f"LOCAL_RANK={local_rank!r} is not an integer; torchrun sets it to this "
                "process's rank on the node. Unset it when not running under torchrun."
            ) from None
        dev = torch.device(kind, rank % max(_count(kind), 1))
        set_device = getattr(_backend(kind), "set_device", None)
        if set_device is not None and kind != "mps":
            set_device(dev)
        return dev
    return torch.device(kind or "cpu")
