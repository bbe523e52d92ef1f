#!/usr/bin/env bash
# hcts-gate.sh: the one shell step every CI template in docs/ci/ runs (GitHub Actions,
# GitLab CI, Jenkins), so the gate behaves the same everywhere and is tested once
# (ctest ci_templates.steps). It checks its inputs, runs `hcts run` against the
# vendor's library and adapter, says where the reports are, and exits with hcts'
# own status: 0 only if the gate passed (docs/ci/README.md lists the statuses).
#
# Inputs (environment):
#   HCTS_IUT           the hcomm library under test (required)
#   HCTS_ADAPTER       its platform adapter (required)
#   HCTS_GATE          default | strict (default: default)
#   HCTS_EXPECTATIONS  an expectations file waiving known failures (optional)
#   HCTS_OUT           where results.json, junit.xml, report.html, summary.md go
#                      (default: hcts-results; remade on every run)
#   HCTS_CMD           the hcts command (default: hcts, from PATH)
#   HCTS_EXTRA_ARGS    more `hcts run` arguments, split at blanks (e.g. "--full")
# Arguments after the inputs are passed to `hcts run` last, unchanged: use them for
# anything with blanks or glob characters, e.g. `hcts-gate.sh -- --gtest_filter='Index.*'`.
set -euo pipefail

say() { printf 'hcts-gate: %s\n' "$*" >&2; }
# Status 2, as hcts' own usage errors: nothing was judged.
die() {
  say "$*"
  exit 2
}

# A library path must name a readable regular file: a CI variable left empty or
# pointing at a build that did not happen must stop here, not deep inside MPI.
check_file() {
  local var=$1 what=$2 path=${!1:-}
  [[ -n $path ]] || die "$var is not set; it must name $what"
  [[ -e $path ]] || die "$var '$path' does not exist; it must name $what"
  [[ -f $path ]] || die "$var '$path' is not a regular file; it must name $what"
  [[ -r $path ]] || die "$var '$path' is not readable by user $(id -un 2>/dev/null || id -u); it must name $what"
}

check_file HCTS_IUT "the hcomm library under test (.so)"
check_file HCTS_ADAPTER "the platform adapter for it (.so)"

gate=${HCTS_GATE:-default}
[[ $gate == default || $gate == strict ]] || die "HCTS_GATE is '$gate'; allowed: default, strict"

expectations=${HCTS_EXPECTATIONS:-}
[[ -z $expectations ]] || check_file HCTS_EXPECTATIONS "an expectations file (schema hcts-expectations)"

hcts=${HCTS_CMD:-hcts}
command -v -- "$hcts" >/dev/null ||
  die "the hcts command '$hcts' was not found; install the hcts package (apt-get install ./hcts_*.deb) or set HCTS_CMD"

# A reused workspace (Jenkins keeps it between builds) must not show the last run's
# reports as this run's: the directory is remade, but only one this script made,
# marked by .hcts-gate, so a mistyped HCTS_OUT never deletes someone's files.
out=${HCTS_OUT:-hcts-results}
[[ -n $out && $out != / ]] || die "HCTS_OUT is '$out'; it must name a directory for the results and reports"
if [[ -e $out || -L $out ]]; then
  [[ -d $out && ! -L $out && -f $out/.hcts-gate ]] ||
    die "HCTS_OUT '$out' exists and was not made by hcts-gate.sh (no $out/.hcts-gate); remove it or choose another directory"
  rm -rf -- "$out"
fi
mkdir -p -- "$out" || die "cannot create HCTS_OUT '$out'"
out=$(cd -- "$out" && pwd)
printf 'made by hcts-gate.sh; removed and remade on its next run\n' >"$out/.hcts-gate"

args=(run --iut "$HCTS_IUT" --adapter "$HCTS_ADAPTER" --gate "$gate" --results "$out/results.json" --reports "$out")
[[ -n $expectations ]] && args+=(--expectations "$expectations")
if [[ -n ${HCTS_EXTRA_ARGS:-} ]]; then
  # Split at blanks without glob expansion (read -a never globs).
  read -r -a extra <<<"$HCTS_EXTRA_ARGS"
  args+=("${extra[@]}")
fi
args+=("$@")

say "running: $hcts ${args[*]}"
status=0
"$hcts" "${args[@]}" || status=$?

for f in junit.xml report.html summary.md results.json; do
  if [[ -f $out/$f ]]; then
    say "report: $out/$f"
  else
    say "missing: $out/$f (hcts wrote no $f; its log above says why)"
  fi
done
case $status in
  0) say "gate PASSED (exit 0)" ;;
  1) say "gate FAILED (exit 1): a MUST clause (with --gate strict, a STRICT clause) failed, a waiver is stale (XPASS), or the run is incomplete" ;;
  2) say "NOT JUDGED (exit 2): hcts could not set up the run (bad option, library, adapter or expectations file)" ;;
  124) say "gate FAILED (exit 124): a case ran past its deadline (TIMEOUT)" ;;
  125) say "gate FAILED (exit 125): MPI failed inside the harness (a rank was lost)" ;;
  *)
    if ((status > 128)); then
      say "gate FAILED (exit $status): hcts was terminated by signal $((status - 128))"
    else
      say "gate FAILED (exit $status)"
    fi
    ;;
esac
exit "$status"
