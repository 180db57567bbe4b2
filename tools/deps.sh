#!/usr/bin/env bash
# Installs the Debian packages dri needs that are missing (idempotent).
# Uses sudo when not root. Extra package names may be given as arguments:
# the optional components (README.md's table) are installed that way, e.g.
# `tools/deps.sh hpcc` for bench/ptrans_vs_hpcc.sh (HPC Challenge's PTRANS).
set -euo pipefail
pkgs=(build-essential cmake pkg-config mpich libmpich-dev libfftw3-dev doctest-dev
  libcli11-dev nlohmann-json3-dev python3-dev python3-numpy python3-pytest pybind11-dev
  abigail-tools lintian clang-format "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "dri: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
