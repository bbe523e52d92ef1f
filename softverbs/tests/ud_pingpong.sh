#!/bin/bash
# Debian's unmodified ibv_ud_pingpong, server and client on loopback, over softverbs-run.
# usage: ud_pingpong.sh SOFTVERBS_RUN [extra pingpong args...]
set -uo pipefail
run=$1; shift
args=(ibv_ud_pingpong -g 0 -p "{port}" -n 200 "$@")
exec "$(dirname "$0")/pair.sh" "$run" ibverbs-utils "200 iters in" -- "${args[@]}" -- "${args[@]}" 127.0.0.1
