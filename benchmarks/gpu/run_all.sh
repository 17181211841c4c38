#!/usr/bin/env bash
# torchferry's device checks, all in one run.
#
#   bash benchmarks/gpu/run_all.sh                 # results in ./gpu-results
#   OUT=/some/dir FERRY_GPU_QUICK=1 bash benchmarks/gpu/run_all.sh
#
# Runs from a plain checkout (torchferry need not be installed: src/ goes on
# PYTHONPATH) with python3 (or $PYTHON).  Steps, each surviving the failure of the
# ones before it:
#   1. environment      nvidia-smi, torch build, the GPU torch sees
#   2. bench matmul     ferry bench: CPU vs GPU crossover, measured; the model's error
#                       for this card (no GPU: predicted T4 columns)
#   3. bench transfer   ferry bench transfer: h2d/d2h pageable vs pinned, 4 KiB..1 GiB
#                       (no GPU: checks it declines with exit code 3)
#   4. loader overlap   benchmarks/gpu/loader_overlap.py: DeviceLoader must take
#                       <= 1.1 x max(copy, compute) per step (no GPU: runs on the CPU, skipped)
#   5. fidelity         benchmarks/gpu/fidelity.py (simulated GPU vs this GPU), if present
#   6. trips            ferry run --trips on benchmarks/gpu/train_loop.py, if 'ferry run'
#                       has --trips
# Writes at most these 8 files to $OUT: summary.txt log.txt bench.json bench.png
# transfer.json loader.json fidelity.txt trips.txt.  Prints the summary table last.
# FERRY_GPU_QUICK=1 shrinks the work (CI uses it).  Exit 0 when every step that ran
# passed or was skipped for lack of a GPU (or of the feature); 1 otherwise.
set -u

cd "$(dirname "$0")/../.." || exit 1
ROOT="$PWD"
OUT="${OUT:-$ROOT/gpu-results}"
mkdir -p "$OUT" || { echo "cannot create $OUT" >&2; exit 1; }
OUT="$(cd "$OUT" && pwd)"
PY="${PYTHON:-python3}"
export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export MPLBACKEND=Agg
QUICK="${FERRY_GPU_QUICK:-0}"
QFLAG=""
[ "$QUICK" = "1" ] && QFLAG="--quick"

LOG="$OUT/log.txt"
: >"$LOG"
START=$(date +%s)
# Hard cap for the whole run; each step gets at most its own limit and what is left.
BUDGET="${FERRY_GPU_BUDGET_S:-450}"
DEADLINE=$((START + BUDGET))
HAVE_TIMEOUT=0
command -v timeout >/dev/null 2>&1 && HAVE_TIMEOUT=1

SUMMARY_ROWS=()
FAILED=0
PASSED=0
SKIPPED=0

log() { printf '%s\n' "$*" | tee -a "$LOG"; }

# summary.txt is rewritten after every step, so a run cut short still leaves one
write_summary() { # "final" or "partial"
  local total=$(($(date +%s) - START))
  {
    echo ""
    echo "==== torchferry device checks: summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), ${total}s, quick=$QUICK) ===="
    printf '%-16s %-9s %7s  %s\n' "step" "status" "seconds" "detail"
    for row in "${SUMMARY_ROWS[@]}"; do echo "$row"; done
    if [ "$1" = partial ]; then
      echo "overall: INCOMPLETE (the run was still going, or was cut short, after the steps above)"
    elif [ "$FAILED" = 0 ]; then
      echo "overall: OK ($PASSED passed, 0 failed, $SKIPPED skipped)"
    else
      echo "overall: FAILED ($PASSED passed, $FAILED failed, $SKIPPED skipped)"
    fi
    echo "files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
  } >"$OUT/summary.txt"
}

add_row() { # step status seconds detail
  SUMMARY_ROWS+=("$(printf '%-16s %-9s %7s  %s' "$1" "$2" "$3" "$4")")
  case "$2" in
    FAIL*) FAILED=$((FAILED + 1)) ;;
    skipped*) SKIPPED=$((SKIPPED + 1)) ;;
    *) PASSED=$((PASSED + 1)) ;;
  esac
  write_summary partial
}

