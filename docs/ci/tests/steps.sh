#!/usr/bin/env bash
# ctest ci_templates.steps: runs docs/ci/hcts-gate.sh, the shell step of every CI
# template, as a CI job would: in a fresh workspace, with `hcts` found on PATH.
# That hcts is $HCTS_CMD (e.g. an installed prefix's bin/hcts) or, by default, the
# source tree's ./hcts on this build's preset (it builds nothing when the build is current).
#   1. the reference passes the gate: exit 0, the four reports written and named;
#   2. bad inputs stop the script before hcts runs, with status 2 and the value in the message;
#   3. a stub hcts: the script passes every input and extra argument through unchanged
#      (no word splitting of paths, no globbing), remakes the output directory (no stale
#      reports survive), and exits with hcts' status exactly (124);
#   4. a wrong library fails the strict gate: exit 1, reports written, the clause FAILs and
#      the waived one is WAIVED (the expectations file reached hcts).
# usage: steps.sh SOURCE_DIR IUT ADAPTER WRONG_IUT   (environment: HCTS_CI_PRESET, HCTS_CMD, HCTS_GATE_SCRIPT)
# shellcheck disable=SC2015 # ok() only prints, so `check && ok || bad` is if-then-else
set -euo pipefail

(($# == 4)) || {
  echo "usage: steps.sh SOURCE_DIR IUT ADAPTER WRONG_IUT" >&2
  exit 2
}
for f in "$2" "$3" "$4"; do
  [[ -f $f ]] || {
    echo "'$f' does not exist; build it first (cmake --build build)" >&2
    exit 1
  }
done
# Absolute: the jobs below run in a workspace of their own.
src=$(realpath -- "$1") iut=$(realpath -- "$2") adapter=$(realpath -- "$3") wrong=$(realpath -- "$4")
# The installed copy when the test runs against an installed prefix (HCTS_GATE_SCRIPT).
script=${HCTS_GATE_SCRIPT:-$src/docs/ci/hcts-gate.sh}
[[ -x $script ]] || {
  echo "the gate script '$script' is not an executable file" >&2
  exit 1
}
# shellcheck source=checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/checks.sh" steps

# hcts on PATH, as the templates find it after installing the package. A wrapper, not
# a symlink: an installed hcts may find its prefix from its own path.
mkdir -p "$work/bin" "$work/job"
if [[ -n ${HCTS_CMD:-} ]]; then
  real=$(command -v -- "$HCTS_CMD") || {
    echo "HCTS_CMD '$HCTS_CMD' is not an executable command" >&2
    exit 1
  }
  printf '#!/usr/bin/env bash\nexec %q "$@"\n' "$real" >"$work/bin/hcts"
  echo "hcts: $real"
else
  [[ -n ${HCTS_CI_PRESET:-} ]] || {
    echo "skipped: this build directory is none of ./hcts's presets (build, build-asan, build-tsan), so ./hcts cannot run on it; set HCTS_CMD to an hcts command" >&2
    exit 77
  }
  # ./hcts takes --preset after its command. (The $ in the format is for the wrapper.)
  # shellcheck disable=SC2016
  printf '#!/usr/bin/env bash\ncmd=$1\nshift\nexec %q "$cmd" --preset %q "$@"\n' "$src/hcts" "$HCTS_CI_PRESET" >"$work/bin/hcts"
  echo "hcts: $src/hcts --preset $HCTS_CI_PRESET"
fi
chmod +x "$work/bin/hcts"
export PATH=$work/bin:$PATH
cd "$work/job"

# Runs the script with exactly the given inputs (none leaks in from the caller) and a
# deadline; its output goes to $work/LOG.log, its status to $status.
gate() {
  local log=$1
  shift
  status=0
  env -u HCTS_IUT -u HCTS_ADAPTER -u HCTS_GATE -u HCTS_EXPECTATIONS -u HCTS_OUT -u HCTS_CMD -u HCTS_EXTRA_ARGS \
    timeout --kill-after=5 150 env "$@" >"$work/$log.log" 2>&1 || status=$?
}
has() { grep -qF -- "$2" "$work/$1.log"; }
# A field of hcts-results/results.json (a Python expression over d), printed.
field() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' hcts-results/results.json "$1"; }
clause() { field "next(c['verdict'] for c in d['clauses'] if c['id'] == '$1')"; }

# 1. The reference passes: every clause of the plain configuration, no properties.
t0=$SECONDS
gate pass HCTS_IUT="$iut" HCTS_ADAPTER="$adapter" HCTS_EXTRA_ARGS="--quick --no-properties" "$script"
echo "reference run: $((SECONDS - t0)) s, exit $status"
[[ $status == 0 ]] && ok "the reference passes the gate (exit 0)" || bad "the reference's gate run exited $status"
for f in junit.xml report.html summary.md results.json; do
  if [[ -s hcts-results/$f ]] && has pass "hcts-gate: report: $work/job/hcts-results/$f"; then
    ok "$f written and named"
  else
    bad "$f missing, empty or not named in the log"
  fi
done
if [[ -f hcts-results/results.json ]]; then
  [[ $(field "d['run']['gate'], d['summary']['gate']") == "('default', 'pass')" ]] &&
    ok "results.json: default gate, pass" || bad "results.json: gate $(field "d['run'].get('gate'), d['summary'].get('gate')")"
fi
grep -q '<property name="gate" value="PASS"/>' hcts-results/junit.xml 2>/dev/null &&
  ok "junit.xml records the passed gate" || bad "junit.xml does not record gate PASS"
has pass "gate PASSED (exit 0)" && ok "the script says the gate passed" || bad "no pass line in the script's output"

# 2. Bad inputs: status 2 before hcts runs, the message names the variable and the value.
mkdir -p "$work/kept" && echo mine >"$work/kept/file"
: >"$work/unreadable.so" && chmod 000 "$work/unreadable.so"
while IFS='|' read -r name msg vars; do
  read -r -a assign <<<"$vars"
  gate "$name" "${assign[@]}" "$script"
  if [[ $status == 2 ]] && has "$name" "$msg" && ! has "$name" "hcts-gate: running:"; then
    ok "$name: status 2, '$msg'"
  else
    bad "$name: status $status; wanted 2 with '$msg' and hcts not run; output: $(tr '\n' ' ' <"$work/$name.log")"
  fi
done <<EOF
no-iut|HCTS_IUT '$work/none.so' does not exist|HCTS_IUT=$work/none.so HCTS_ADAPTER=$adapter
unset-adapter|HCTS_ADAPTER is not set|HCTS_IUT=$iut
dir-iut|HCTS_IUT '$work' is not a regular file|HCTS_IUT=$work HCTS_ADAPTER=$adapter
bad-gate|HCTS_GATE is 'lenient'; allowed: default, strict|HCTS_IUT=$iut HCTS_ADAPTER=$adapter HCTS_GATE=lenient
no-expectations|HCTS_EXPECTATIONS '$work/none.yaml' does not exist|HCTS_IUT=$iut HCTS_ADAPTER=$adapter HCTS_EXPECTATIONS=$work/none.yaml
foreign-out|HCTS_OUT '$work/kept' exists and was not made by hcts-gate.sh|HCTS_IUT=$iut HCTS_ADAPTER=$adapter HCTS_OUT=$work/kept
no-hcts|the hcts command 'no-such-hcts' was not found|HCTS_IUT=$iut HCTS_ADAPTER=$adapter HCTS_CMD=no-such-hcts
EOF
# Root reads any file; the check only means something for another user.
if ((EUID != 0)); then
  gate unreadable HCTS_IUT="$work/unreadable.so" HCTS_ADAPTER="$adapter" "$script"
  [[ $status == 2 ]] && has unreadable "is not readable" && ok "unreadable IUT refused" || bad "unreadable IUT: status $status"
fi
[[ $(cat "$work/kept/file") == mine ]] && ok "a directory the script did not make is left alone" || bad "the foreign HCTS_OUT was changed"

# 3. A stub hcts: arguments through unchanged, the output directory remade, the status kept.
cat >"$work/bin/stub-hcts" <<'EOF'
#!/usr/bin/env bash
printf '%s\n' "$@" >"$STUB_ARGS"
exit 124
EOF
chmod +x "$work/bin/stub-hcts"
printf 'schema: hcts-expectations\nschema_version: 1\nexpectations:\n  - clause: WWN.IDX.3\n    expected: FAIL\n    reason: "ci_templates.steps: a waiver reaches hcts"\n' >"$work/waive idx3.yaml"
: >Index.glob # a file the glob Index.* would match, were it expanded
gate stub STUB_ARGS="$work/args" HCTS_CMD=stub-hcts HCTS_IUT="$iut" HCTS_ADAPTER="$adapter" HCTS_GATE=strict \
  HCTS_EXPECTATIONS="$work/waive idx3.yaml" HCTS_EXTRA_ARGS=" --quick  Index.* " "$script" -- "--gtest_filter=A B"
out=$work/job/hcts-results
expected=(run --iut "$iut" --adapter "$adapter" --gate strict --results "$out/results.json" --reports "$out"
  --expectations "$work/waive idx3.yaml" --quick 'Index.*' -- "--gtest_filter=A B")
[[ $status == 124 ]] && ok "hcts' status 124 is the script's" || bad "stub exited 124, the script $status"
if [[ -f $work/args && $(cat "$work/args") == "$(printf '%s\n' "${expected[@]}")" ]]; then
  ok "every input reaches hcts as one argument, extra arguments unglobbed, trailing arguments last"
else
  bad "hcts got: $(tr '\n' '|' <"$work/args" 2>/dev/null); wanted: $(printf '%s|' "${expected[@]}")"
fi
[[ ! -e hcts-results/junit.xml && -f hcts-results/.hcts-gate ]] && has stub "missing: $out/junit.xml" &&
  ok "the last run's reports are gone, their absence said" || bad "stale reports survived or their absence was not said"
has stub "exit 124): a case ran past its deadline" && ok "the script names status 124" || bad "no TIMEOUT line for status 124"

# 4. A wrong library (accepts one notify index too many) fails the strict gate; the
# waiver of WWN.IDX.3 reaches hcts. A subset of cases: the clauses it decides are checked.
t0=$SECONDS
gate fail HCTS_IUT="$wrong" HCTS_ADAPTER="$adapter" HCTS_GATE=strict HCTS_EXPECTATIONS="$work/waive idx3.yaml" \
  HCTS_EXTRA_ARGS="--quick --no-properties" "$script" -- --gtest_filter='Index.OutOfRangeRejected*'
echo "wrong library run: $((SECONDS - t0)) s, exit $status"
[[ $status == 1 ]] && has fail "gate FAILED (exit 1)" && ok "the failed gate fails the job (exit 1)" ||
  bad "the wrong library's gate run exited $status (wanted 1)"
[[ -s hcts-results/junit.xml && -s hcts-results/report.html ]] && ok "reports written after the failed gate" ||
  bad "no junit.xml or report.html after the failed gate"
if [[ -f hcts-results/results.json ]]; then
  got="$(field "d['run']['gate'], d['summary']['gate']") $(clause WWN.IDX.2) $(clause WWN.IDX.3)"
  [[ $got == "('strict', 'fail') FAIL WAIVED" ]] && ok "strict gate, WWN.IDX.2 FAIL, WWN.IDX.3 WAIVED" ||
    bad "results.json: gate, WWN.IDX.2, WWN.IDX.3 are $got"
else
  bad "no results.json after the failed gate"
fi
grep -A1 'name="WWN.IDX.2' hcts-results/junit.xml 2>/dev/null | grep -q '<failure' &&
  ok "junit.xml has WWN.IDX.2 as a failure" || bad "junit.xml lacks the WWN.IDX.2 failure"

if ((fails)); then
  echo "$fails check(s) failed; the script's output of each run is above or in the logs:"
  for f in "$work"/*.log; do
    echo "---- $(basename "$f")"
    tail -40 "$f"
  done
  exit 1
fi
echo "all checks passed"
