#!/bin/bash
# Runs one unmodified third-party program pair (a server and a client on
# loopback) through softverbs-run, with a deadline, and checks the client's
# output. Every program ctest of softverbs (pingpongs, perftest, qperf, rping,
# UCX, libfabric) goes through here.
#
# usage: pair.sh SOFTVERBS_RUN PACKAGE EXPECT -- SERVER_CMD... -- CLIENT_CMD...
#   PACKAGE  the Debian package that ships the server's program (named on a skip)
#   EXPECT   an extended regex the client's output must match
#   {port}   in any argument is replaced by the out-of-band TCP port chosen here
# Exit 77 (skipped) when the program is not installed. The port is chosen from
# the pid; when someone else holds it, another is tried (at most 3 attempts);
# any other failure is final.
set -uo pipefail
usage() {
  echo "usage: pair.sh SOFTVERBS_RUN PACKAGE EXPECT -- SERVER_CMD... -- CLIENT_CMD..." >&2
  exit 2
}
(($# >= 6)) || usage
run=$1 package=$2 expect=$3
shift 3
[[ $1 == -- ]] || usage
shift
server=()
while (($#)) && [[ $1 != -- ]]; do server+=("$1"); shift; done
(($# >= 2)) || usage
shift
client=("$@")
((${#server[@]} > 0)) || usage
if ! command -v "${server[0]}" >/dev/null; then
  echo "SKIP: ${server[0]} not found (Debian package $package, installed by scripts/install-deps.sh)"
  exit 77
fi
# A secret of this run: the two programs would share the user's secret file anyway, but a
# test must neither depend on nor make a file in the home directory.
export SOFTVERBS_SECRET=${SOFTVERBS_SECRET:-$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")}
deadline=${PAIR_DEADLINE:-60}
out=$(mktemp -d)
srv=
trap '[[ -n $srv ]] && kill $srv 2>/dev/null; rm -rf "$out"' EXIT

with_port() { # prints each argument with {port} replaced, one per line
  local a
  for a in "${@:2}"; do printf '%s\n' "${a//\{port\}/$1}"; done
}
listening() { ss -ltnH "sport = :$1" | grep -q .; }

# Below the kernel's ephemeral range (32768.. by default): an outgoing
# connection, or one of the thousands of TIME-WAIT sockets a loaded machine
# holds, cannot already own the port there.
read -r eph _ </proc/sys/net/ipv4/ip_local_port_range
((eph > 12000)) || eph=32768
for attempt in 1 2 3; do
  port=$((10000 + ($$ * 11 + attempt * 1013) % (eph - 10000)))
  listening "$port" && continue
  mapfile -t s < <(with_port "$port" "${server[@]}")
  mapfile -t c < <(with_port "$port" "${client[@]}")
  timeout "$deadline" "$run" "${s[@]}" >"$out/server" 2>&1 &
  srv=$!
  for _ in $(seq 200); do # wait (bounded, 10 s) for the server's port
    listening "$port" && break
    kill -0 $srv 2>/dev/null || break
    sleep 0.05
  done
  timeout "$deadline" "$run" "${c[@]}" >"$out/client" 2>&1
  rc=$?
  if ((rc == 0)); then
    wait $srv
    rc=$?
    srv=
    if ((rc == 0)) && grep -Eq -- "$expect" "$out/client"; then
      cat "$out/client"
      echo "PASS: ${c[*]}"
      exit 0
    fi
    echo "FAIL: server exit $rc, or no client line matching: $expect"
    echo "--- client"; cat "$out/client"
    echo "--- server"; cat "$out/server"
    exit 1
  fi
  kill $srv 2>/dev/null
  wait $srv 2>/dev/null
  srv=
  echo "attempt $attempt on port $port failed (client exit $rc; 124 is the ${deadline} s deadline):"
  echo "--- client"; cat "$out/client"
  echo "--- server"; cat "$out/server"
  # Only a port taken by someone else is retried.
  grep -qi "Couldn't connect\|Couldn't listen\|Address already in use\|bind" "$out"/* || exit 1
done
exit 1
