#!/bin/bash
# softverbs-run's system paths (README, "System paths"): the device's sysfs tree says
# what the library says (ibv_devinfo), it is where the mode promises, and the host's
# /sys/class and /dev are the same after the run as before.
# usage: sysfs_tree.sh SOFTVERBS_RUN path|mount
#   path:  SYSFS_PATH names the tree; nothing is mounted.
#   mount: the tree at /sys/class/infiniband{,_verbs} and /dev/infiniband/uverbs0
#          inside a private mount namespace (root only: skipped with 77 otherwise).
set -euo pipefail
run=$1 mode=$2
case $mode in path|mount) ;; *) echo "usage: sysfs_tree.sh SOFTVERBS_RUN path|mount" >&2; exit 2 ;; esac
if [[ $mode == mount ]] && { ((EUID != 0)) || ! unshare -m --propagation private true 2>/dev/null; }; then
  echo "SKIP: SOFTVERBS_SYSFS=mount needs root and a private mount namespace (unshare -m)"
  exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
host_state() { # what the host shows where softverbs' tree goes
  ls -la /sys/class/infiniband /sys/class/infiniband_verbs /dev/infiniband 2>&1 || true
  findmnt -rn -o TARGET,FSTYPE -R /dev; findmnt -rn -o TARGET,FSTYPE -R /sys
}
before=$(host_state)
probe=/dev/shm/softverbs_sysfs_tree.$$
trap 'rm -f "$probe"' EXIT

# shellcheck disable=SC2016 # the script runs inside softverbs-run, expanded there
# One run prints the tree's root, its files and ibv_devinfo's view, one "key value" a line.
# A sanitizer build's runtime goes into ibv_devinfo, which loads softverbs, not into this
# bash: TSan's runtime crashes bash at start.
out=$(SOFTVERBS_SYSFS=$mode SV_PRELOAD=${SOFTVERBS_RUN_PRELOAD:-} SOFTVERBS_RUN_PRELOAD= "$run" bash -c '
  set -euo pipefail
  root=${SYSFS_PATH:-/sys}
  d=$root/class/infiniband/softverbs0
  echo "root $root"
  for f in node_guid sys_image_guid fw_ver hw_rev node_type ports/1/state ports/1/phys_state \
      ports/1/link_layer ports/1/gid_attrs/types/0 device/vendor; do
    echo "$f $(cat "$d/$f")"
  done
  echo "ibdev $(cat "$root/class/infiniband_verbs/uverbs0/ibdev")"
  if [[ -c /dev/infiniband/uverbs0 && -r /dev/infiniband/uverbs0 && -w /dev/infiniband/uverbs0 ]]; then
    echo "uverbs0 chardev"
  fi
  touch "$1" # must be the host'\''s /dev/shm, not a private copy
  env ${SV_PRELOAD:+LD_PRELOAD=$SV_PRELOAD} ibv_devinfo -v | sed -n "s/^[[:space:]]*\([a-z_]*\):[[:space:]]*/devinfo_\1 /p"
' sh "$probe") || fail "softverbs-run exited with $? in mode $mode: $out"
echo "$out"
get() { awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' <<<"$out"; }

expect() { # key wanted
  [[ $(get "$1") == "$2" ]] || fail "$1 is '$(get "$1")', expected '$2'"
}
bin=$(cd "$(dirname "$run")" && pwd)
lib=$bin/../lib/hcts/softverbs # installed; else the build tree's
[[ -e $lib/libibverbs.so.1 ]] || lib=$bin/../lib/softverbs
lib=$(cd "$lib" && pwd)
if [[ $mode == path ]]; then
  expect root "$lib/sysfs"
else
  expect root /sys
  expect uverbs0 chardev
fi
# The tree agrees with the library.
expect node_guid "$(get devinfo_node_guid)"
expect sys_image_guid "$(get devinfo_sys_image_guid)"
expect fw_ver "$(get devinfo_fw_ver)"
expect device/vendor "$(get devinfo_vendor_id)"
[[ $(get devinfo_hw_ver) == "0x$(get hw_rev)" ]] || fail "hw_rev $(get hw_rev) differs from ibv_devinfo's hw_ver $(get devinfo_hw_ver)"
expect node_type "1: CA"
[[ $(get devinfo_state) == "PORT_ACTIVE (4)" ]] || fail "ibv_devinfo state is '$(get devinfo_state)'"
expect ports/1/state "4: ACTIVE"
[[ $(get devinfo_phys_state) == "LINK_UP (5)" ]] || fail "ibv_devinfo phys_state is '$(get devinfo_phys_state)'"
expect ports/1/phys_state "5: LinkUp"
expect ports/1/link_layer "$(get devinfo_link_layer)"
expect ports/1/gid_attrs/types/0 "RoCE v2"
expect ibdev softverbs0
[[ -e $probe ]] || fail "a file made in /dev/shm inside the run is not in the host's /dev/shm"

after=$(host_state)
[[ $before == "$after" ]] || fail "the host's /sys or /dev changed:
--- before
$before
--- after
$after"
echo "PASS: mode $mode; host /sys and /dev unchanged"