# run_step LIMIT_S OUTFILE CMD...: runs CMD (output to the log, and to OUTFILE if not
# "-"), sets RC and ELAPSED.  RC 124 = killed at its time limit.
run_step() {
  local limit=$1 outfile=$2
  shift 2
  local now left
  now=$(date +%s)
  left=$((DEADLINE - now))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 5 ]; then
    RC=125
    ELAPSED=0
    log "!! no time left in the ${BUDGET}s budget for: $*"
    return
  fi
  log ""
  log "\$ $* (limit ${limit}s)"
  local t0
  t0=$(date +%s)
  if [ "$HAVE_TIMEOUT" = 1 ]; then
    if [ "$outfile" = "-" ]; then
      timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
    else
      timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG" >"$outfile"
    fi
    RC=${PIPESTATUS[0]}
  else
    if [ "$outfile" = "-" ]; then
      "$@" 2>&1 | tee -a "$LOG"
    else
      "$@" 2>&1 | tee -a "$LOG" >"$outfile"
    fi
    RC=${PIPESTATUS[0]}
  fi
  ELAPSED=$(($(date +%s) - t0))
  log "-> exit code $RC after ${ELAPSED}s"
}

summarize() { "$PY" "$ROOT/benchmarks/gpu/summarize.py" "$@" 2>/dev/null || echo "(no summary)"; }

# ------------------------------------------------------------------ 1. environment
log "torchferry device checks, $(date -u +%Y-%m-%dT%H:%M:%SZ), quick=$QUICK, out=$OUT"
if command -v nvidia-smi >/dev/null 2>&1; then
  run_step 30 - nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
fi
ENV_TXT="$(mktemp)"
run_step 60 "$ENV_TXT" "$PY" -c "
import torch, platform
print('python', platform.python_version(), '| torch', torch.__version__, '| cuda build', torch.version.cuda)
ok = torch.cuda.is_available()
print('cuda available:', ok)
if ok:
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        print(f'cuda:{i}', p.name, f'{p.total_memory / 2**30:.0f} GiB', f'sm {p.major}.{p.minor}', f'{p.multi_processor_count} SMs')
"
GPU=0
grep -q "^cuda available: True" "$ENV_TXT" && GPU=1
if [ "$RC" != 0 ]; then
  add_row "environment" "FAIL($RC)" "$ELAPSED" "python cannot import torch; see log.txt"
elif [ "$GPU" = 1 ]; then
  add_row "environment" "ok" "$ELAPSED" "$(grep -m1 '^cuda:0' "$ENV_TXT")"
else
  add_row "environment" "ok" "$ELAPSED" "no CUDA GPU: GPU-only steps are skipped"
fi
rm -f "$ENV_TXT"

# ------------------------------------------------------------------ 2. bench matmul
run_step 240 - "$PY" -m torchferry bench $QFLAG --json "$OUT/bench.json" --plot "$OUT/bench.png"
if [ "$RC" = 0 ]; then
  add_row "bench matmul" "ok" "$ELAPSED" "$(summarize bench "$OUT/bench.json")"
else
  add_row "bench matmul" "FAIL($RC)" "$ELAPSED" "ferry bench exited $RC; see log.txt"
fi

# ------------------------------------------------------------------ 3. bench transfer
run_step 180 - "$PY" -m torchferry bench transfer $QFLAG --json "$OUT/transfer.json"
if [ "$RC" = 0 ] && [ "$GPU" = 1 ]; then
  add_row "bench transfer" "ok" "$ELAPSED" "$(summarize transfer "$OUT/transfer.json")"
elif [ "$RC" = 3 ] && [ "$GPU" = 0 ]; then
  add_row "bench transfer" "skipped" "$ELAPSED" "no CUDA GPU: 'ferry bench transfer' declined with exit code 3, as documented"
else
  add_row "bench transfer" "FAIL($RC)" "$ELAPSED" "ferry bench transfer exited $RC (gpu=$GPU); see log.txt"
