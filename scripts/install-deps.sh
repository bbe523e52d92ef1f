#!/usr/bin/env bash
# Installs the Debian packages hcts needs, and only those missing. Quick when all
# are present; as non-root it prints the command to run instead.
#   install-deps.sh [run|test]
#   run   what building and ./hcts run need: compiler, CMake, GoogleTest, RapidCheck,
#         MPI, verbs headers, the JSON/YAML/CLI/archive libraries (scripts/deps.d/run/)
#   test  that and the test toolchain every ctest uses (scripts/deps.d/test/): perftest,
#         qperf, UCX, libfabric, pyverbs, chromium, groovy, clang for fuzzing... (default)
set -euo pipefail

purpose=${1:-test}
case $purpose in
  run) dirs=(run) ;;
  test) dirs=(run test) ;;
  *) echo "install-deps.sh: unknown purpose '$purpose'; allowed: run, test" >&2; exit 2 ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev librapidcheck-dev
  libibverbs-dev
  openmpi-bin libopenmpi-dev
  nlohmann-json3-dev libyaml-cpp-dev libssl-dev
  iproute2 util-linux procps
)
# Extra packages a component asks for (one per line in scripts/deps.d/{run,test}/*.txt).
here=$(cd "$(dirname "$0")" && pwd)
for d in "${dirs[@]}"; do
  compgen -G "$here/deps.d/$d/*.txt" >/dev/null || continue
  while read -r pkg; do
    [[ -n $pkg && $pkg != \#* ]] && packages+=("$pkg")
  done < <(cat "$here"/deps.d/"$d"/*.txt)
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "hcts: all ${#packages[@]} packages for $purpose present"
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
