#!/bin/bash
# Debian's unmodified qperf, its RC tests, server and client on loopback, over
# softverbs-run, through pair.sh (port, deadline, skip rule). Each test runs 1 s
# (qperf's -t takes whole seconds; 0 means no timer) and must print its figure.
# usage: qperf.sh SOFTVERBS_RUN TEST...     e.g. qperf.sh softverbs-run rc_bw rc_lat
set -uo pipefail
(($# >= 2)) || { echo "usage: qperf.sh SOFTVERBS_RUN TEST..." >&2; exit 2; }
run=$1
shift
tests=("$@")
for t in "${tests[@]}"; do
  [[ $t =~ ^rc_[a-z_]+$ ]] || { echo "qperf.sh: test '$t' is not an RC test name (rc_...)" >&2; exit 2; }
done
# 'quit' makes the server exit, so pair.sh can check its status too.
out=$("$(dirname "$0")/pair.sh" "$run" qperf "^quit:" -- qperf --listen_port "{port}" -- \
  qperf 127.0.0.1 --listen_port "{port}" -t 1 "${tests[@]}" quit)
rc=$?
echo "$out"
((rc == 0)) || exit "$rc"
# Each test's block: "name:" then "    bw  =  2.29 GB/sec", "latency  =  13 us" or "msg_rate  =  491 K/sec".
missing=()
for t in "${tests[@]}"; do
  awk -v t="$t:" '$0 == t { getline; ok = ($0 ~ /^ +[a-z_]+ += +[0-9.]+ [A-Za-z\/]+$/) } END { exit !ok }' \
    <<<"$out" || missing+=("$t")
done
if ((${#missing[@]})); then
  echo "FAIL: qperf printed no figure for: ${missing[*]}"
  exit 1
fi
echo "PASS: qperf: a figure for each of ${tests[*]}"
