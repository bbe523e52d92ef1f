#!/usr/bin/env bash
# The JSON Schema agrees with the documents: every fixture, and what
# `hcts-report apply` rewrites (expectations applied, summary recomputed),
# validates; a document with an unknown verdict does not.
#   schema_test.sh HCTS_REPORT SCHEMA FIXTURES_DIR WORK_DIR
set -euo pipefail
tool=$1 schema=$2 fixtures=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
for f in "$fixtures"/*.json; do
  "$tool" apply --out "$work/$(basename "$f" .json).applied.json" "$f" 2>/dev/null
done
"$tool" apply --expectations "$fixtures/vendor-expectations.yaml" --out "$work/vendor.applied.json" "$fixtures/failures.json" 2>/dev/null
sed 's/"verdict": "FAIL"/"verdict": "FAILED"/' "$fixtures/failures.json" >"$work/bad-verdict.json"
exec "$(dirname "$schema")/validate" --schema "$schema" "$fixtures"/*.json "$work"/*.applied.json \
  --invalid "$work/bad-verdict.json"
