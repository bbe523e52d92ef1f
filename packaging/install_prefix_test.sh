#!/usr/bin/env bash
# ctest install.prefix: cmake --install into BUILD/install-test/prefix (kept: the
# fixture hcts_installed hands it to other tests), the layout, --help and man pages
# of every installed program, the out-of-tree adapter example built against the
# prefix with find_package(hcts), the custom-operator example (examples/aicpu_kernel)
# built against it and run, a pkg-config compile, and the installed hcts
# judging the reference through that adapter (check_run.sh).
# usage: install_prefix_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$build/install-test prefix=$build/install-test/prefix
fail() { printf 'install.prefix: %s\n' "$*" >&2; exit 1; }
step() { printf 'install.prefix: %s\n' "$*"; }

rm -rf "$work"
mkdir -p "$work"
step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || fail "cmake --install failed (log: $work/install.log)"

programs=(hcts hcts-conformance hcts-property hcts-report hcts-bench hcts-selftest softverbs-run hcts-waits hcts-env hcts-launch)
expected=(lib/hcts/libhcomm.so lib/hcts/libhcts_adapter_ref.so lib/hcts/libhcts_programs.so
  lib/hcts/selftest/libhcts_iut_notify_early.so lib/hcts/selftest/libhcts_iut_no_wwn.so
  lib/hcts/softverbs/libibverbs.so.1 lib/hcts/softverbs/librdmacm.so.1
  lib/hcts/softverbs/sysfs/class/infiniband/softverbs0/node_guid
  libexec/hcts/mpi_harness/launch libexec/hcts/mpi_harness/cluster
  libexec/hcts/validate include/hcts/hcts_adapter.h include/hcts/hcts_programs.h include/hcts/hccl/hccl_types.h
  include/hcts/hcomm/hcomm_primitives.h lib/cmake/hcts/hctsConfig.cmake lib/cmake/hcts/hctsConfigVersion.cmake
  lib/pkgconfig/hcts-adapter.pc share/hcts/clauses.yaml share/hcts/products.yaml share/hcts/version
  share/hcts/schema/results-v1.schema.json share/hcts/selftest/shims.yaml share/hcts/bench/baselines/issue14.yaml
  share/hcts/examples/adapter/CMakeLists.txt share/doc/hcts/README.md share/doc/hcts/CHANGELOG.md)
for p in "${programs[@]}"; do expected+=("bin/$p" "share/man/man1/$p.1"); done
for f in "${expected[@]}"; do
  [[ -s $prefix/$f ]] || fail "$prefix/$f is missing or empty"
done
# The reference must not sit where the loader or a vendor's build finds it as libhcomm.so.
[[ ! -e $prefix/lib/libhcomm.so && ! -e $prefix/lib/libibverbs.so.1 && ! -e $prefix/lib/librdmacm.so.1 ]] || fail "a suite library is directly in $prefix/lib"
step "layout: ${#expected[@]} files in place"

# The installed libraries are built with the mutant seams compiled out (HCTS_MUTANT_SEAMS=0):
# no self-test mutant's id, and no HCTS_MUTANT, is left in them; the build tree's libhcomm.so,
# which keeps its seams, must show them (else this check could not see any).
ids=$(grep -rhoE 'hcts::mutant\("[a-z0-9_]+"\)' "$src/reference_impl/src" "$src/softverbs/src" |
  sed -E 's/.*\("(.*)"\)/\1/' | sort -u)
[[ -n $ids ]] || fail "no hcts::mutant guard under $src/reference_impl/src or softverbs/src: nothing to look for"
mutant_strings() { strings -a "$1" | { grep -xF -e HCTS_MUTANT -f <(printf '%s\n' "$ids") || true; } | sed -n '1,3p' | paste -sd' ' -; }
[[ -n $(mutant_strings "$build/lib/libhcomm.so") ]] || fail "the build tree's libhcomm.so shows no mutant id: the check is blind"
for lib in lib/hcts/libhcomm.so lib/hcts/softverbs/libibverbs.so.1; do
  left=$(mutant_strings "$prefix/$lib")
  [[ -z $left ]] || fail "$prefix/$lib carries mutant seams (found: $left); it must be the HCTS_MUTANT_SEAMS=0 build"
done
step "no mutant code in the installed libhcomm.so and libibverbs.so.1"

for p in "${programs[@]}"; do
  out=$(env -u LD_LIBRARY_PATH "$prefix/bin/$p" --help 2>&1) || fail "$p --help exited $?: $out"
  grep -qi 'usage' <<<"$out" || fail "$p --help prints no usage: $out"
  grep -q "^\.TH" "$prefix/share/man/man1/$p.1" || fail "share/man/man1/$p.1 is no man page"
