#!/usr/bin/env bash
# Installs the Debian packages it needs (as root), configures, builds and runs every test.
# Without a GPU the gpu-labelled tests report "skipped", never "passed".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
smemlab_install_deps
smemlab_build
ctest --test-dir "$smemlab_build_dir" --output-on-failure -j "$(nproc)" "$@"
