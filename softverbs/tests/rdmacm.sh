#!/bin/bash
# Debian's unmodified rdma_cm programs, server and client on loopback, over
# softverbs-run with softverbs' librdmacm.so.1 (the CM exchange over TCP).
# usage: rdmacm.sh SOFTVERBS_RUN rping|ucmatose|qperf-rc_bw|qperf-rc_lat
set -uo pipefail
run=$1 what=$2
pair=$(dirname "$0")/pair.sh
case $what in
  rping) # 10 verified ping-pongs (-v prints each; the last is number 9)
    exec "$pair" "$run" rdmacm-utils "^ping data: rdma-ping-9: " \
      -- rping -s -a 127.0.0.1 -p "{port}" -C 10 -v -- rping -c -a 127.0.0.1 -p "{port}" -C 10 -v ;;
  ucmatose) # one connection, 10 SENDs each way, then the server disconnects
    exec "$pair" "$run" rdmacm-utils "^return status 0$" \
      -- ucmatose -p "{port}" -- ucmatose -s 127.0.0.1 -p "{port}" ;;
  qperf-rc_bw | qperf-rc_lat) # one second of the test over an rdma_cm connection, then 'quit' stops the server
    test=${what#qperf-}
    expect='^ +bw += +[0-9.]+ [KMG]?B/sec'
    [[ $test == rc_lat ]] && expect='^ +latency += +[0-9.]+ (ns|us|ms)'
    exec "$pair" "$run" qperf "$expect" \
      -- qperf --listen_port "{port}" -- qperf --listen_port "{port}" -cm1 -t 1 127.0.0.1 "$test" quit ;;
  *)
    echo "usage: rdmacm.sh SOFTVERBS_RUN rping|ucmatose|qperf-rc_bw|qperf-rc_lat (got '$what')" >&2
    exit 2 ;;
esac
