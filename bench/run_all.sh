#!/usr/bin/env bash
# Runs every benchmark into one directory:
#
#   bench/run_all.sh [OUT_DIR] [--dry-run]        (OUT_DIR defaults to bench/results)
#
# On the GPU machine (carry [".devbundle"]):
#   source .devbundle/setup.sh && bench/run_all.sh "$OUT/bench"
#
# Writes vector_add, launch_overhead, compile_time, softmax, layer_norm, row_sum and matmul
# .json/.png, interpreter_speed.txt and a log of everything printed (run_all.log). Keeps going
# when one benchmark fails; exits 1 if any did (a benchmark fails only on a wrong result or a
# tilec crash, never on a missing competitor).
set -uo pipefail
cd "$(dirname "$0")/.."
out=bench/results
dry=()
for arg in "$@"; do
  case $arg in
    --dry-run) dry=(--dry-run) ;;
    *) out=$arg ;;
  esac
done
python=${PYTHON:-python3}
mkdir -p "$out"
status=0
{
  for bench in vector_add launch_overhead compile_time softmax layer_norm row_sum matmul; do
    echo "=== $bench"
    "$python" "bench/$bench.py" --out "$out" "${dry[@]}" || { echo "=== $bench FAILED"; status=1; }
  done
  if [[ ${#dry[@]} -eq 0 ]]; then
    echo "=== interpreter_speed (TILEC_INTERPRET=1)"
    TILEC_INTERPRET=1 "$python" bench/interpreter_speed.py | tee "$out/interpreter_speed.txt" \
      || { echo "=== interpreter_speed FAILED"; status=1; }
  fi
  echo "=== done: results in $out"
  exit $status
} 2>&1 | tee "$out/run_all.log"
exit "${PIPESTATUS[0]}"
