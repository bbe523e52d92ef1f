#!/usr/bin/env bash
# Shared by the install tests: runs an installed hcts (bin/hcts) on the reference
# with the given adapter from an empty directory and checks that the gate passed,
# that results.json and the reports are under that directory, and that nothing the
# run printed or wrote names a forbidden directory (the source or build tree).
# usage: check_run.sh HCTS ADAPTER RUNDIR LOG FORBIDDEN_DIR...
set -euo pipefail
hcts=$1 adapter=$2 rundir=$3 log=$4
shift 4
prefix=$(cd "$(dirname "$hcts")/.." && pwd)
fail() { printf 'check_run: %s\n' "$*" >&2; exit 1; }

mkdir -p "$rundir"
status=0
# The build tree's softverbs must not be what the run finds: the installed copy is.
(cd "$rundir" && env -u LD_LIBRARY_PATH timeout 600 "$hcts" run --quick --no-properties \
  --iut "$prefix/lib/hcts/libhcomm.so" --adapter "$adapter") >"$log" 2>&1 || status=$?
tail -n 15 "$log"
((status == 0)) || fail "the installed hcts run exited $status (gate not passed; log: $log)"
shopt -s nullglob
docs=("$rundir"/hcts-results/*/results.json)
((${#docs[@]} == 1)) || fail "expected one results.json under $rundir/hcts-results, found ${#docs[@]}"
results=${docs[0]}
for f in report.html summary.md junit.xml; do
  [[ -s $(dirname "$results")/$f ]] || fail "no $f beside $results"
done
python3 - "$results" <<'PY' || fail "results.json does not record a passed gate: $results"
import json, sys
doc = json.load(open(sys.argv[1]))
gate = (doc.get("summary") or {}).get("gate")
status = doc.get("run", {}).get("status")
print("check_run: run status", status, "gate", gate)
sys.exit(0 if status == "complete" and gate == "pass" else 1)
PY
for dir in "$@"; do
  if grep -rl --include='*.json' --include='*.log' -F "$dir/" "$rundir" "$log" >/dev/null 2>&1; then
    fail "the run used the forbidden directory $dir: $(grep -rhoF --include='*.json' --include='*.log' "$dir/" "$rundir" "$log" | head -n 3 | tr '\n' ' ')"
  fi
done
echo "check_run: gate passed; $results and its reports exist"
