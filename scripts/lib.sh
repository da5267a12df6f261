# Shared by the scripts: install what the build needs, configure and build. Sourced, not run.
# SMEMLAB_BUILD_DIR overrides the build folder (default: build/ in the repository).

smemlab_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
smemlab_build_dir=${SMEMLAB_BUILD_DIR:-$smemlab_root/build}

# Debian packages the build and tests need; installed only when missing and when run as root.
smemlab_packages=(cmake ninja-build g++ libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev)

smemlab_install_deps() {
  command -v dpkg-query >/dev/null || return 0
  local missing=()
  for p in "${smemlab_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages (install them as root): ${missing[*]}" >&2
    return 1
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}

smemlab_find_nvcc() {
  command -v nvcc >/dev/null && return 0
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; return 0; fi
  done
  echo "nvcc not found: install the CUDA toolkit" >&2
  return 1
}

# smemlab_build [extra cmake arguments...]
smemlab_build() {
  smemlab_find_nvcc || return 1
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$smemlab_build_dir/CMakeCache.txt" ]; then
    cmake -S "$smemlab_root" -B "$smemlab_build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" || return 1
  elif [ $# -gt 0 ]; then
    cmake "$smemlab_build_dir" "$@" || return 1
  fi
  cmake --build "$smemlab_build_dir" -j "$(nproc)"
}
