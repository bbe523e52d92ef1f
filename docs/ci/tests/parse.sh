#!/usr/bin/env bash
# ctest ci_templates.parse: each CI template of docs/ci/ through a real parser and a
# structure check (check_yaml_template.py: PyYAML; check_jenkinsfile.groovy: Groovy's
# compiler to its CONVERSION phase), then mutated copies that the same checkers must
# reject, so the check can fail: a syntax error in each, and each missing piece the
# gate relies on (always-uploaded reports, the JUnit report, an unwrapped gate step).
# usage: parse.sh DOCS_CI_DIR
# shellcheck disable=SC2015 # ok() only prints, so `check && ok || bad` is if-then-else
set -euo pipefail

(($# == 1)) || {
  echo "usage: parse.sh DOCS_CI_DIR" >&2
  exit 2
}
ci=$1
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import yaml' 2>/dev/null || {
  echo "skipped: python3 cannot import yaml; install python3-yaml (scripts/install-deps.sh)" >&2
  exit 77
}
command -v groovy >/dev/null || {
  echo "skipped: no groovy; install groovy (scripts/install-deps.sh)" >&2
  exit 77
}
# shellcheck source=checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/checks.sh" parse

# The YAML checks run one file each (Python starts fast); the Jenkinsfiles are collected
# and go through one groovy run at the end (a JVM start costs about a second).
jk_files=() jk_names=() jk_wanted=()
# judge NAME STATUS OUTPUT WANTED: WANTED empty means the file must hold (status 0).
judge() {
  local name=$1 status=$2 out=$3 wanted=$4
  if [[ -z $wanted ]]; then
    [[ $status == 0 ]] && ok "$out" || bad "$name rejected (status $status): $out"
  elif [[ $status == 1 && $out == *"$wanted"* ]]; then
    ok "$name rejected: $wanted"
  else
    bad "$name: status $status (wanted 1 with '$wanted'): $out"
  fi
}
yaml_check() {
  local name=$1 kind=$2 path=$3 wanted=$4 status=0 out
  out=$(python3 "$here/check_yaml_template.py" "$kind" "$path" 2>&1) || status=$?
  judge "$name" "$status" "$out" "$wanted"
}
declare -A file=([github]=github-actions.yml [gitlab]=gitlab-ci.yml [jenkins]=Jenkinsfile)

yaml_check github-actions.yml github "$ci/${file[github]}" ""
yaml_check gitlab-ci.yml gitlab "$ci/${file[gitlab]}" ""
jk_files+=("$ci/${file[jenkins]}") jk_names+=(Jenkinsfile) jk_wanted+=("")

# mutant KIND NAME OLD NEW WANTED: a copy of KIND's template with the first OLD replaced
# by NEW must be rejected (status 1) with WANTED in the message. A mutation that no
# longer applies fails too: the template changed, and this list must follow it.
mutant() {
  local kind=$1 name=$2 old=$3 new=$4 wanted=$5 copy=$work/$2.${file[$1]}
  python3 - "$ci/${file[$kind]}" "$copy" "$old" "$new" <<'EOF' || { bad "$name: the mutation does not apply to ${file[$kind]}"; return; }
import sys
src, dst, old, new = sys.argv[1:]
text = open(src, encoding="utf-8").read()
if old not in text:
    sys.exit(1)
open(dst, "w", encoding="utf-8").write(text.replace(old, new, 1))
EOF
  if [[ $kind == jenkins ]]; then
    jk_files+=("$copy") jk_names+=("$name") jk_wanted+=("$wanted")
  else
    yaml_check "$name" "$kind" "$copy" "$wanted"
  fi
}

mutant github gh-syntax $'    steps:\n' $'    steps: [\n' "not a readable YAML document"
mutant github gh-no-always "        if: always()
        uses: actions/upload-artifact" "        uses: actions/upload-artifact" "the upload has no 'if: always()'"
mutant github gh-no-upload "uses: actions/upload-artifact@v4" "uses: actions/cache@v4" "no actions/upload-artifact step"
mutant github gh-no-junit "            hcts-results/junit.xml" "" "does not include hcts-results/junit.xml"
mutant github gh-no-gate "run: /usr/share/hcts/ci/hcts-gate.sh" "run: hcts run" "no step runs hcts-gate.sh"
mutant github gh-no-install "./hcts-deb/hcts_*.deb" "hcts" "no 'apt-get install ... hcts_*.deb'"
mutant gitlab gl-syntax "  image: debian:12" "  image: \"debian:12" "not a readable YAML document"
mutant gitlab gl-not-always "    when: always" "    when: on_success" "artifacts.when is 'on_success'"
mutant gitlab gl-no-junit "      junit: hcts-results/junit.xml" "      junit: junit.xml" "artifacts.reports.junit is 'junit.xml'"
mutant gitlab gl-colon "    - 'echo \"VENDOR: build \$HCTS_IUT and \$HCTS_ADAPTER here\" >&2'" \
  "    - echo \"VENDOR: build\"" "an unquoted ': ' in a command makes a mapping"
mutant gitlab gl-no-gate "    - /usr/share/hcts/ci/hcts-gate.sh" "    - hcts run" "no job whose 'script' runs hcts-gate.sh"
mutant jenkins jk-syntax $'    post {\n' $'    post {{\n' "not valid Groovy"
mutant jenkins jk-no-junit "junit testResults:" "echo testResults:" "no junit step in post { always { } }"
mutant jenkins jk-no-archive "archiveArtifacts artifacts:" "echo artifacts:" "no archiveArtifacts step"
mutant jenkins jk-wrapped "sh '/usr/share/hcts/ci/hcts-gate.sh'" "sh '/usr/share/hcts/ci/hcts-gate.sh || true'" \
  "the gate step looks wrapped"
mutant jenkins jk-not-always "        always {" "        success {" "no junit step in post { always { } }"

# One groovy run over the Jenkinsfile and its mutants; each file's lines start with its path.
jk_out=$(groovy "$here/check_jenkinsfile.groovy" "${jk_files[@]}" 2>&1) || true
for i in "${!jk_files[@]}"; do
  lines=$(grep -F -- "${jk_files[$i]}: " <<<"$jk_out" || true)
  [[ -n $lines ]] || {
    bad "${jk_names[$i]}: groovy said nothing about it: $jk_out"
    continue
  }
  status=1
  [[ $lines == *": a Jenkins pipeline with "* ]] && status=0
  judge "${jk_names[$i]}" "$status" "$lines" "${jk_wanted[$i]}"
done

if ((fails)); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all checks passed"
