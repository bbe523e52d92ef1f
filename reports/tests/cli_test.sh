#!/usr/bin/env bash
# hcts-report from the command line, as ./hcts run and CI use it:
#   cli_test.sh HCTS_REPORT FIXTURES_DIR WORK_DIR
set -euo pipefail
tool=$1 fixtures=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fails=0
check() { # check DESCRIPTION COMMAND... : the command must succeed
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what" >&2; fails=$((fails + 1)); fi
}
expect_error() { # expect_error STATUS MESSAGE_REGEX COMMAND... : exact exit status, message on stderr
  local status=$1 regex=$2; shift 2
  local rc=0
  "$@" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
  if [[ $rc -eq $status ]] && grep -Eq -- "$regex" "$work/err.txt"; then
    echo "ok: exit $status, '$(head -1 "$work/err.txt")'"
  else
    echo "FAILED: $* gave exit $rc (wanted $status), stderr: $(cat "$work/err.txt")" >&2
    fails=$((fails + 1))
  fi
}

# render: the three files, their paths printed (./hcts run relies on this command line).
out=$("$tool" render --out "$work/out" "$fixtures/failures.json")
echo "$out"
for f in report.html summary.md junit.xml; do
  check "$f written" test -s "$work/out/$f"
  check "$f path printed" grep -q "wrote $work/out/$f" <<<"$out"
done
check "overall verdict printed" grep -q "overall verdict FAIL" <<<"$out"
check "junit.xml is well-formed XML" xmllint --noout "$work/out/junit.xml"
check "no temporary files left" bash -c "! ls '$work/out' | grep -q tmp"

# --gate makes the exit status the verdict.
check "--gate passes a passing run" "$tool" render --gate --out "$work/pass" "$fixtures/pass.json"
rc=0; "$tool" render --gate --out "$work/fail" "$fixtures/failures.json" >/dev/null || rc=$?
check "--gate exits 1 on a failing run" test "$rc" -eq 1

# apply: expectations at report time; XPASS keeps the gate failing.
"$tool" apply --expectations "$fixtures/vendor-expectations.yaml" --out "$work/applied.json" "$fixtures/failures.json" 2>"$work/err.txt"
check "apply wrote the waived clause" grep -q '"waived_from": "FAIL"' "$work/applied.json"
check "apply reports the XPASS" grep -q '"XPASS"' "$work/applied.json"

# merge: a property run's properties join the run's gate; a failing property fails it.
cp "$fixtures/pass.json" "$work/merged.json"
"$tool" merge --into "$work/merged.json" "$fixtures/pass.json" 2>"$work/err.txt"
check "merging a run with no failing property keeps the gate passing" grep -q '"gate": "pass"' "$work/merged.json"
rc=0; "$tool" merge --gate --into "$work/merged.json" "$fixtures/property.json" 2>"$work/err.txt" || rc=$?
check "merge --gate exits 1 when a merged property fails" test "$rc" -eq 1
check "the failing property is in the merged document" grep -q '"name": "WriteBeforeNotify"' "$work/merged.json"
check "the merged gate fails" grep -q '"gate": "fail"' "$work/merged.json"

# merge: a conformance run of another configuration (run.configuration) joins the run: its cases
# under their clauses, the clause's configurations listed, and both renderers show them.
python3 - "$fixtures/pass.json" "$work/segment.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["run"]["configuration"] = "segment"
doc["run"]["filter"] = "Visibility.*"
json.dump(doc, open(sys.argv[2], "w"))
PY
cp "$fixtures/pass.json" "$work/configs.json"
"$tool" merge --gate --into "$work/configs.json" "$work/segment.json" 2>"$work/err.txt"
check "merge names the configuration run" grep -q "1 configuration run(s)" "$work/err.txt"
check "the merged document lists both configurations" grep -q '"name": "segment"' "$work/configs.json"
check "the other configuration's cases are renamed" grep -q '@segment"' "$work/configs.json"
"$tool" render --out "$work/configs" "$work/configs.json" >/dev/null
check "the HTML shows each clause's configurations" grep -q '<th>Configurations</th>' "$work/configs/report.html"
check "the Markdown lists clauses by configuration" grep -q 'Clauses by configuration' "$work/configs/summary.md"
check "a merged document validates" "$(dirname "$0")/../schema/validate" "$work/configs.json"

# Clear errors for bad input.
expect_error 1 "no-such.json: cannot open for reading: No such file or directory" "$tool" render --out "$work/x" "$fixtures/no-such.json"
printf '{"schema":"hcts-results","schema_version":7,"run":{},"clauses":[]}' >"$work/newer.json"
expect_error 1 "newer.json: schema_version 7 is newer than this hcts-report reads; allowed: 1" "$tool" render --out "$work/x" "$work/newer.json"
printf '{"schema":"hcts-results",\n "schema_version": 1,\n "run": {,\n' >"$work/broken.json"
expect_error 1 "broken.json:3:10: malformed JSON" "$tool" render --out "$work/x" "$work/broken.json"
printf 'schema: hcts-expectations\nschema_version: 1\nexpectations:\n  - clause: A\n    expected: FIAL\n    reason: r\n' >"$work/bad.yaml"
expect_error 1 "bad.yaml:5: expectations\[0\]\.expected is 'FIAL'; allowed: FAIL, TIMEOUT, CRASH, HAZARD, ERROR, NOT_SUPPORTED" \
  "$tool" render --expectations "$work/bad.yaml" --out "$work/x" "$fixtures/pass.json"
