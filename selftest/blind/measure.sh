#!/usr/bin/env bash
# Measures a blind mutant set against the suite's DEFAULT gate (./hcts run, no options).
# usage (from anywhere): selftest/blind/measure.sh SET ID [ID...]   e.g. set7 M01 M02 L01
# (SET: a folder beside this script with patches/ID.patch)
# For each id: git apply patches/ID.patch, rebuild what a run needs (-j2), run
# `timeout 600 ./hcts run` (reference; plain, segment, adversarial, peers; property suite),
# and for a patch of acl_runtime/ the ACL runtime's ctests and the examples on it too,
# record exit status, wall time and the failing clauses/properties, revert the source
# (git checkout of reference_impl/ softverbs/ acl_runtime/) and rebuild.
# Appends one line per id to $BLIND_RUNS/summary.tsv (default build/blind-runs/SET, gitignored);
# logs, results.json and reports under $BLIND_RUNS/ID/.
# The source tree must be clean (apart from selftest/blind) before each id.
set -uo pipefail
here=$(cd "$(dirname "$(realpath "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
set_name=${1:?usage: measure.sh SET ID [ID...]}
shift
set_dir=$here/$set_name
[[ -d $set_dir/patches ]] || { echo "measure.sh: no $set_dir/patches; SET is a folder beside this script" >&2; exit 2; }
cd "$root" || exit 2
export HCTS_JOBS=${HCTS_JOBS:-2}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/work} CCACHE_DIR=${CCACHE_DIR:-/work/.ccache}
targets=(hcomm softverbs ascendcl hcts-conformance hcts-property hcts_adapter_ref hcts-report)
src_dirs=(reference_impl softverbs acl_runtime)
runs=${BLIND_RUNS:-$root/build/blind-runs/$set_name} # gitignored; logs, results.json, reports
mkdir -p "$runs"
[[ -f $runs/summary.tsv ]] || printf 'id\texit\tseconds\tfailing\n' >"$runs/summary.tsv"

rebuild() { cmake --build build --target "${targets[@]}" -j "$HCTS_JOBS" >>"$1" 2>&1; }

for id in "$@"; do
  patch=$set_dir/patches/$id.patch
  [[ -f $patch ]] || { echo "$id: no $patch" >&2; continue; }
  if ! git diff --quiet -- "${src_dirs[@]}"; then
    echo "source tree not clean; refusing to apply $id" >&2
    exit 2
  fi
  dir=$runs/$id
  rm -rf "$dir"
  mkdir -p "$dir"
  git apply "$patch" || { printf '%s\tapply_failed\t0\t-\n' "$id" >>"$runs/summary.tsv"; continue; }
  echo "== $id: building ($(date -u +%T))"
  if ! rebuild "$dir/build.log"; then
    status=build_failed secs=0 failing=-
  else
    echo "== $id: running the default gate ($(date -u +%T))"
    start=$(date +%s)
    timeout 600 ./hcts run --results "$dir/results.json" --reports "$dir/reports" >"$dir/run.log" 2>&1
    status=$?
    secs=$(($(date +%s) - start))
    [[ $status == 124 ]] && status=124_timeout
    failing=$(python3 "$here/failing.py" "$dir/results.json" "$dir/run.log" 2>/dev/null || echo '?')
    # The ACL runtime is not what ./hcts run judges (the conformance suite loads no
    # libascendcl): a patch of it is also run against the ACL runtime's own ctests and the
    # custom-operator examples on it, reported beside the gate's verdict.
    if grep -q '^diff --git a/acl_runtime/' "$patch"; then
      cmake --build build -j "$HCTS_JOBS" >>"$dir/build.log" 2>&1
      ctest --test-dir build -R '^(acl_|hcts_launch|examples\.)' -j "$HCTS_JOBS" --timeout 300 >"$dir/ctest.log" 2>&1
      acl=$(sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(.*/\1/p' "$dir/ctest.log" | paste -sd, -)
      failing="$failing; ACL ctests failing: ${acl:-none}"
    fi
  fi
  git checkout -- "${src_dirs[@]}"
  rebuild "$dir/revert_build.log" || echo "$id: rebuild after revert FAILED" >&2
  printf '%s\t%s\t%s\t%s\n' "$id" "$status" "$secs" "$failing" | tee -a "$runs/summary.tsv"
done
