#!/usr/bin/env bash
# torchferry's main job on its bundled examples, one step after another.
# Steps that are *meant* to fail (a checker finding mistakes, a script whose
# labels missed the ferry) show their output and the demo goes on; the demo
# itself fails only if a step that must succeed does not.
set -u
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
ferry() { "$PY" -m torchferry "$@"; }
# Bold headings on a terminal only: a pipe or a file gets plain text (NO_COLOR turns it off too).
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m'; plain=$'\033[0m'; else bold=; plain=; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }
failed=0
must() { "$@" || { echo "!! demo step failed: $*" >&2; failed=1; }; }
expect() { # expect CODE CMD...: the step must exit with CODE (e.g. 1: findings, an error)
  local want=$1; shift
  "$@"; local got=$?
  [ "$got" = "$want" ] || { echo "!! expected exit $want, got $got: $*" >&2; failed=1; }
}

step "ferry doctor: does torch see the hardware this machine has?"
ferry doctor   # exit 1 only when it diagnoses a problem with this machine: shown, not fatal

step "examples/portable.py: the lessons' portable pattern with torchferry's API"
must "$PY" examples/portable.py

step "ferry check: the lessons' mistakes, found statically (exit 1: findings)"
expect 1 ferry check --no-cache --select ALL examples/train_with_mistakes.py  # every rule, the opt-in ones too
step "ferry check --unsafe-fixes --diff: what the fixes would change (each unsafe one is an edit to review)"
expect 1 ferry check --no-cache --select ALL --unsafe-fixes --diff examples/train_with_mistakes.py

step "ferry run --simulate cuda: the lesson's program prints its GPU output on this machine"
must ferry run --simulate cuda examples/lesson_portable.py

step "ferry run --simulate cuda: labels that missed the ferry fail as on a GPU, and are named"
expect 1 ferry run --simulate cuda examples/labels_left_behind.py

step "ferry run --simulate cuda --trips: every host/device ride, counted per line"
must ferry run --simulate cuda --trips examples/item_every_step.py

step "ferry bench --quick: the lesson's CPU-vs-GPU crossover (measured, or predicted without a GPU)"
must ferry bench --quick

if [ "$failed" = 0 ]; then
  printf '\n%sdemo: every step behaved as expected%s\n' "$bold" "$plain"
else
  printf '\n%sdemo: some steps did not behave as expected (see !! above)%s\n' "$bold" "$plain"
fi
exit "$failed"
