#!/usr/bin/env bash
# Install what hrace needs to build and run, on Debian 12 (or a derivative with the same package
# names), and only what is missing: Open MPI, LLVM's libomp (OMPT), libelf/libdw (symbols),
# clang (instrumentation), llvm-14-dev (headers and CMake config for hrace's clang 14 pass
# plugin, tools/hrace-pass; without it the build skips the plugin), pkg-config and make. With --test, also what only the test suite
# needs: clang-16 (its instrumentation emits the __tsan_mem* family clang 14 does not),
# MPICH (a second libhrace is built and tested against it; Open MPI keeps the mpicc / mpirun
# alternatives), python3's jsonschema (validates SARIF) and chromium (tests/tools/test_html.py
# loads `hrace --html` pages in it, headless) and clang 14's libFuzzer runtime, libclang-rt-14-dev
# (tests/fuzz). Idempotent; a no-op when all is there.
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail

packages=(openmpi-bin libopenmpi-dev libomp-14-dev libelf-dev libdw-dev clang llvm-14-dev pkg-config make)
testing=0
case "${1:-}" in
  --test) testing=1; packages+=(clang-16 mpich libmpich-dev chromium libclang-rt-14-dev) ;;
  "") ;;
  *) echo "install-deps: unknown option '$1' (usage: install-deps.sh [--test])" >&2; exit 2 ;;
esac

installed() {   # installed PACKAGE-PATTERN: true if a package matching it is installed
  dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qx installed
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: not a Debian-like system (no dpkg-query/apt-get): install yourself" \
       "${packages[*]} (or their equivalents), then build." >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if [[ $p == libomp-14-dev ]]; then
    # Any libomp-N-dev of LLVM 14 or newer will do.
    installed 'libomp-1[4-9]-dev' || installed 'libomp-[2-9][0-9]-dev' || missing+=("$p")
  else
    installed "$p" || missing+=("$p")
  fi
done
# The tests run python3 from PATH; Debian's package serves it when it has no jsonschema itself.
if ((testing)) && ! python3 -c 'import jsonschema' >/dev/null 2>&1 && ! installed python3-jsonschema; then
  missing+=(python3-jsonschema)
fi
if ((testing)) && ! python3 -c 'import yaml' >/dev/null 2>&1 && ! installed python3-yaml; then
  missing+=(python3-yaml)   # tests/tools/test_ci_docs.py reads docs/ci.md's CI snippets
fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: all dependencies are installed"
  exit 0
fi

sudo=()
if ((EUID != 0)); then
  command -v sudo >/dev/null 2>&1 ||
    { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
