#!/bin/bash
# One unmodified perftest program (Debian's perftest), server and client on
# loopback, over softverbs-run: tiny messages, few iterations, a deadline.
# usage: perftest.sh SOFTVERBS_RUN PROGRAM [extra perftest args...]
# Exit 77 (skipped) when perftest is not installed. The out-of-band TCP port is
# chosen from the pid; on a collision it retries with another (at most 3 attempts).
set -uo pipefail
run=$1 prog=$2
shift 2
if ! command -v "$prog" >/dev/null; then
  echo "SKIP: $prog not found (Debian package perftest, installed by scripts/install-deps.sh)"
  exit 77
fi
# Two unrelated processes: they share a job secret only if given one.
export SOFTVERBS_SECRET=${SOFTVERBS_SECRET:-$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")}
size=64 iters=200
# -F: no CPU-frequency warning as an error (shared CI machines scale their clocks).
args=(-d softverbs0 -s "$size" -n "$iters" -F "$@")
out=$(mktemp -d)
srv=
trap '[[ -n $srv ]] && kill $srv 2>/dev/null; rm -rf "$out"' EXIT
for attempt in 1 2 3; do
  port=$((20000 + ($$ * 11 + attempt * 1013) % 20000))
  if ss -ltn "sport = :$port" | grep -q LISTEN; then continue; fi
  timeout 60 "$run" "$prog" "${args[@]}" -p "$port" >"$out/server" 2>&1 &
  srv=$!
  for _ in $(seq 100); do # wait (bounded) for the server's out-of-band port
    ss -ltn "sport = :$port" | grep -q LISTEN && break
    sleep 0.05
  done
  if timeout 60 "$run" "$prog" "${args[@]}" -p "$port" 127.0.0.1 >"$out/client" 2>&1 && wait $srv; then
    srv=
    cat "$out/client"
    # The result line: the message size, then the iteration count, then the numbers.
    if grep -Eq "^ *$size +$iters +[0-9]" "$out/client"; then
      echo "PASS: $prog $size B x $iters on softverbs"
      exit 0
    fi
    echo "FAIL: no result line for $size bytes x $iters iterations"
    cat "$out/server"
    exit 1
  fi
  rc=$?
  kill $srv 2>/dev/null
  wait $srv 2>/dev/null
  srv=
  echo "attempt $attempt on port $port failed (exit $rc):"
  cat "$out"/*
  # A real failure is not retried; only a port taken by someone else is.
  grep -qi "Couldn't connect\|Couldn't listen\|Address already in use\|bind" "$out"/* || exit 1
done
exit 1
