"""The exceptions torchferry raises.  Importing this module never imports torch."""

from __future__ import annotations

import pickle

__all__ = [
    "FerryError",
    "DeviceUnavailableError",
    "CheckpointError",
    "UnsafeCheckpointError",
    "UsageError",
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
