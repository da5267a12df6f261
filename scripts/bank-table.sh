#!/usr/bin/env bash
# Measures the bank-conflict catalogue of tools/bank_probe.cu with Nsight Compute and writes
# the table the analyzer's tests check against:
#   scripts/bank-table.sh [OUTPUT.csv]   (default: $OUT/bank_conflicts.csv, or gpu-out/)
# Copy the result to tests/data/bank_conflicts_<gpu>.csv to commit it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
output=${1:-$OUT/bank_conflicts.csv}
smemlab_build >/dev/null
probe="$smemlab_build_dir/smemlab_bank_probe"
work="$smemlab_build_dir/bank-table"
mkdir -p "$work"
"$probe" --list >"$work/catalogue.csv"
ncu --clock-control none --kernel-name regex:probe_kernel --csv \
  --metrics "$(python3 "$smemlab_root/scripts/bank_table.py" --metrics)" \
  "$probe" >"$work/ncu.csv" 2>"$work/ncu.err"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
python3 "$smemlab_root/scripts/bank_table.py" "$work/catalogue.csv" "$work/ncu.csv" "$gpu" >"$output"
echo "wrote $output ($(($(wc -l <"$output") - 2)) patterns)"
