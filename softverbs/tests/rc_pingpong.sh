#!/bin/bash
# Debian's unmodified ibv_rc_pingpong, server and client on loopback, over softverbs-run.
# usage: rc_pingpong.sh SOFTVERBS_RUN [extra pingpong args...]
# The out-of-band TCP port is chosen from the pid; on a collision with another
# user of the machine, it retries with another port (at most 3 attempts).
set -uo pipefail
# Two unrelated processes: they share a job secret only if given one.
export SOFTVERBS_SECRET=${SOFTVERBS_SECRET:-$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")}
run=$1; shift
out=$(mktemp -d)
srv=
trap '[[ -n $srv ]] && kill $srv 2>/dev/null; rm -rf "$out"' EXIT
for attempt in 1 2 3; do
  port=$((20000 + ($$ * 7 + attempt * 1009) % 20000))
  if ss -ltn "sport = :$port" | grep -q LISTEN; then continue; fi
  timeout 60 "$run" ibv_rc_pingpong -g 0 -p "$port" -n 200 "$@" >"$out/server" 2>&1 &
  srv=$!
  for _ in $(seq 100); do  # wait (bounded) for the server's out-of-band port
    ss -ltn "sport = :$port" | grep -q LISTEN && break
    sleep 0.05
  done
  if timeout 60 "$run" ibv_rc_pingpong -g 0 -p "$port" -n 200 "$@" 127.0.0.1 >"$out/client" 2>&1 &&
     wait $srv; then
    srv=
    cat "$out/client"
    grep -q "200 iters in" "$out/client" && grep -q "200 iters in" "$out/server" && exit 0
    echo "FAIL: no result line"; cat "$out"/*; exit 1
  fi
  kill $srv 2>/dev/null; wait $srv 2>/dev/null; srv=
  echo "attempt $attempt on port $port failed:"; cat "$out"/*
  grep -q "Couldn't connect\|Couldn't listen\|Address already in use\|bind" "$out"/* || exit 1  # a real failure: no retry
done
exit 1
