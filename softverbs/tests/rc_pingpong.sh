#!/bin/bash
# Debian's unmodified ibv_rc_pingpong, server and client on loopback, over softverbs-run.
# usage: rc_pingpong.sh SOFTVERBS_RUN [extra pingpong args...]
set -euo pipefail
run=$1; shift
port=$((20000 + $$ % 20000))
out=$(mktemp -d)
trap 'kill $srv 2>/dev/null || true; rm -rf "$out"' EXIT
timeout 60 "$run" ibv_rc_pingpong -g 0 -p "$port" -n 200 "$@" >"$out/server" 2>&1 &
srv=$!
# Wait (bounded) for the server's out-of-band TCP port.
for _ in $(seq 100); do
  ss -ltn "sport = :$port" | grep -q LISTEN && break
  sleep 0.05
done
timeout 60 "$run" ibv_rc_pingpong -g 0 -p "$port" -n 200 "$@" 127.0.0.1 >"$out/client" 2>&1 || { cat "$out"/*; exit 1; }
wait $srv || { echo "server failed"; cat "$out"/*; exit 1; }
cat "$out/client"
grep -q "200 iters in" "$out/client" && grep -q "200 iters in" "$out/server"
