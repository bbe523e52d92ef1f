#!/usr/bin/env bash
# The HTML report in a real browser: headless Debian chromium loads it from
# file://, runs its script, and we check the DOM it ends up with; screenshots
# are kept for people (WORK_DIR/*.png).
#   browser_test.sh HCTS_REPORT FIXTURES_DIR WORK_DIR
set -euo pipefail
tool=$1 fixtures=$2 work=$3
browser=$(command -v chromium || true)
if [[ -z $browser ]]; then
  echo "chromium is not installed; it is required for this test: apt-get install -y chromium (scripts/deps.d/reports.txt)" >&2
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"
profile=$(mktemp -d "$work/profile.XXXXXX")
trap 'rm -rf "$profile"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAILED: $1" >&2; fails=$((fails + 1)); }

# chromium ARGS... URL: headless, no network services, bounded in time.
run_browser() {
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --disable-extensions \
    --disable-default-apps --user-data-dir="$profile" --hide-scrollbars "$@" 2>>"$work/chromium.log"
}
dom() { run_browser --dump-dom "$1" >"$2"; }
count() { grep -o -- "$1" "$2" | wc -l; }

# One run with failures.
"$tool" render --out "$work/failures" "$fixtures/failures.json" >/dev/null
url="file://$work/failures/report.html"
dom "$url" "$work/failures.dom.html"
d="$work/failures.dom.html"
grep -q 'data-ready="1"' "$d" && ok "the page's script ran to the end" || bad "the page's script did not finish (data-ready)"
grep -q 'id="overall-verdict" data-verdict="FAIL">FAIL<' "$d" && ok "overall verdict FAIL" || bad "overall verdict is not FAIL"
n=$(count '<tr class="clause-row"' "$d")
[[ $n == 11 ]] && ok "11 clause rows" || bad "clause rows: $n, expected 11"
grep -q '11 shown' "$d" && ok "filter counter says 11 shown" || bad "filter counter missing"
# The failing clause's evidence: its row holds an open <details> with the message and the reproducer.
row=$(grep -o 'id="r0-WWN.IDX.2".*' "$d" | sed 's/<tr class="clause-row".*//')
[[ $row == *'<details class="evidence" open="">'* ]] && ok "WWN.IDX.2 evidence is open" || bad "WWN.IDX.2 evidence is not open"
[[ $row == *'returned 0 (HCCL_SUCCESS); expected HCCL_E_PARA (4)'* ]] && ok "WWN.IDX.2 failure reason reachable" || bad "WWN.IDX.2 reason not in its row"
[[ $row == *"./hcts run --filter 'NotifyIndex.AtNotifyNum'"* ]] && ok "WWN.IDX.2 reproducer reachable" || bad "WWN.IDX.2 reproducer not in its row"
n=$(count '<svg class="hist"' "$d")
[[ $n == 2 ]] && ok "2 litmus charts" || bad "litmus charts: $n, expected 2"

# The script filters from the URL: only the FAIL clauses stay visible.
dom "$url#verdict=FAIL" "$work/filtered.dom.html"
shown=$(grep -o '<tr class="clause-row"[^>]*>' "$work/filtered.dom.html" | grep -vc 'hidden' || true)
[[ $shown == 2 ]] && ok "#verdict=FAIL leaves 2 clause rows visible" || bad "#verdict=FAIL leaves $shown rows visible, expected 2"
grep -q '2 of 11 shown' "$work/filtered.dom.html" && ok "filter counter says 2 of 11" || bad "filter counter wrong after filtering"

# Two runs side by side: the comparison matrix.
"$tool" render --out "$work/compare" "$fixtures/pass.json" "$fixtures/failures.json" "$fixtures/timeout.json" >/dev/null
dom "file://$work/compare/report.html" "$work/compare.dom.html"
n=$(count '<tr class="compare-row"' "$work/compare.dom.html")
[[ $n == 11 ]] && ok "comparison has 11 clause rows" || bad "comparison rows: $n, expected 11"
grep -q '1 of 3 runs pass the gate' "$work/compare.dom.html" && ok "1 of 3 runs pass" || bad "comparison lead sentence missing"

# The JUnit file parses as XML in the browser too (chromium shows a parsererror otherwise).
run_browser --dump-dom "file://$work/failures/junit.xml" >"$work/junit.dom.html"
grep -q 'parsererror\|This page contains the following errors' "$work/junit.dom.html" && bad "junit.xml does not parse in chromium" || ok "junit.xml parses"

# Screenshots for people.
run_browser --window-size=1400,2600 --screenshot="$work/report-failures.png" "$url" >/dev/null
run_browser --window-size=1400,1400 --screenshot="$work/report-compare.png" "file://$work/compare/report.html" >/dev/null
for png in "$work/report-failures.png" "$work/report-compare.png"; do
  if [[ -s $png ]] && [[ $(head -c 8 "$png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && (($(stat -c %s "$png") > 20000)); then
    ok "screenshot $png ($(stat -c %s "$png") bytes)"
  else
    bad "screenshot $png missing or empty"
  fi
done

if ((fails)); then echo "$fails check(s) failed; chromium's log: $work/chromium.log" >&2; exit 1; fi
echo "all checks passed"
