#!/usr/bin/env bash
# The autotuned matmul variant's sweep: at each shape of the SGEMM grid, times every choice its
# model can make there (tile configuration x one block per tile, split-K, last-wave split:
# `scripts/tune_table.py candidates`) against cuBLAS in the same run, then fits the model to
# the times (`scripts/tune_table.py fit`). Writes to $OUT (default gpu-out/): tiles-parts/ (one
# report a size, kept as each finishes), tiles.json (every row) and tuning.json (the fit, which
# src/matmul/tuning_table.cpp is checked against). SMEMLAB names a built smemlab to use.
#   scripts/tune-matmul.sh [--reps N] [SIZE ...]   (default sizes: the grid below)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
smemlab=$(smemlab_binary)
reps=11
if [ "${1:-}" = --reps ]; then
  reps=$2
  shift 2
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 512 1024 2048 4095 4096 4097 8192 8192x1024x4096 1024x8192x4096
  4096x4096x1024 256x256x65536 128x128x131072 2000x3000x1000 1000 33x4096x4096 4096x33x4096)
sms=$("$smemlab" info 2>/dev/null | awk '$1 == "SMs" {print $2}')
parts="$OUT/tiles-parts"
mkdir -p "$parts"
for size in "${sizes[@]}"; do
  candidates=$(python3 "$smemlab_root/scripts/tune_table.py" candidates "$size" --sms "${sms:-132}" |
    sed 's#^#matmul-tiles/#; s#,#,matmul-tiles/#g')
  "$smemlab" bench --family matmul-tiles --variant "$candidates" --size "$size" --reps "$reps" --warmup 2 \
    --quiet --format json --output "$parts/$size.json"
done
python3 - "$OUT/tiles.json" "$parts"/*.json <<'PY'
import json, sys
reports = [json.load(open(p)) for p in sys.argv[2:]]
merged = dict(reports[0], rows=[row for r in reports for row in r["rows"]])
json.dump(merged, open(sys.argv[1], "w"), indent=1)
PY
python3 "$smemlab_root/scripts/tune_table.py" fit "$OUT/tiles.json" --output "$OUT/tuning.json"
