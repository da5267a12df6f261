#!/usr/bin/env bash
# Builds if needed, then runs `smemlab bench` (its defaults, or the arguments given).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
smemlab_install_deps
smemlab_build >&2
exec "$smemlab_build_dir/smemlab" bench "$@"
