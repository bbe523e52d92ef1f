#!/bin/bash
# rdma-core's own test suite (Debian's python3-pyverbs ships it, gzipped, in
# /usr/share/doc/rdma-core/tests), unmodified, on softverbs0 through softverbs-run.
# Passes only with 0 failures, 0 errors, and every skip for a reason listed below:
# a feature softverbs declares unsupported (README "rdma-core's tests"), or
# hardware/environment it does not have. Any other skip fails the test.
# usage: rdma_core_tests.sh SOFTVERBS_RUN      Exit 77 when python3-pyverbs is absent.
set -uo pipefail
run=$1
src=/usr/share/doc/rdma-core/tests
py=/usr/bin/python3 # Debian's interpreter: pyverbs is built for it, not for a pyenv one
if [[ ! -f $src/run_tests.py ]] || ! $py -c 'import pyverbs' 2>/dev/null; then
  echo "SKIP: python3-pyverbs (rdma-core's tests) is not installed"
  exit 77
fi
export SOFTVERBS_SECRET=${SOFTVERBS_SECRET:-$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/tests" && gunzip -f "$work"/tests/*.gz || exit 1
cd "$work" || exit 1
timeout 300 "$run" $py tests/run_tests.py --dev softverbs0 -v >"$work/log" 2>&1
rc=$?
tail -4 "$work/log"
grep -E "^(FAIL|ERROR):" "$work/log"

# Skip reasons allowed: hardware softverbs is not (mlx5, EFA, GPUs, PCI), host
# set-up (huge pages), and the features softverbs declares unsupported.
allowed=(
  'non MLX5 device' 'not an MLX5 device' 'non EFA device' 'cuda-python' 'dmabuf is not supported by /dev/dri'
  'PCI device must be passed' 'no huge pages of size' 'All gid indices populated'
  'Device memory is not supported' 'ODP is not supported' 'Create XRCD is not supported'
  # raw packet, XRC send/receive, driver QPs (RC, UC and UD are supported)
  'Create Raw Packet QP (with|without)( extended)? attrs is not supported' 'Create QP type (8|9|10|255) is not supported'
  'Create MW is not supported' 'Memory Window allocation is not supported' 'Create memory window of type'
  'Parent Domain is not supported' 'Rereg MR is not supported'
  'Query device real time is not supported' 'Importing a device is not supported'
  # no network device bound to softverbs0 (rdma-core's rdma_cm tests find their IP address through it)
  "Device softverbs0 doesn't have net interface"
  # cq_ex with completion timestamps or tag-matching info (wc_flags beyond the standard ones)
  'Create Extended CQ is not supported' 'Extended CQ is not supported'
  'Extended QP is not supported' # qp_ex of UD, XRC, or with atomic write: refused at creation
)
pattern=$(printf '%s|' "${allowed[@]}")
pattern=${pattern%|}
# unittest prints a reason in single quotes, or in double quotes when it holds an
# apostrophe; every skip the summary counts must be one of the lines judged here.
skips=$(grep -oE "skipped ('[^']*'|\"[^\"]*\")" "$work/log")
unexpected=$(grep -Ev "$pattern" <<<"$skips" | grep . | sort | uniq -c)
echo "skip reasons:"
sort <<<"$skips" | uniq -c | sort -rn
judged=$(grep -c . <<<"$skips")
counted=$(tail -1 "$work/log" | grep -oE "skipped=[0-9]+" | cut -d= -f2)
if [[ ${counted:-0} != "$judged" ]]; then
  echo "FAIL: unittest counted ${counted:-0} skips, but $judged skip lines were found and judged"
  exit 1
fi

if ((rc == 124)); then
  echo "FAIL: rdma-core's tests did not finish within 300 s"
  exit 1
fi
if [[ -n $unexpected ]]; then
  echo "FAIL: skips for reasons not declared unsupported:"
  echo "$unexpected"
  exit 1
fi
if ((rc != 0)) || ! tail -1 "$work/log" | grep -q '^OK'; then
  echo "FAIL: rdma-core's tests exited $rc (failures or errors above)"
  exit 1
fi
echo "PASS: rdma-core's tests: 0 failures, 0 errors, every skip for a declared reason"
