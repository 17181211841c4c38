"""Peak memory of ``torchferry.load`` and ``torch.load`` on files that are not checkpoints
or that claim memory they do not hold, side by side, each load in a fresh process.

    python benchmarks/load_memory.py [--size-gb 2]

Files (made in a temporary directory, removed after): a sparse file of zeros of
``--size-gb`` GB (no disk used), and a 1 KB zip checkpoint whose pickle asks for
``bytearray(2 GiB)`` (allowed objects only).  Each row is the resident memory the
load added at its peak (``/proc/self/status`` VmHWM after ``clear_refs``, minus VmRSS
before the load, torch already imported) and what the load did.  Linux only.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import zipfile

CHILD = r"""
import io, sys, torch, torchferry as tf
load = tf.load if sys.argv[1] == "torchferry.load" else (lambda p: torch.load(p, weights_only=True))
buf = io.BytesIO(); torch.save({"w": torch.ones(1)}, buf); buf.seek(0); load(buf)  # warm
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) * 1024 for l in fh if l.startswith(key))
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
before = status("VmRSS:")
try:
    load(sys.argv[2]); what = "loaded"
except BaseException as exc:
    what = f"{type(exc).__name__}: {str(exc).splitlines()[0][:60]}"
print(max(0, status("VmHWM:") - before), what, sep="\t")
"""


def _hostile(path: str) -> None:
    import torch

    buf = io.BytesIO()
    torch.save({}, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith("data.pkl"):
                data = b"\x80\x02c__builtin__\nbytearray\n\x8a\x05\x00\x00\x00\x80\x00\x85R."
            out.writestr(info.filename, data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-gb", type=float, default=2.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        zeros = os.path.join(d, "zeros.bin")
        with open(zeros, "wb") as fh:
            fh.truncate(int(args.size_gb * 1e9))
        tiny = os.path.join(d, "tiny.pt")
        _hostile(tiny)
        files = [(f"{args.size_gb:g} GB of zeros", zeros),
                 (f"{os.path.getsize(tiny)} B claiming 2 GiB", tiny)]
        print(f"{'file':<26} {'loader':<16} {'peak added':>12}  result")
        for label, path in files:
            for loader in ("torchferry.load", "torch.load"):
                r = subprocess.run([sys.executable, "-c", CHILD, loader, path],
                                   capture_output=True, text=True, timeout=600)
                if r.returncode != 0:
                    print(f"{label:<26} {loader:<16} {'-':>12}  died: {r.stderr.strip()[-80:]}")
                    continue
                peak, what = r.stdout.strip().split("\t", 1)
                print(f"{label:<26} {loader:<16} {int(peak) / 1e6:>9.1f} MB  {what}")


if __name__ == "__main__":
    main()
