#!/bin/bash
# softverbs on a host whose ephemeral port range is all in TIME-WAIT (as after a
# fuzzing run beside the tests): the kernel's port choice for the listener then
# fails, and every process loading softverbs aborted ("cannot listen: Address
# already in use"). In a private network namespace with a 64-port range filled
# by short connections, unmodified ibv_rc_pingpong must still run (pair.sh).
# usage: timewait.sh SOFTVERBS_RUN       Root only; exit 77 (skipped) otherwise.
set -uo pipefail
run=$1
if ((EUID != 0)) || ! command -v python3 >/dev/null || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root allowed to create a network namespace (unshare -n), and python3"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2016 # expanded by the inner shell
exec timeout 60 unshare -n bash -c '
  set -euo pipefail
  ip link set lo up
  sysctl -qw net.ipv4.ip_local_port_range="40000 40063"
  python3 - <<"PY"
import socket
srv = socket.create_server(("127.0.0.1", 0))
made = 0
while made < 1000:  # until no ephemeral port is left
    c = socket.socket()
    try:
        c.connect(srv.getsockname())
    except OSError:
        break
    s, _ = srv.accept()
    c.close()  # the client closes first: its port stays in TIME-WAIT
    s.close()
    made += 1
print(f"{made} connections; the ephemeral range 40000-40063 is in TIME-WAIT")
PY
  sleep 1.2 # TIME-WAIT older than 1 s: the kernel lets outgoing connections reuse such ports (tcp_tw_reuse)
  ss -tan state time-wait | tail -n +2 | wc -l | sed "s/^/TIME-WAIT sockets: /"
  exec "$1/pair.sh" "$2" ibverbs-utils "100 iters in" -- ibv_rc_pingpong -g 0 -p "{port}" -n 100 -- \
    ibv_rc_pingpong -g 0 -p "{port}" -n 100 127.0.0.1
' timewait "$here" "$run"
