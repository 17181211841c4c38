"""Start a Python child that reports the GPUs it sees (the parent's own view first)."""

import subprocess
import sys

import torch

print("parent", torch.cuda.is_available(), torch.cuda.device_count())
code = ("import torch; print('child', torch.cuda.is_available(), torch.cuda.device_count(), "
        "torch.ones(1).to('cuda' if torch.cuda.is_available() else 'cpu').device)")
r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
print(r.stdout, end="")
print(r.stderr, end="", file=sys.stderr)