expect_error 2 "unknown option '--bogus'; allowed: --help, --out DIR, --expectations FILE, --gate" "$tool" render --bogus "$fixtures/pass.json"
expect_error 2 "unknown command 'frobnicate'; allowed: render, apply, merge, bundle, verify" "$tool" frobnicate
expect_error 2 "no command given; allowed: render, apply, merge, bundle, verify, help" "$tool"
expect_error 2 "unknown option '--gate'; allowed: --help, --out FILE.tar, --expectations FILE" \
  "$tool" bundle --gate --out "$work/x.tar" "$fixtures/pass.json"
expect_error 2 "unexpected argument 'second.json'; apply takes: RESULTS.json" "$tool" apply "$fixtures/pass.json" second.json
expect_error 2 "unexpected argument 'third'; bundle takes: RESULTS.json \[REPORT_DIR\]" "$tool" bundle --out "$work/x.tar" a b third
expect_error 2 "bundle: --out is required" "$tool" bundle "$fixtures/pass.json"
expect_error 2 "render: --out: 1 required DIR missing" "$tool" render --out
expect_error 2 "render: RESULTS.json is required" "$tool" render --out "$work/x"
expect_error 2 "verify: BUNDLE.tar is required" "$tool" verify
expect_error 2 "COMMAND: nosuch not in \{render,apply,merge,bundle,verify\}" "$tool" help nosuch
SOURCE_DATE_EPOCH=yesterday expect_error 1 "SOURCE_DATE_EPOCH is 'yesterday'; allowed: a whole number of seconds" \
  "$tool" render --out "$work/x" "$fixtures/pass.json"

# --help for the tool and for each command (standard output, exit 0), --version.
check "--version" bash -c "'$tool' --version | grep -Eqx 'hcts-report [0-9.]+ \(reads hcts-results v1\)'"
check "--help lists the commands" bash -c "'$tool' --help | grep -Eq '^  verify +check a bundle'"
for cmd in render apply merge bundle verify; do
  check "$cmd --help" bash -c "'$tool' $cmd --help | grep -q '^Usage: hcts-report $cmd '"
done
check "help render is render --help" bash -c "diff <('$tool' help render) <('$tool' render --help)"
check "render --help names its options" bash -c "'$tool' render --help | grep -Eq -- '--out DIR +where the three files go'"
check "-- ends the options" "$tool" render --out "$work/dashdash" -- "$fixtures/pass.json"

# bundle + verify: a fresh bundle is accepted, one changed byte is not.
"$tool" bundle --out "$work/sub.tar" "$fixtures/failures.json" "$work/out"
check "verify accepts a fresh bundle" "$tool" verify "$work/sub.tar"
check "the bundle is a tar that tar(1) lists" bash -c "tar -tf '$work/sub.tar' | grep -qx report/report.html"
check "SHA256SUMS agrees with sha256sum(1)" bash -c "cd '$work' && rm -rf x && mkdir x && tar -xf sub.tar -C x && cd x && sha256sum --quiet -c SHA256SUMS"
offset=$(grep -abo '"WWN.VIS.2",' "$work/sub.tar" | sed -n 2p | cut -d: -f1)  # inside results.json
cp "$work/sub.tar" "$work/tampered.tar"
printf 'X' | dd of="$work/tampered.tar" bs=1 seek=$((offset + 6)) conv=notrunc status=none
check "exactly one byte differs" bash -c "[[ \$(cmp -l '$work/sub.tar' '$work/tampered.tar' | wc -l) == 1 ]]"
expect_error 1 "REJECTED: checksum mismatch for 'results.json'" "$tool" verify "$work/tampered.tar"
# A bundle rendered on the fly (no report directory) with the expectations file in it.
"$tool" bundle --out "$work/sub2.tar" --expectations "$fixtures/vendor-expectations.yaml" "$fixtures/failures.json"
check "verify accepts the on-the-fly bundle" "$tool" verify "$work/sub2.tar"
check "the expectations file is bundled" bash -c "tar -tf '$work/sub2.tar' | grep -qx expectations.yaml"
# Anything after the end-of-archive marker is caught, although tar(1) and libarchive ignore it.
cp "$work/sub.tar" "$work/trailing.tar" && printf 'x' >>"$work/trailing.tar"
expect_error 1 "REJECTED: the archive is damaged: tar: at byte [0-9]+: data after the end-of-archive marker" "$tool" verify "$work/trailing.tar"
# With SOURCE_DATE_EPOCH the same inputs give the same bundle, byte for byte (tar mtime included).
SOURCE_DATE_EPOCH=1764403200 "$tool" bundle --out "$work/repro1.tar" "$fixtures/pass.json" >/dev/null
SOURCE_DATE_EPOCH=1764403200 "$tool" bundle --out "$work/repro2.tar" "$fixtures/pass.json" >/dev/null
check "bundles are reproducible" cmp "$work/repro1.tar" "$work/repro2.tar"
check "the members carry SOURCE_DATE_EPOCH as mtime" bash -c "tar -tvf '$work/repro1.tar' --utc | grep -q ' 2025-11-29 08:00 results.json$'"
# An interrupted run is not a submission.
sed 's/"status": "complete"/"status": "aborted"/' "$fixtures/pass.json" >"$work/aborted.json"
"$tool" bundle --out "$work/aborted.tar" "$work/aborted.json"
expect_error 1 "REJECTED: the run is 'aborted', not 'complete'" "$tool" verify "$work/aborted.tar"

if ((fails)); then echo "$fails check(s) failed" >&2; exit 1; fi
echo "all checks passed"
