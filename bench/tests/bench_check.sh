#!/usr/bin/env bash
# bench_check.sh runs|baseline_violation SOURCE_DIR HCTS_BENCH WORK_DIR
#   runs: a tiny run exits 0 and writes results.json that validates, with a
#         bench section holding every method at every size;
#   baseline_violation: an impossible ratio exits 3 and prints the values.
set -euo pipefail
what=$1 src=$2 bench=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "bench_check: $*" >&2; exit 1; }
tiny=(--sizes 8,4K --iterations 4 --samples 2 --window 2 --results "$work/results.json")
status=0
case $what in
  runs)
    "$src/mpi_harness/launch" --np 2 -- "$bench" "${tiny[@]}" >"$work/out.txt" 2>&1 || status=$?
    cat "$work/out.txt"
    ((status == 0)) || fail "hcts-bench exited $status, expected 0"
    "$src/reports/schema/validate" "$work/results.json" || fail "results.json does not validate"
    python3 - "$work/results.json" <<'PY' || fail "the bench section is incomplete"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["kind"] == "bench" and d["run"]["status"] == "complete", d["run"]
b = d["bench"]
got = {(m["method"], m["test"], m["size"]) for m in b["measurements"] if m["samples"] == 2 and "error" not in m}
want = {(m, t, s) for m in ("hcomm", "verbs", "mpi_osc", "memcpy") for t in ("latency", "bandwidth") for s in (8, 4096)}
assert want <= got, sorted(want - got)
PY
    ;;
  baseline_violation)
    cat >"$work/baseline.yaml" <<'YAML'
impossible: {metric: latency, size: 8, hcomm_over: memcpy, max: 0.000001}
fine: {metric: latency, size: 8, hcomm_over: memcpy, stat: best, min: 1}
YAML
    "$src/mpi_harness/launch" --np 2 -- "$bench" "${tiny[@]}" --methods hcomm,memcpy --baseline "$work/baseline.yaml" \
      >"$work/out.txt" 2>&1 || status=$?
    cat "$work/out.txt"
    ((status == 3)) || fail "hcts-bench exited $status with a violated baseline, expected 3"
    grep -Eq 'FAIL +impossible latency at 8 B: hcomm [0-9.e+-]+ / memcpy [0-9.e+-]+ = ' "$work/out.txt" ||
      fail "the violated ratio and its values were not printed"
    grep -Eq 'ok +fine +latency \(best\) at 8 B' "$work/out.txt" || fail "the held 'stat: best' ratio was not printed"
    # Usage errors exit 2 before MPI starts, naming the wrong value and what is allowed.
    status=0
    "$bench" --sizes 8,0 >"$work/usage.txt" 2>&1 || status=$?
    ((status == 2)) && grep -q "message size '0'" "$work/usage.txt" || fail "--sizes 8,0: exit $status, expected 2"
    echo 'x: {metric: speed, size: 8, hcomm_over: verbs, max: 1}' >"$work/bad.yaml"
    status=0
    "$bench" --baseline "$work/bad.yaml" >"$work/usage.txt" 2>&1 || status=$?
    ((status == 2)) && grep -q "metric 'speed'; allowed: latency" "$work/usage.txt" ||
      fail "a baseline with an unknown metric: exit $status, expected 2"
    "$src/reports/schema/validate" "$work/results.json" || fail "results.json does not validate"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["summary"]["gate"] != "fail" or d["bench"]["baseline"]["held"])' \
      "$work/results.json" || fail "results.json does not record the violated baseline (bench.baseline.held, summary.gate)"
    ;;
  *) fail "unknown check '$what'; allowed: runs, baseline_violation" ;;
esac
echo "bench_check: $what ok"
