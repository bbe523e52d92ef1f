#!/usr/bin/env bash
# ctest install.deb: the Debian package as a vendor's machine gets it. ./hcts package
# (cpack) makes the .deb; its Depends are Debian package names apt knows, cover every library the
# package's ELF files need, and resolve (apt-get install --simulate: nothing is
# installed); the package is extracted (dpkg-deb -x) into a temporary root outside
# the source and build trees, and its usr/bin/hcts judges the reference with the
# source and build trees hidden (a tmpfs over them in a private mount namespace;
# where that is not permitted, the run's output is checked to name neither).
# usage: install_deb_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() { printf 'install.deb: %s\n' "$*" >&2; exit 1; }
step() { printf 'install.deb: %s\n' "$*"; }

work=$(mktemp -d /tmp/hcts-install-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$here/check_run.sh" "$work/" # the source tree is hidden during the run

if [[ $build == "$src/build" ]]; then
  # The default preset's tree: the package as a user makes it, with ./hcts package (its
  # set-up finds every package present and its build is current, so it only packs).
  step "./hcts package"
  made=$(HCTS_JOBS=1 "$src/hcts" package 2>"$work/cpack.log") || { cat "$work/cpack.log"; fail "./hcts package failed"; }
  [[ -f $made && $made == "$build"/package/hcts_*.deb ]] || { cat "$work/cpack.log"; fail "./hcts package printed '$made', not a .deb in $build/package"; }
  mkdir -p "$work/pkg" && cp "$made" "$work/pkg/"
else
  step "cpack -G DEB (a build tree of no preset: ./hcts package cannot name it)"
  (cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack failed"; }
fi
debs=("$work"/pkg/hcts_*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "no single hcts_*.deb in $work/pkg: ${debs[*]}"
deb=${debs[0]}
step "$(basename "$deb") ($(du -h "$deb" | cut -f1))"

depends=$(dpkg-deb --field "$deb" Depends)
[[ -n $depends ]] || fail "the package declares no Depends"
mapfile -t names < <(tr ',' '\n' <<<"$depends" | sed 's/([^)]*)//; s/|.*//; s/^ *//; s/ *$//' | grep -v '^$')
for n in "${names[@]}"; do
  candidate=$(apt-cache policy "$n" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  [[ -n $candidate && $candidate != "(none)" ]] || fail "Depends names '$n', which apt-cache policy does not know"
done
step "Depends: ${names[*]} (each known to apt)"

dpkg-deb -x "$deb" "$work/root"
usr=$work/root/usr
[[ -x $usr/bin/hcts && -f $usr/lib/hcts/libhcomm.so ]] || fail "the package has no usr/bin/hcts or usr/lib/hcts/libhcomm.so"
# Every library an ELF file of the package needs is in the package or comes from a
# package in Depends (dpkg -S on the library the loader would take).
missing=()
while read -r lib; do
  [[ -n $(find "$usr" -name "$lib" -print -quit) ]] && continue
  # awk reads all of ldconfig's output: an early exit would kill ldconfig by SIGPIPE,
  # which pipefail turns into a failed assignment (and set -e into a silent exit).
  path=$(ldconfig -p | awk -v n="$lib" '$1 == n && p == "" { p = $NF } END { print p }')
  [[ -n $path ]] || { missing+=("$lib (not on this system)"); continue; }
  owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null ||
    dpkg -S "/usr$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null || true)
  owner=${owner%%:*}
  [[ -n $owner ]] || { missing+=("$lib ($path: no package)"); continue; }
  [[ " ${names[*]} " == *" $owner "* ]] || missing+=("$lib (from $owner)")
done < <(find "$usr" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c 'head -c4 "$1" | grep -q ELF && objdump -p "$1"' _ {} \; |
  awk '/NEEDED/ { print $2 }' | sort -u)
((${#missing[@]} == 0)) || fail "libraries the package needs that its Depends do not bring: ${missing[*]}"
step "every NEEDED library is in the package or its Depends"

sim=$(apt-get install --simulate "$deb" 2>&1) || { echo "$sim"; fail "apt-get install --simulate $deb failed"; }
grep -q '^Inst hcts ' <<<"$sim" || { echo "$sim"; fail "apt-get --simulate would not install hcts"; }
step "apt-get install --simulate resolves the dependencies"

cd "$work" # the current directory must not be in a hidden tree
run=("$work/check_run.sh" "$usr/bin/hcts" "$usr/lib/hcts/libhcts_adapter_ref.so" "$work/run" "$work/run.log" "$src" "$build")
hide="mount -t tmpfs -o size=1m hcts-hidden \"\$1\" && { [[ \$2 == \"\$1\"/* ]] || mount -t tmpfs -o size=1m hcts-hidden \"\$2\"; }"
if unshare --mount --propagation private true 2>/dev/null; then
  step "running the extracted usr/bin/hcts with $src and $build hidden (private mount namespace)"
  unshare --mount --propagation private bash -c "$hide"' && [[ ! -e $1/CMakeLists.txt ]] && shift 2 && exec "$@"' \
    _ "$src" "$build" "${run[@]}"
else
  step "no private mount namespace here (unshare not permitted): the run's output must name neither $src nor $build"
  "${run[@]}"
fi
step "passed"
