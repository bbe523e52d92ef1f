#!/usr/bin/env bash
# The JSON Schema agrees with the documents: every fixture, and what
# `hcts-report apply` rewrites (expectations applied, summary recomputed),
# validates; a document with an unknown verdict does not.
#   schema_test.sh HCTS_REPORT SCHEMA FIXTURES_DIR WORK_DIR
set -euo pipefail
tool=$1 schema=$2 fixtures=$3 work=$4
python=/usr/bin/python3
if ! "$python" -c 'import jsonschema' 2>/dev/null; then
  echo "python3-jsonschema is not installed; it is required: apt-get install -y python3-jsonschema (scripts/deps.d/reports.txt)" >&2
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"
for f in "$fixtures"/*.json; do
  "$tool" apply --out "$work/$(basename "$f" .json).applied.json" "$f" 2>/dev/null
done
"$tool" apply --expectations "$fixtures/vendor-expectations.yaml" --out "$work/vendor.applied.json" "$fixtures/failures.json" 2>/dev/null
sed 's/"verdict": "FAIL"/"verdict": "FAILED"/' "$fixtures/failures.json" >"$work/bad-verdict.json"

"$python" - "$schema" "$fixtures"/*.json "$work"/*.applied.json -- "$work/bad-verdict.json" <<'PY'
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
args = sys.argv[2:]
split = args.index("--")
good, bad = args[:split], args[split + 1:]
failed = 0
for path in good:
    errors = list(validator.iter_errors(json.load(open(path))))
    for e in errors[:5]:
        print(f"FAILED: {path}: {'/'.join(map(str, e.absolute_path))}: {e.message}", file=sys.stderr)
    failed += bool(errors)
    if not errors:
        print(f"ok: {path} validates")
for path in bad:
    if validator.is_valid(json.load(open(path))):
        print(f"FAILED: {path} validates but must not", file=sys.stderr)
        failed += 1
    else:
        print(f"ok: {path} is rejected")
sys.exit(1 if failed else 0)
PY
