#!/bin/bash
# One unmodified perftest program (Debian's perftest), server and client on
# loopback, over softverbs-run, through pair.sh (port, deadline, skip rule).
# usage: perftest.sh SOFTVERBS_RUN PROGRAM [MODE] [extra perftest args...]
#   MODE  sweep   every size perftest's -a runs (2 B .. 8 MiB), 5 iterations each;
#                 the client must print a result line for every one of them
#         SIZE    that one message size, 200 iterations (atomics: 8, their only size)
#         absent  64, atomics 8 (an argument starting with '-' is the first extra perftest argument)
set -uo pipefail
usage() { echo "usage: perftest.sh SOFTVERBS_RUN PROGRAM [sweep|SIZE] [perftest args...]" >&2; exit 2; }
(($# >= 2)) || usage
run=$1 prog=$2 mode=64
[[ $prog == ib_atomic_* ]] && mode=8
shift 2
if (($#)) && [[ $1 != -* ]]; then
  mode=$1
  shift
fi
top=8388608 # perftest 4.5's -a stops at 2^23
if [[ $mode == sweep ]]; then
  iters=5 # few per size: the sweep checks every size works, not its figure
  sizes=()
  for ((s = 2; s <= top; s *= 2)); do sizes+=("$s"); done
  size_args=(-a)
  # latency programs recalibrate the clock per size: ~25 s on a loaded machine, so more room
  export PAIR_DEADLINE=${PAIR_DEADLINE:-80}
elif [[ $mode =~ ^[1-9][0-9]{0,8}$ ]]; then
  iters=200 sizes=("$mode")
  size_args=(-s "$mode")
  if [[ $prog == ib_atomic_* ]]; then # perftest refuses -s for atomics ("cannot be changed")
    [[ $mode == 8 ]] || { echo "perftest.sh: $prog has one size, 8; MODE '$mode' is not allowed" >&2; exit 2; }
    size_args=()
  fi
else
  echo "perftest.sh: MODE is '$mode'; allowed: sweep, or a message size in bytes (1..999999999)" >&2
  exit 2
fi
# -F: no CPU-frequency warning as an error (shared CI machines scale their clocks).
args=("$prog" -d softverbs0 "${size_args[@]}" -n "$iters" -F -p "{port}" "$@")
# A result line: the size, the iterations (-n times the QPs), then the figures.
# pair.sh requires the first size's; every other size is checked below.
out=$("$(dirname "$0")/pair.sh" "$run" perftest "^ *${sizes[0]} +[0-9]+ +[0-9]" -- "${args[@]}" -- "${args[@]}" 127.0.0.1)
rc=$?
echo "$out"
((rc == 0)) || exit "$rc"
missing=()
for s in "${sizes[@]}"; do
  grep -Eq "^ *$s +[0-9]+ +[0-9]" <<<"$out" || missing+=("$s")
done
if ((${#missing[@]})); then
  echo "FAIL: $prog printed no result line (size, iterations, figures) for size(s) ${missing[*]}"
  exit 1
fi
echo "PASS: $prog: a result line for each of the ${#sizes[@]} size(s) ${sizes[0]}..${sizes[-1]}"
