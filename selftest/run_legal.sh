#!/usr/bin/env bash
# A legal library through ./hcts run as a user runs it: every configuration, the
# property suite included, the default gate. It must pass (ctests
# selftest.hcts_run.<name>, selftest/CMakeLists.txt).
#   run_legal.sh SOURCE_DIR PRESET IUT OUT_DIR SEED
# PRESET is the ./hcts preset whose build directory this is; empty when it is none
# of them (./hcts cannot run on it): skipped, exit 77.
set -uo pipefail
src=$1 preset=$2 iut=$3 out=$4 seed=$5
if [[ -z $preset ]]; then
  echo "skipped: this build directory is none of ./hcts's presets (build, build-asan, build-tsan)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
cmd=(env "HCTS_PRESET=$preset" "$src/hcts" run --iut "$iut" --seed "$seed" --results "$out/results.json"
  --reports "$out/reports")
printf 'run_legal: reproduce with:'
printf ' %q' "${cmd[@]}"
printf '\n'
"${cmd[@]}" >"$out/run.log" 2>&1
status=$?
# What did not pass, as ./hcts printed it.
grep '^hcts:' "$out/run.log" | grep -Ev ' PASS |^hcts: building' || true
if ((status != 0)); then
  echo "run_legal: ./hcts run exited $status on $iut; a legal library must pass the default gate (log: $out/run.log)"
  exit 1
fi
# The gate passed with the properties judged, not skipped.
if ! grep -q '"FullModel"' "$out/results.json"; then
  echo "run_legal: $out/results.json holds no property verdicts; the property suite did not run"
  exit 1
fi
echo "run_legal: $iut passes the default gate, properties included"
