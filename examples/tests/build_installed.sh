#!/usr/bin/env bash
# ctest examples.build (fixture hcts_examples_built): installs this build into
# BUILD/examples-test/prefix, then configures and builds the installed custom-operator
# examples (share/hcts/examples/{allgather_wwn,broadcast,template_allgather}) against that prefix with
# find_package(hcts), as a user outside this tree would. The example tests run what it built.
# usage: build_installed.sh SOURCE_DIR BUILD_DIR [CMAKE_ARG...]   (the compiler and flags of
# this build, so a sanitizer build's examples link its sanitized libraries)
set -euo pipefail
src=$1 build=$2
shift 2
work=$build/examples-test prefix=$build/examples-test/prefix
fail() { printf 'examples.build: %s\n' "$*" >&2; exit 1; }
step() { printf 'examples.build: %s\n' "$*"; }

rm -rf "$work"
mkdir -p "$work"
start=$SECONDS
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log"; fail "cmake --install $build failed (log: $work/install.log)"; }
step "installed into $prefix in $((SECONDS - start)) s"

for name in allgather_wwn broadcast template_allgather; do
  start=$SECONDS
  dir=$prefix/share/hcts/examples/$name
  [[ -f $dir/CMakeLists.txt ]] || fail "$dir/CMakeLists.txt is not installed"
  extra=()
  [[ $name == allgather_wwn ]] && extra+=(-DALLGATHER_WWN_BROKEN_VARIANT=ON)
  cmake -S "$dir" -B "$work/$name" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "${extra[@]}" "$@" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; fail "configuring $dir failed"; }
  cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "building $dir failed"; }
  # Headers, libraries and the cmake package came from the prefix, never from this tree.
  ! grep -q -- "$src/include\|$src/acl_runtime\|$build/lib" "$work/$name/build.ninja" ||
    fail "$name was built against the source or build tree ($work/$name/build.ninja)"
  step "$name built against the prefix in $((SECONDS - start)) s"
done
