#!/usr/bin/env bash
# results.json of hcts-property is an hcts-results v1 document (run.kind
# "property"): a short real run against the reference, and an aborted run (an
# implementation that cannot be loaded) and a run whose adapter cannot launch
# (every property ERROR) validate against the schema with `python3 -m
# jsonschema`; the real run gates "pass", the other two "fail".
#   results_schema_test.sh HCTS_PROPERTY SCHEMA WORK_DIR NO_LAUNCH_ADAPTER
set -euo pipefail
prop=$1 schema=$2 work=$3 no_launch=$4
python=/usr/bin/python3
if ! "$python" -c 'import jsonschema' 2>/dev/null; then
  echo "python3-jsonschema is not installed; it is required: apt-get install -y python3-jsonschema (scripts/deps.d/test/property.txt)" >&2
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"
validate() {
  "$python" -W ignore::DeprecationWarning -m jsonschema -i "$1" "$schema" || {
    echo "FAILED: $1 does not validate against $schema" >&2
    exit 1
  }
  echo "ok: $1 validates"
}
# field DOC PYTHON-EXPRESSION-OVER-d: prints the value
field() { "$python" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
expect() { # expect DOC EXPRESSION VALUE
  local got; got=$(field "$1" "$2")
  [[ $got == "$3" ]] || { echo "FAILED: $1: $2 is '$got', expected '$3'" >&2; exit 1; }
  echo "ok: $2 = $3"
}

# A short real run: every property, two cases each.
"$prop" --timeout-unit ms --cases 2 --results "$work/real.json"
validate "$work/real.json"
expect "$work/real.json" 'd["run"]["kind"]' property
expect "$work/real.json" 'd["run"]["status"]' complete
expect "$work/real.json" 'd["summary"]["gate"]' pass
expect "$work/real.json" 'd["adapter"]["name"]' reference
expect "$work/real.json" 'len(d["properties"])' 6
expect "$work/real.json" 'd["properties"][0]["clauses"]' "['WWN.VIS.1']"
expect "$work/real.json" 'all(p["verdict"] == "PASS" and p["clauses"] for p in d["properties"])' True
expect "$work/real.json" 'd["run"]["suite_version"] != "" and d["iut"]["sha256"] is not None' True

# An implementation that cannot be loaded: an aborted document with the error, exit 2.
status=0
"$prop" --timeout-unit ms --iut /nonexistent/libhcomm.so --results "$work/aborted.json" || status=$?
[[ $status -eq 2 ]] || { echo "FAILED: exit status $status for an IUT that cannot be loaded, expected 2" >&2; exit 1; }
validate "$work/aborted.json"
expect "$work/aborted.json" 'd["run"]["status"]' aborted
expect "$work/aborted.json" 'd["summary"]["gate"]' fail
expect "$work/aborted.json" '"/nonexistent/libhcomm.so" in d["run"]["error"]' True

# An adapter that cannot launch: the harness cannot decide, so each property is
# ERROR with the reason (not a counterexample); the run completes, exit 1.
status=0
HCTS_TEST_ADAPTER_MULTI_RANK=1 "$prop" --timeout-unit ms --adapter "$no_launch" --property DeviceOnly \
  --property NotifyExactlyOnce --cases 3 --results "$work/error.json" || status=$?
[[ $status -eq 1 ]] || { echo "FAILED: exit status $status for a run that cannot launch, expected 1" >&2; exit 1; }
validate "$work/error.json"
expect "$work/error.json" 'd["run"]["status"]' complete
expect "$work/error.json" 'd["summary"]["gate"]' fail
expect "$work/error.json" '[p["verdict"] for p in d["properties"]]' "['ERROR', 'ERROR']"
expect "$work/error.json" 'all("could not run hcts_prog_ops" in p["reason"] for p in d["properties"])' True
expect "$work/error.json" 'd["properties"][0]["reproduce"]' None
