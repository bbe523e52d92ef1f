# Sourced by the ci_templates tests: a scratch directory removed at exit, and a tally
# of checks (ok / bad) whose failures the test reports at its end.
# usage: . checks.sh NAME   (sets $work, $fails; defines ok and bad)
work=$(mktemp -d "${TMPDIR:-/tmp}/hcts-ci-$1.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
