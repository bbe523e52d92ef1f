#!/usr/bin/env bash
# Runs one harness self-test scenario under mpirun and judges it from outside:
# exit status, wall time, rank 0's records (on_case/on_abort) and per-rank files.
# usage: check.sh MPIEXEC SELFTEST_BINARY SCENARIO   (SCENARIO: agree | hang | kill | crash | stall)
# Runs go through mpi_harness/launch, the one place that knows the mpirun flags.
set -uo pipefail
mpiexec=$1 bin=$2 scenario=$3
launch=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/launch
work=$(mktemp -d "${TMPDIR:-/tmp}/hcts-mpi-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HCTS_MPI_LOG_DIR=$work/logs HCTS_SELFTEST_RECORD=$work/record.txt
failures=0
fail() { echo "CHECK FAILED: $*"; failures=$((failures + 1)); }
expect_line() {  # file, extended regex, what
  grep -Eq -- "$2" "$1" 2>/dev/null || fail "$3 (no line matching '$2' in ${1##*/})"
}

run() {  # np, filter
  local start=$SECONDS
  HCTS_MPIRUN=$mpiexec "$launch" --np "$1" -- "$bin" --gtest_filter="$2" >"$work/out.txt" 2>"$work/err.txt"
  rc=$?
  elapsed=$((SECONDS - start))
  echo "--- $scenario: mpirun -np $1 --gtest_filter=$2 -> exit $rc after ${elapsed} s; rank 0's console:"
  cat "$work/out.txt"
  echo "--- records:"; cat "$HCTS_SELFTEST_RECORD" 2>/dev/null
}

case $scenario in
  agree)
    np=${HCTS_CHECK_NP:-3}
    run "$np" 'SelfTest.AllPass:SelfTest.FailsOnRankOneOnly:SelfTest.PhaseBarrierHoldsEveryone'
    payloads=''
    for ((r = 0; r < np; r++)); do payloads+="r$r:AllPass,"; done
    [[ $rc == 1 ]] || fail "exit status $rc, expected 1 (a case failed)"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.AllPass\tPASS' "AllPass agreed as PASS"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.AllPass\tPASS\tmessages-from=\tpayloads='"$payloads"'$' \
      "every rank's payload reaches rank 0 in rank order"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.FailsOnRankOneOnly\tFAIL\tmessages-from=1,\t' \
      "a failure on rank 1 only is FAIL, with rank 1's message only"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.PhaseBarrierHoldsEveryone\tPASS' "the phase barrier held"
    expect_line "$work/out.txt" '^\[rank 1\] .*selftest.cpp' "rank 0 prints rank 1's message rank-tagged"
    expect_line "$work/out.txt" 'deliberate failure on rank 1 only' "rank 0 prints the message text"
    expect_line "$work/out.txt" 'deadline 90000 ms per case' "set_default_case_deadline applies"
    # Only rank 0 prints: three RUN lines, not three per rank.
    runs=$(grep -c '^\[ RUN' "$work/out.txt")
    [[ $runs == 3 ]] || fail "$runs RUN lines on the console, expected 3 (rank 0 only)"
    for ((r = 1; r < np; r++)); do
      expect_line "$work/logs/rank-$r.log" '^agreed verdict: FAIL$' "rank $r counts the agreed FAIL"
    done
    ;;
  hang)
    run 3 'SelfTest.AllPass:SelfTest.Hangs:SelfTest.SentinelAfterHang'
    [[ $rc == 124 ]] || fail "exit status $rc, expected 124 (watchdog TIMEOUT)"
    ((elapsed <= 25)) || fail "the job took $elapsed s; deadline 2 s + grace should end it well within 25 s"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.AllPass\tPASS' "the case before the hang is kept"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.Hangs\tTIMEOUT' "the hanging case is TIMEOUT"
    expect_line "$HCTS_SELFTEST_RECORD" $'^ABORT\twatchdog' "rank 0 announces the abort"
    grep -q 'SentinelAfterHang' "$HCTS_SELFTEST_RECORD" && fail "a case after the TIMEOUT ran"
    expect_line "$work/out.txt" '^ranks that never reported: 1$' "rank 0 names the silent rank"
    for r in 0 1 2; do
      d=$work/logs/rank-$r.diagnostics.txt
      expect_line "$d" '^case: SelfTest.Hangs ' "rank $r's diagnostics name the case"
      expect_line "$d" '\[watchdog\]' "rank $r's diagnostics have the watchdog thread's backtrace"
      expect_line "$work/err.txt" "^hcts-mpi: rank $r on .*diagnostics in" "rank $r says where its diagnostics are"
    done
    expect_line "$work/logs/rank-1.diagnostics.txt" '^HcommWriteWithNotifyOnThread\(.*\) rank 1$' \
      "the hanging rank's diagnostics have its registered provider's output"
    for r in 0 2; do  # these finished the body and wait for rank 1 in the agreement
      expect_line "$work/logs/rank-$r.diagnostics.txt" 'detail5agree' "rank $r's backtrace shows it waiting in the agreement"
    done
    expect_line "$work/logs/rank-1.diagnostics.txt" 'nanosleep' "the stuck rank's main-thread backtrace shows where it hangs"
    ;;
  kill)
    run 3 'SelfTest.AllPass:SelfTest.RankKilledMidTransfer'
    [[ $rc != 0 ]] || fail "exit status 0 although rank 1 was killed"
    ((elapsed <= 25)) || fail "the job took $elapsed s; the case deadline is 6 s"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.AllPass\tPASS' "the case before the kill is kept"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.RankKilledMidTransfer\t(CRASH|TIMEOUT|FAIL)\t' \
      "the case with the killed rank has a failure verdict"
    expect_line "$HCTS_SELFTEST_RECORD" $'^ABORT\t' "rank 0 announces the end of the job"
    ;;
  crash)
    run 2 'SelfTest.AllPass:SelfTest.RankZeroCrashes'
    [[ $rc != 0 ]] || fail "exit status 0 although rank 0 crashed"
    ((elapsed <= 25)) || fail "the job took $elapsed s; the case deadline is 10 s"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.AllPass\tPASS' "the case before the crash is kept"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.RankZeroCrashes\tCRASH\t' "rank 0 records its own crash"
    expect_line "$HCTS_SELFTEST_RECORD" $'^ABORT\tfatal signal 11' "rank 0 announces the end of the job"
    expect_line "$work/logs/rank-0.diagnostics.txt" '^=== hcts-mpi: rank 0, pid [0-9]+: fatal signal 11' "rank 0's diagnostics name the signal"
    expect_line "$work/logs/rank-0.diagnostics.txt" '_ZN7testing4Test3RunEv' "rank 0's diagnostics have the crashing thread's stack"
    ;;
  stall)
    # Rank 1 stalls while it produces the case's payload (what a suite merges into
    # its results): the watchdog still covers it, so the case ends as TIMEOUT.
    export HCTS_SELFTEST_STALL_PAYLOAD=1
    run 2 'SelfTest.AllPass:SelfTest.StallsInPayload'
    [[ $rc == 124 ]] || fail "exit status $rc, expected 124 (watchdog TIMEOUT)"
    ((elapsed <= 25)) || fail "the job took $elapsed s; the case deadline is 3 s"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.AllPass\tPASS' "the case before the stall is kept"
    expect_line "$HCTS_SELFTEST_RECORD" $'^CASE\tSelfTest.StallsInPayload\tTIMEOUT' "the stalled merge is TIMEOUT"
    expect_line "$work/out.txt" '^ranks that never reported: 1$' "rank 0 names the stalled rank"
    ;;
  *) echo "unknown scenario '$scenario'; allowed: agree, hang, kill, crash, stall"; exit 2 ;;
esac

if ((failures)); then
  echo "--- stderr:"; cat "$work/err.txt"
  for f in "$work"/logs/*; do echo "--- ${f##*/}:"; cat "$f"; done
  echo "$scenario: $failures check(s) failed"
  exit 1
fi
echo "$scenario: all checks passed"
