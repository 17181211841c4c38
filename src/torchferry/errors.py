"""The exceptions torchferry raises.  Importing this module never imports torch."""

from __future__ import annotations

import pickle
from collections.abc import Sequence

__all__ = [
    "FerryError",
    "DeviceUnavailableError",
    "CheckpointError",
    "UnsafeCheckpointError",
    "UsageError",
    "UnsupportedFeatureError",
    "SimulationError",
    "NotebookError",
    "InternalError",
    "TorchMissingError",
    "NestingError",
    "ChangedSinceRead",
]


class FerryError(Exception):
    """Base class of every torchferry error."""


class DeviceUnavailableError(FerryError, RuntimeError):
    """A device was asked for (by argument or environment variable) that this machine lacks,
    or its name is not a device name at all."""


class CheckpointError(FerryError, RuntimeError):
    """A checkpoint file is truncated, corrupt, or not a checkpoint."""


class UnsafeCheckpointError(CheckpointError, pickle.UnpicklingError):
    """A checkpoint needs globals that ``weights_only=True`` refuses to unpickle."""


class UsageError(FerryError, ValueError):
    """Bad input to a command: reported by the CLI as one line with exit code 2."""


class UnsupportedFeatureError(FerryError, RuntimeError):
    """A GPU feature the simulation cannot run (custom kernels, Triton, CUDA graphs, ...)."""


class SimulationError(FerryError, RuntimeError):
    """The simulation cannot start here (nested, or a real device of that kind exists)."""


class NotebookError(FerryError, ValueError):
    """Not a readable notebook (invalid JSON or not nbformat 4)."""


class InternalError(FerryError, RuntimeError):
    """A rule crashed on a file: a bug in ferry, reported with the rule and the file."""


class TorchMissingError(FerryError, ModuleNotFoundError):
    """A part of torchferry that needs PyTorch was used where PyTorch is not installed.

    ``ferry check`` needs no torch (``pip install torchferry`` alone is enough for it);
    the library, the simulation, ``ferry run``, ``ferry bench`` and ``ferry doctor`` do.
    """

    def __init__(self, what: str, missing: str | Sequence[str] = "torch") -> None:
        names = [missing] if isinstance(missing, str) else list(missing)
        packages = " and ".join({"torch": "PyTorch", "numpy": "NumPy"}.get(m, m) for m in names)
        are, them = ("is", "it") if len(names) == 1 else ("are", "them")
        super().__init__(
            f"{what} needs {packages}, which {are} not installed here: install {them} "
            f"(pip install {' '.join(names)}, or pip install 'torchferry[torch]')",
            name=names[0],
        )


class NestingError(FerryError, ValueError):
    """A structure given to :func:`torchferry.to` (or another tree walker) contains itself,
    or is nested deeper than Python's recursion limit lets it be walked."""


class ChangedSinceRead(FerryError, OSError):
    """A file no longer holds what was read from it, so it was not written (``ferry check
    --fix`` never overwrites an edit saved while it ran)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: changed since it was read; not written")
        self.path = path
