#!/usr/bin/env bash
# The tests of `hcts launch` (ctest label launch): launch_test.sh HCTS BUILD_DIR PROBE CASE
#   deadlock   both ranks wait on a channel notify and a thread notify nobody records:
#              at the deadline (3000 ms) the output names each waiting thread, its peer
#              rank and notify index, and the peer's last record on the channel; status 124
#   interrupt  the same job without a deadline, sent SIGTERM: the same report, status 143
#   status     a passing program's 0 and a failing program's 7 come back; the program's
#              environment (--np and --devices)
#   bad_input  wrong options are refused (status 2) with the value and what is allowed
#   acl_deadlock  (PROBE: acl_wait_probe) one process, 2 devices: device 0's stream waits
#              for an event device 1's stream records behind its wait for a notify that
#              device 0's stream records behind its own wait. At the deadline the report
#              names both streams' waits (event, notify, nothing recorded) and both host
#              threads in aclrtSynchronizeStream, under their ranks; status 124
set -uo pipefail
hcts=$1 build=$2 probe=$3 case=$4
export HCTS_BUILD_DIR=$build
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0
check() { # check DESCRIPTION REGEX: the last output matches REGEX
  if grep -Eq -- "$2" "$out"; then echo "ok: $1"; else echo "FAILED: $1 (no line matches /$2/)"; failed=1; fi
}
status_is() { # status_is WANT GOT WHAT
  if [[ $2 == "$1" ]]; then echo "ok: $3 exits $1"; else echo "FAILED: $3 exits $2, expected $1"; failed=1; fi
}
run() { # run ARGS...: hcts launch ARGS, output in $out, status in $rc
  local t0=$SECONDS
  rc=0
  "$hcts" launch "$@" >"$out" 2>&1 </dev/null || rc=$?
  echo "--- hcts launch $* (exit $rc, $((SECONDS - t0)) s):"
  sed 's/^/    /' "$out"
}