done
# Generated on this machine, shipped to others: no page may name its source or build tree.
! grep -lF -e "$src" -e "$build" "$prefix"/share/man/man1/*.1 || fail "man pages above name $src or $build"
[[ $("$prefix/bin/hcts" --version) == "hcts $(cat "$prefix/share/hcts/version")" ]] || fail "hcts --version disagrees with share/hcts/version"
step "--help and man pages of ${programs[*]}"
out=$(env -u HCOMM_REF_LOG "$prefix/bin/hcts" env --brief --component reference_impl) || fail "hcts env exited $?: $out"
grep -qx 'HCOMM_REF_LOG=warn' <<<"$out" || fail "the installed hcts env does not list HCOMM_REF_LOG=warn: $out"
step "hcts env lists the settings"

step "the out-of-tree adapter example against the prefix (find_package(hcts))"
cmake -S "$prefix/share/hcts/examples/adapter" -B "$work/adapter" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/adapter.log" 2>&1 || { cat "$work/adapter.log"; fail "configuring the example failed"; }
cmake --build "$work/adapter" >>"$work/adapter.log" 2>&1 || { cat "$work/adapter.log"; fail "building the example failed"; }
adapter=$work/adapter/libmy_adapter.so
[[ -f $adapter ]] || fail "the example built no $adapter"
# Its headers came from the prefix, not from this source tree.
grep -q -- "-I$prefix/include/hcts\|-isystem $prefix/include/hcts" "$work/adapter/compile_commands.json" 2>/dev/null ||
  grep -rq -- "$prefix/include/hcts" "$work/adapter/build.ninja" || fail "the example did not compile against $prefix/include/hcts"
! grep -rq -- "$src/core\|$src/include" "$work/adapter/build.ninja" || fail "the example compiled against the source tree"

step "the custom-operator example against the prefix (hcts::ascendcl, hcts::hcomm, hcts_add_aicpu_kernel)"
op=$work/aicpu_kernel
cmake -S "$prefix/share/hcts/examples/aicpu_kernel" -B "$op" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/aicpu_kernel.log" 2>&1 || { cat "$work/aicpu_kernel.log"; fail "configuring the kernel example failed"; }
cmake --build "$op" >>"$work/aicpu_kernel.log" 2>&1 || { cat "$work/aicpu_kernel.log"; fail "building the kernel example failed"; }
[[ -f $op/libcopy_kernel.so ]] || fail "hcts_add_aicpu_kernel built no $op/libcopy_kernel.so"
! grep -rq -- "$src/include\|$src/acl_runtime\|$build/lib" "$op/build.ninja" || fail "the kernel example built against the source or build tree"
out=$(env -u LD_LIBRARY_PATH HCCL_BUFFSIZE=8 timeout 60 "$op/copy_op" 2>&1) || fail "the kernel example exited $?: $out"
grep -q "copied 12293 bytes" <<<"$out" || fail "the kernel example did not report its copy: $out"

step "pkg-config hcts-adapter"
cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags hcts-adapter) || fail "pkg-config finds no hcts-adapter"
read -r -a words <<<"$cflags"
[[ ${#words[@]} == 1 && ${words[0]} == -I* && $(realpath "${words[0]#-I}") == "$(realpath "$prefix/include/hcts")" ]] ||
  fail "pkg-config --cflags hcts-adapter is '$cflags', expected -I$prefix/include/hcts (or a path to it)"
printf '#include "hcts_adapter.h"\n#include "hcts_programs.h"\n#include "hccl/hccl_types.h"\n#include "hcomm/hcomm_primitives.h"\nint main(void) { return (int)sizeof(hcts_adapter_v2); }\n' >"$work/pc.c"
# shellcheck disable=SC2086 # the flags are words
cc -std=c11 $cflags -c "$work/pc.c" -o "$work/pc.o" || fail "the adapter headers do not compile with pkg-config's flags"

step "the installed hcts launch runs a program with the installed libraries and the caller's environment"
HCTS_INSTALL_TEST_PASSTHROUGH=kept "$prefix/bin/hcts" launch --np 2 --timeout-ms 60000 -- env >"$work/launch.log" 2>&1 ||
  fail "hcts launch --np 2 -- env failed (log: $work/launch.log)"
grep -qx "LD_LIBRARY_PATH=$prefix/lib/hcts/softverbs:$prefix/lib/hcts.*" "$work/launch.log" ||
  fail "hcts launch did not put $prefix/lib/hcts/softverbs and $prefix/lib/hcts first on LD_LIBRARY_PATH (log: $work/launch.log)"
[[ $(grep -cx 'HCTS_INSTALL_TEST_PASSTHROUGH=kept' "$work/launch.log") == 2 ]] ||
  fail "hcts launch did not pass the caller's environment to both ranks (log: $work/launch.log)"

step "the installed hcts judges the reference through the example adapter"
"$here/check_run.sh" "$prefix/bin/hcts" "$adapter" "$work/run" "$work/run.log" \
  "$src/mpi_harness" "$src/selftest" "$src/conformance" "$build/bin" "$build/lib"
step "passed"