fi

# ------------------------------------------------------------------ 4. loader overlap
run_step 150 - "$PY" benchmarks/gpu/loader_overlap.py $QFLAG --json "$OUT/loader.json"
if [ "$RC" = 0 ] || [ "$RC" = 1 ]; then
  detail=$(summarize loader "$OUT/loader.json")
  case "$detail" in
    pass\ *) add_row "loader overlap" "PASS" "$ELAPSED" "${detail#pass }" ;;
    skipped\ *) add_row "loader overlap" "skipped" "$ELAPSED" "no CUDA GPU (code exercised on the CPU)" ;;
    *) add_row "loader overlap" "FAIL" "$ELAPSED" "$detail" ;;
  esac
else
  add_row "loader overlap" "FAIL($RC)" "$ELAPSED" "loader_overlap.py exited $RC; see log.txt"
fi

# ------------------------------------------------------------------ 5. fidelity
if [ ! -f benchmarks/gpu/fidelity.py ]; then
  echo "skipped: benchmarks/gpu/fidelity.py does not exist in this checkout" >"$OUT/fidelity.txt"
  log "fidelity: skipped (benchmarks/gpu/fidelity.py not present)"
  add_row "fidelity" "skipped" "-" "benchmarks/gpu/fidelity.py not present"
elif [ "$GPU" = 0 ]; then
  echo "skipped: no CUDA GPU (fidelity compares the simulated GPU with a real one)" >"$OUT/fidelity.txt"
  log "fidelity: skipped (no CUDA GPU)"
  add_row "fidelity" "skipped" "-" "no CUDA GPU to compare the simulation with"
else
  run_step 180 "$OUT/fidelity.txt" "$PY" benchmarks/gpu/fidelity.py
  if [ "$RC" = 0 ]; then
    add_row "fidelity" "ok" "$ELAPSED" "$(tail -n 1 "$OUT/fidelity.txt" | cut -c1-120)"
  else
    add_row "fidelity" "FAIL($RC)" "$ELAPSED" "$(tail -n 1 "$OUT/fidelity.txt" | cut -c1-120)"
  fi
fi

# ------------------------------------------------------------------ 6. trips
if ! "$PY" -m torchferry run --help 2>/dev/null | grep -q -- "--trips"; then
  echo "skipped: 'ferry run --help' lists no --trips (not built in this checkout)" >"$OUT/trips.txt"
  log "trips: skipped ('ferry run --help' lists no --trips)"
  add_row "trips" "skipped" "-" "'ferry run' has no --trips here"
elif [ "$GPU" = 0 ]; then
  echo "skipped: no CUDA GPU (this step counts a real GPU's trips; the simulated ones are covered by the tests)" >"$OUT/trips.txt"
  log "trips: skipped (no CUDA GPU)"
  add_row "trips" "skipped" "-" "no CUDA GPU"
else
  TRIPS_TMP="$(mktemp -d)"
  if "$PY" -m torchferry run --help 2>/dev/null | grep -q -- "--report"; then
    run_step 120 "$OUT/trips.txt" "$PY" -m torchferry run --trips --report "$TRIPS_TMP/trips.json" benchmarks/gpu/train_loop.py
    { echo; echo "--- --report JSON ---"; cat "$TRIPS_TMP/trips.json" 2>/dev/null; } >>"$OUT/trips.txt"
  else
    run_step 120 "$OUT/trips.txt" "$PY" -m torchferry run --trips benchmarks/gpu/train_loop.py
  fi
  rm -rf "$TRIPS_TMP"
  if [ "$RC" = 0 ]; then
    add_row "trips" "ok" "$ELAPSED" "report in trips.txt ($(grep -c . "$OUT/trips.txt") lines)"
  else
    add_row "trips" "FAIL($RC)" "$ELAPSED" "ferry run --trips exited $RC; see trips.txt"
  fi
fi

# ------------------------------------------------------------------ summary (last)
write_summary final
cat "$OUT/summary.txt" >>"$LOG"
cat "$OUT/summary.txt"
[ "$FAILED" = 0 ]
