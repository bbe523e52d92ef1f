#!/bin/bash
# Debian's unmodified ucx_info finds softverbs0 through softverbs-run's system paths:
# UCX's uct_ib reads /sys/class/infiniband and needs /dev/infiniband/uverbs0 to be a
# read-writable character device, so only the mounted tree (root, private mount
# namespace) shows it the device. Skipped (77) without ucx_info or without the mounts.
# usage: ucx_info.sh SOFTVERBS_RUN
set -uo pipefail
run=$1
if ! command -v ucx_info >/dev/null; then
  echo "SKIP: ucx_info not found (Debian package ucx-utils, installed by scripts/install-deps.sh)"
  exit 77
fi
if ((EUID != 0)) || ! unshare -m --propagation private true 2>/dev/null; then
  echo "SKIP: UCX sees softverbs only with SOFTVERBS_SYSFS=mount: root and a private mount namespace (unshare -m)"
  exit 77
fi
out=$(SOFTVERBS_SYSFS=mount timeout 30 "$run" ucx_info -d 2>&1)
rc=$?
echo "$out"
((rc == 0)) || { echo "FAIL: ucx_info -d exited with $rc"; exit 1; }
# Every transport uct_ib offers on the device, each followed by its device line.
for tl in rc_verbs ud_verbs; do
  grep -A1 -E "^# +Transport: $tl\$" <<<"$out" | grep -Eq "^# +Device: softverbs0:1\$" ||
    { echo "FAIL: no transport $tl on device softverbs0:1 in ucx_info -d"; exit 1; }
done
grep -Eq "^# Memory domain: softverbs0\$" <<<"$out" || { echo "FAIL: no memory domain softverbs0"; exit 1; }
echo "PASS: UCX lists softverbs0:1 with rc_verbs and ud_verbs"
