#!/usr/bin/env bash
# The launcher runs a harness program locally, passes its exit status through
# and builds the expected command lines.
# usage: launch_check.sh LAUNCH SELFTEST_BINARY
set -uo pipefail
launch=$1 bin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/hcts-launch-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HCTS_MPI_LOG_DIR=$work/logs
failures=0
fail() { echo "CHECK FAILED: $*"; failures=$((failures + 1)); }

"$launch" --np 2 -- "$bin" --gtest_filter=SelfTest.AllPass >"$work/out" 2>&1
rc=$?; cat "$work/out"
[[ $rc == 0 ]] || fail "passing run gave status $rc, expected 0"
grep -q '^\[ RUN      \] 1/1 SelfTest.AllPass (elapsed' "$work/out" || fail "no progress line (case k of n, elapsed)"
grep -q '^launch: finished after .* with status 0' "$work/out" || fail "no final status line"

"$launch" --np 2 -- "$bin" --gtest_filter=SelfTest.FailsOnRankOneOnly >"$work/out" 2>&1
rc=$?
[[ $rc == 1 ]] || { cat "$work/out"; fail "failing run gave status $rc, expected 1 passed through"; }

# Interrupting launch mid-case: the ranks are stopped, rank 0 records CRASH, status 143.
export HCTS_SELFTEST_RECORD=$work/record.txt
"$launch" --np 2 -- "$bin" --gtest_filter=SelfTest.WaitsForInterrupt >"$work/out" 2>&1 &
pid=$!
for _ in $(seq 200); do  # up to 20 s for MPI to start on a loaded host
  grep -q 'RUN .*SelfTest.WaitsForInterrupt' "$work/logs/rank-0.log" 2>/dev/null && break
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc == 143 ]] || { cat "$work/out"; fail "interrupted run gave status $rc, expected 143"; }
grep -q $'^CASE\tSelfTest.WaitsForInterrupt\tCRASH' "$work/record.txt" || fail "rank 0 did not record the interrupted case as CRASH"
unset HCTS_SELFTEST_RECORD

hf=$work/hosts; echo "localhost slots=2" >"$hf"
HCTS_SEED=7 "$launch" --dry-run --np 4 --hostfile "$hf" -- "$bin" >"$work/out" 2>&1
grep -q -- "--hostfile $hf -np 4 --mca pml ob1 --mca btl self,vader," "$work/out" || fail "hostfile command line: $(cat "$work/out")"
grep -q -- "-x HCTS_SEED" "$work/out" || fail "HCTS_ variables are not forwarded to other hosts"
"$launch" --dry-run --np 4 --nodes 2 -- "$bin" >"$work/out" 2>&1
grep -q -- "cluster --nodes 2 --np 4 -- $bin" "$work/out" || fail "--nodes command line: $(cat "$work/out")"
"$launch" --np 0 -- "$bin" >/dev/null 2>&1
[[ $? == 2 ]] || fail "--np 0 accepted"
"$launch" --np 2 --nodes 2 --hostfile "$hf" -- "$bin" >/dev/null 2>&1
[[ $? == 2 ]] || fail "--nodes with --hostfile accepted"

((failures)) && { echo "$failures check(s) failed"; exit 1; }
echo "launch: all checks passed"
