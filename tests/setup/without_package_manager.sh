#!/usr/bin/env bash
# The set-up logic of scripts/lib.sh on a machine without a package manager (as on CUDA images
# whose CMake and Ninja come from a Python environment): with everything present it asks no
# package manager and succeeds; with something missing it says in one line what to install and
# fails, rather than calling apt-get.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# Every program on the PATH but the package managers.
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  for program in "$dir"/*; do
    name=$(basename "$program")
    case $name in apt | apt-get | apt-cache | dpkg | dpkg-query | aptitude) continue ;; esac
    [ -x "$program" ] && [ ! -e "$bin/$name" ] && ln -s "$program" "$bin/$name"
  done
done
failures=0
check() {  # name, expected status, expected stderr pattern ('' for none), then the environment
  local name=$1 status=$2 pattern=$3
  shift 3
  local err
  err=$(env "$@" PATH="$bin" bash -c "source '$root/scripts/lib.sh' && smemlab_install_deps" 2>&1 >/dev/null)
  local got=$?
  local lines
  lines=$(printf '%s' "$err" | grep -c . || true)
  if [ "$got" -ne "$status" ] || { [ -z "$pattern" ] && [ -n "$err" ]; } ||
     { [ -n "$pattern" ] && { ! grep -q -- "$pattern" <<<"$err" || [ "$lines" -ne 1 ]; }; }; then
    echo "FAIL $name: status $got (want $status), stderr: $err"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
check "everything present" 0 ""
check "a CMake package missing" 1 "the build needs: libfmt-dev" SMEMLAB_PROBE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
old=$(mktemp -d)
printf '#!/bin/sh\necho "cmake version 3.16.3"\n' >"$old/cmake"
chmod +x "$old/cmake"
rm -f "$bin/cmake" && ln -s "$old/cmake" "$bin/cmake"
check "CMake too old" 1 "the build needs: cmake"
rm -rf "$old"
echo "$((3 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
