# Shared by the scripts: install what the build needs, configure and build. Sourced, not run.
# SMEMLAB_BUILD_DIR overrides the build folder (default: build/ in the repository).

smemlab_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
smemlab_build_dir=${SMEMLAB_BUILD_DIR:-$smemlab_root/build}

smemlab_cmake_minimum=3.24

# What the build needs, found however it was installed (Debian packages, a Python or conda
# environment, a CUDA image): prints the missing pieces as Debian package names, one a line.
smemlab_missing() {
  local version
  version=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
  if [ -z "$version" ] || [ "$(printf '%s\n%s\n' "$smemlab_cmake_minimum" "$version" | sort -V | head -1)" != "$smemlab_cmake_minimum" ]; then
    echo cmake
    return  # the probe below needs CMake
  fi
  command -v ninja >/dev/null || command -v make >/dev/null || echo ninja-build
  local probe
  probe=$(mktemp -d)
  # SMEMLAB_PROBE_ARGS: more CMake arguments, as for the build (say -DCMAKE_PREFIX_PATH=...).
  if ! cmake -S "$smemlab_root/cmake/probe" -B "$probe" ${SMEMLAB_PROBE_ARGS:-} >"$probe/log" 2>&1; then
    echo g++  # no working C++ compiler
  else
    sed -n 's/^-- missing //p' "$probe/log" | sed -e 's/^c++20$/g++/' -e 's/^CLI11$/libcli11-dev/' \
      -e 's/^fmt$/libfmt-dev/' -e 's/^nlohmann_json$/nlohmann-json3-dev/' -e 's/^GTest$/libgtest-dev/'
  fi
  rm -rf "$probe"
}

# Installs what is missing when it can (root and apt-get); otherwise says in one line what to
# install. Nothing is installed, and no package manager is asked, when nothing is missing.
smemlab_install_deps() {
  local missing
  missing=$(smemlab_missing | sort -u | tr '\n' ' ')
  missing=${missing% }
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "smemlab: installing $missing" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing && return 0
  fi
  echo "smemlab: the build needs: $missing (Debian/Ubuntu packages; CMake >= $smemlab_cmake_minimum, Ninja, a C++20 compiler and the CMake packages CLI11, fmt, nlohmann_json and GTest may come from anywhere CMake finds them)" >&2
  return 1
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

# The smemlab to run: $SMEMLAB when set, else the build folder's, built first.
smemlab_binary() {
  if [ -n "${SMEMLAB:-}" ]; then
    echo "$SMEMLAB"
    return
  fi
  smemlab_build >/dev/null || return 1
  echo "$smemlab_build_dir/smemlab"
}
