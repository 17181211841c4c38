#!/usr/bin/env bash
# torchferry's main job on its bundled examples, one step after another.
# Steps that are *meant* to fail (a checker finding mistakes, a script whose
# labels missed the ferry) show their output and the demo goes on.
set -u
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
ferry() { "$PY" -m torchferry "$@"; }
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "ferry doctor: does torch see the hardware this machine has?"
ferry doctor

step "examples/portable.py: the lessons' portable pattern with torchferry's API"
"$PY" examples/portable.py
