#!/usr/bin/env bash
# Installs the Debian packages it needs (as root), configures, builds and runs every test.
# Each test's line goes to a log in the build folder; what is printed last is what failed, why
# tests were skipped (without a GPU the gpu-labelled tests report "skipped", never "passed") and
# one line of counts. Other arguments go to ctest (say -L cpu, or -R Banks).
#   scripts/test.sh [--sanitize | --thread] [ctest arguments...]
# --sanitize: the host code built with AddressSanitizer and UndefinedBehaviorSanitizer in its own
# folder (build-sanitize/), and the CPU tests run there.
# --thread: the host code built with ThreadSanitizer (build-thread/), and the test that calls
# every variant from 8 threads at once run there (it needs a GPU).
set -euo pipefail
sanitize=""
case "${1:-}" in
  --sanitize) sanitize=address ;;
  --thread) sanitize=thread ;;
esac
if [ -n "$sanitize" ]; then
  shift
  folder=$([ $sanitize = address ] && echo build-sanitize || echo build-thread)
  export SMEMLAB_BUILD_DIR=${SMEMLAB_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/$folder}
fi
source "$(dirname "$0")/lib.sh"
smemlab_install_deps
ctest_args=("$@")
if [ "$sanitize" = address ]; then
  flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
  smemlab_build "-DCMAKE_CXX_FLAGS=$flags" \
    "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
  # The CUDA runtime maps memory where ASan keeps its shadow's gap, and keeps allocations for
  # the process's life.
  export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
  # The consumer project links the installed library without the sanitizer runtime.
  ctest_args=(-L cpu -E consumer_project "${ctest_args[@]}")
elif [ "$sanitize" = thread ]; then
  # The launch wrappers in .cu files too: their host code calls the one-time set-up.
  flags="-fsanitize=thread -g"
  smemlab_build "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_CUDA_FLAGS=-Xcompiler=-fsanitize=thread" \
    "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
  export TSAN_OPTIONS="halt_on_error=1 suppressions=$smemlab_root/tests/tsan.supp"
  ctest_args=(-R ContractThreads "${ctest_args[@]}")
else
  smemlab_build
fi
log="$smemlab_build_dir/ctest.log"
junit="$smemlab_build_dir/ctest-junit.xml"
echo "smemlab: running the tests (each test's result: $log)"
status=0
ctest --test-dir "$smemlab_build_dir" --output-on-failure --output-junit "$junit" \
  -j "$(nproc)" "${ctest_args[@]}" >"$log" 2>&1 || status=$?
if [ ! -s "$junit" ]; then
  tail -n 40 "$log"
  exit $((status == 0 ? 1 : status))
fi
python3 "$smemlab_root/scripts/ctest_summary.py" "$junit" || status=$((status == 0 ? 1 : status))
exit $status
