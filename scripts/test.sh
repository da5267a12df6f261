#!/usr/bin/env bash
# Installs the Debian packages it needs (as root), configures, builds and runs every test.
# Each test's line goes to a log in the build folder; what is printed last is what failed, why
# tests were skipped (without a GPU the gpu-labelled tests report "skipped", never "passed") and
# one line of counts. Arguments go to ctest (say -L cpu, or -R Banks).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
smemlab_install_deps
smemlab_build
log="$smemlab_build_dir/ctest.log"
junit="$smemlab_build_dir/ctest-junit.xml"
echo "smemlab: running the tests (each test's result: $log)"
status=0
ctest --test-dir "$smemlab_build_dir" --output-on-failure --output-junit "$junit" \
  -j "$(nproc)" "$@" >"$log" 2>&1 || status=$?
if [ ! -s "$junit" ]; then
  tail -n 40 "$log"
  exit $((status == 0 ? 1 : status))
fi
python3 "$smemlab_root/scripts/ctest_summary.py" "$junit" || status=$((status == 0 ? 1 : status))
exit $status
