#!/usr/bin/env bash
# Installs the Debian packages hcts needs, and only those missing. Quick when all
# are present; as non-root it prints the command to run instead.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev librapidcheck-dev
  libibverbs-dev ibverbs-utils
  openmpi-bin libopenmpi-dev
  nlohmann-json3-dev libyaml-cpp-dev libssl-dev
  iproute2 util-linux procps clang-format
)
# Extra packages a component asks for (one per line in scripts/deps.d/*.txt).
here=$(cd "$(dirname "$0")" && pwd)
if compgen -G "$here/deps.d/*.txt" >/dev/null; then
  while read -r pkg; do
    [[ -n $pkg && $pkg != \#* ]] && packages+=("$pkg")
  done < <(cat "$here"/deps.d/*.txt)
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "hcts: all ${#packages[@]} packages present"
  exit 0
fi

echo "hcts: missing packages: ${missing[*]}"
if ((EUID != 0)); then
  echo "hcts: not root; run this, then try again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