case $case in
  deadlock)
    run --np 2 --timeout-ms 3000 -- "$probe" deadlock
    status_is 124 "$rc" "a deadlocked job"
    check "the deadline is reported" 'deadline \(3000 ms\) passed'
    for r in 0 1; do
      p=$((r ^ 1))
      check "rank $r has its section" \
        "^rank $r \\(pid [0-9]+\\):\$"
      check "rank $r waits on notify 3 from peer rank $p" \
        "^  thread 0x[0-9a-f]+ \\(tid [0-9]+\\) waits on channel 0x[0-9a-f]+ to peer rank $p, notify 3 of 4, for [0-9.]+ s \\(timeOut 60\\)\$"
      check "peer rank $p's last record on the channel is notify 2" \
        "^    last record by peer rank $p on this channel: notify 2, [0-9.]+ s ago \\(2 notify\\(s\\) received\\)\$"
    done
    [[ $(grep -cE '^  thread 0x[0-9a-f]+ \(tid [0-9]+\) waits on its thread notify 1 of 2, for [0-9.]+ s \(timeOut 60\)$' "$out") == 2 ]] &&
      echo "ok: each rank's second thread waits on its thread notify 1" ||
      { echo "FAILED: not two thread notify waits on notify 1 of 2"; failed=1; }
    check "exactly four blocked waits" '4 blocked wait\(s\)'
    ;;
  acl_deadlock)
    run --devices 2 --timeout-ms 20000 -- "$probe" pass
    status_is 0 "$rc" "the streams without the cycle"
    check "every call succeeded" 'acl_wait_probe: pass, 0 failure'
    run --devices 2 --timeout-ms 3000 -- "$probe" deadlock
    status_is 124 "$rc" "a job deadlocked through ACL waits"
    for d in 0 1; do
      check "rank $d (device $d) has its section" "^rank $d \\(pid [0-9]+\\):\$"
      check "device $d's host thread waits in aclrtSynchronizeStream on its 2 tasks" \
        "^  host thread \\(tid [0-9]+\\) waits in aclrtSynchronizeStream for stream 0x[0-9a-f]+ of device $d: 2 task\\(s\\) queued or running, for [0-9.]+ s \\(no timeout\\)\$"
    done
    check "device 0's stream waits on the event's first record" \
      "^  stream 0x[0-9a-f]+ of device 0 \\(worker tid [0-9]+\\) waits \\(aclrtStreamWaitEvent\\) on event 0x[0-9a-f]+, for its record 1, for [0-9.]+ s\$"
    check "device 1's stream waits on the notify" \
      "^  stream 0x[0-9a-f]+ of device 1 \\(worker tid [0-9]+\\) waits \\(aclrtWaitAndResetNotify\\) on notify 0x[0-9a-f]+, for [0-9.]+ s \\(no timeout\\)\$"
    check "nobody recorded the event" '^    last record of event 0x[0-9a-f]+: none'
    check "nobody recorded the notify" '^    last record of notify 0x[0-9a-f]+: none'
    check "exactly four blocked waits" '4 blocked wait\(s\)'
    ;;
  interrupt)
    # No deadline: SIGTERM to hcts launch (as ctest's timeout or a Ctrl-C would) reports
    # who waits for what before it ends the job, and exits 128 + 15.
    rc=0
    "$hcts" launch --np 2 -- "$probe" deadlock >"$out" 2>&1 </dev/null &
    pid=$!
    sleep 3
    kill -TERM "$pid"
    for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    wait "$pid" || rc=$?
    echo "--- hcts launch --np 2 -- $probe deadlock, SIGTERM after 3 s (exit $rc):"
    sed 's/^/    /' "$out"
    status_is 143 "$rc" "an interrupted job"
    check "the interrupt is reported" 'interrupted \(signal 15\) while the job still runs'
    check "rank 0 waits on notify 3 from peer rank 1" \
      "^  thread 0x[0-9a-f]+ \\(tid [0-9]+\\) waits on channel 0x[0-9a-f]+ to peer rank 1, notify 3 of 4, "
    check "exactly four blocked waits" '4 blocked wait\(s\)'
    ;;
  status)
    run --np 2 --timeout-ms 20000 -- "$probe" pass
    status_is 0 "$rc" "a passing program"
    check "both ranks ran" 'launch_probe rank 1: pass'
    run --np 2 --timeout-ms 20000 -- "$probe" fail 7
    status_is 7 "$rc" "a program that exits 7"
    # The environment a program gets: the caller's, the libraries' directories first on
    # LD_LIBRARY_PATH (softverbs, then the reference and the ACL runtime), the wait report.
    export HCTS_LAUNCH_TEST_PASSTHROUGH=kept
    run --np 2 --timeout-ms 20000 -- env
    status_is 0 "$rc" "env under mpirun"
    check "the caller's environment reaches the ranks" '^HCTS_LAUNCH_TEST_PASSTHROUGH=kept$'
    check "softverbs and the build's libraries come first on LD_LIBRARY_PATH" "^LD_LIBRARY_PATH=$build/lib/softverbs:$build/lib(:|\$)"
    check "the wait report is on" '^HCOMM_REF_WAIT_REPORT=/'
    [[ -f $build/lib/libascendcl.so ]] && echo "ok: libascendcl.so is in $build/lib" || { echo "FAILED: no $build/lib/libascendcl.so"; failed=1; }
    run --devices 3 --timeout-ms 20000 -- env
    status_is 0 "$rc" "env in one process with 3 devices"
    check "one process sees 3 devices" '^HCTS_ACL_DEVICES=3$'
    check "the caller's environment reaches it" '^HCTS_LAUNCH_TEST_PASSTHROUGH=kept$'
    [[ $(grep -c '^HCTS_LAUNCH_TEST_PASSTHROUGH=' "$out") == 1 ]] && echo "ok: one process" || { echo "FAILED: not one process"; failed=1; }
    # Unregistered user memory as the local side: accepted with a warning as on the device,
    # unless the caller chose.
    check "device programs may use unregistered user memory, as on the device" '^HCOMM_REF_LOCAL_UNREGISTERED=warn$'
    HCOMM_REF_LOCAL_UNREGISTERED=refuse run --devices 1 --timeout-ms 20000 -- env
    status_is 0 "$rc" "env with HCOMM_REF_LOCAL_UNREGISTERED=refuse"
    check "the caller's choice of HCOMM_REF_LOCAL_UNREGISTERED stands" '^HCOMM_REF_LOCAL_UNREGISTERED=refuse$'
    ;;
  bad_input)
    run --np 0 -- "$probe" pass
    status_is 2 "$rc" "--np 0"
    check "--np 0 names the value and the range" "--np must be a whole number in \\[1, 9999\\], got '0'"
    run --devices 99 -- "$probe" pass
    status_is 2 "$rc" "--devices 99"
    check "--devices 99 names the value and the range" "--devices must be a whole number in \\[1, 64\\], got '99'"
    run --devices 2 --np 2 -- "$probe" pass
    status_is 2 "$rc" "--devices with --np"
    check "--devices with --np says they exclude each other" 'excludes --np and --nodes'
    run --timeout-ms 3s -- "$probe" pass
    status_is 2 "$rc" "--timeout-ms 3s"
    check "--timeout-ms 3s names the value" "--timeout-ms must be a positive number of milliseconds below 10\\^9, got '3s'"
    run --seed 5 -- "$probe" pass
    status_is 2 "$rc" "--seed without --adversarial"
    check "--seed without --adversarial says so" '--seed 5 needs --adversarial'
    run --np 2 -- /nonexistent/program
    status_is 2 "$rc" "a missing program"
    check "a missing program is named" "'/nonexistent/program' is not an executable file"
    run --np 2 -- hcts_launch_test_no_such_program
    status_is 2 "$rc" "a program not on PATH"
    check "a program not on PATH is named" "program 'hcts_launch_test_no_such_program' not found on PATH"
    run --np 2
    status_is 2 "$rc" "no program"
    check "no program is said" 'no program given'
    run --bogus -- "$probe"
    status_is 2 "$rc" "an unknown option"
    check "an unknown option is named" "unknown option '--bogus'"
    # hcts-waits takes the report files as untrusted: a short file and a wrong header are skipped.
    dir=$(mktemp -d)
    printf 'garbage' >"$dir/waits.1"
    rc=0
    "$build/bin/hcts-waits" "$dir" >"$out" 2>&1 || rc=$?
    sed 's/^/    /' "$out"
    status_is 0 "$rc" "hcts-waits on a file that is not a wait report"
    check "a short file is skipped with its size" 'skipped .*/waits.1: its size is 7, not [0-9]+'
    size=$(sed -n 's/.*its size is 7, not \([0-9]*\)$/\1/p' "$out")
    head -c "${size:-1}" /dev/zero >"$dir/waits.2" # the right size, no magic
    "$build/bin/hcts-waits" "$dir" >"$out" 2>&1
    sed 's/^/    /' "$out"
    check "a file of the right size without the header is skipped" 'skipped .*/waits.2: its header is not a version 1 wait report'
    check "with no report left, it says so" 'no wait reports in'
    rm -rf "$dir"
    "$build/bin/hcts-waits" /nonexistent >"$out" 2>&1
    status_is 2 "$?" "hcts-waits on a missing directory"
    check "the missing directory is named" "cannot read the directory '/nonexistent'"
    ;;
  *) echo "unknown case '$case'"; exit 2 ;;
esac
exit "$failed"
