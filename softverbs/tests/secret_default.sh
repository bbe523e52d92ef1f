#!/bin/bash
# With Debian's unmodified ibv_rc_pingpong (server and client started apart):
#  1. same user, SOFTVERBS_SECRET unset in both: they connect (the per-user secret file,
#     made on first use, mode 0600);
#  2. different SOFTVERBS_SECRETs: refused, and each side says so once on stderr, naming
#     the cause and SOFTVERBS_SECRET;
#  3. another user (nobody), SOFTVERBS_SECRET unset in both: refused the same way (root only);
#  4. a secret file others may read is refused at start, with the fix (chmod 600).
# usage: secret_default.sh SOFTVERBS_RUN
set -uo pipefail
run=$1
if ! command -v ibv_rc_pingpong >/dev/null; then
  echo "SKIP: ibv_rc_pingpong not found (Debian package ibverbs-utils, installed by scripts/install-deps.sh)"
  exit 77
fi
unset SOFTVERBS_SECRET SOFTVERBS_SECRET_FILE
tmp=$(mktemp -d)
chmod 755 "$tmp"
srv=
trap '[[ -n $srv ]] && kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
mkdir -m 700 "$tmp/home"
refusal='do not have the same secret'

read -r eph _ </proc/sys/net/ipv4/ip_local_port_range
((eph > 12000)) || eph=32768
attempt=0
listening() { ss -ltnH "sport = :$1" | grep -q .; }

# pair NAME: runs "${S[@]}" as the server's prefix and "${C[@]}" as the client's (env
# assignments, a user switch), each with a deadline; leaves $tmp/NAME.{server,client}
# and the client's exit status in $crc, the server's in $src (the server is killed
# 10 s after a failed client, once it said why or not).
pair() {
  local name=$1 port
  for ((;;)); do
    attempt=$((attempt + 1))
    port=$((10000 + ($$ * 7 + attempt * 1013) % (eph - 10000)))
    listening "$port" || break
  done
  "${S[@]}" timeout 30 "$run" ibv_rc_pingpong -g 0 -p "$port" -n 50 >"$tmp/$name.server" 2>&1 &
  srv=$!
  for _ in $(seq 200); do # at most 10 s for the server's port
    listening "$port" && break
    kill -0 $srv 2>/dev/null || break
    sleep 0.05
  done
  "${C[@]}" timeout 30 "$run" ibv_rc_pingpong -g 0 -p "$port" -n 50 127.0.0.1 >"$tmp/$name.client" 2>&1
  crc=$?
  if ((crc != 0)); then
    for _ in $(seq 100); do # the server says why when the client's connection arrives
      grep -q "$refusal" "$tmp/$name.server" && break
      kill -0 $srv 2>/dev/null || break
      sleep 0.1
    done
    kill $srv 2>/dev/null
  fi
  wait $srv
  src=$?
  srv=
  echo "--- $name: client exit $crc, server exit $src"
  echo "client:"; sed 's/^/  /' "$tmp/$name.client"
  echo "server:"; sed 's/^/  /' "$tmp/$name.server"
}

# refused NAME SIDE WANT...: SIDE's output says the refusal exactly once, with each WANT.
refused() {
  local name=$1 side=$2 file="$tmp/$1.$2" n
  shift 2
  n=$(grep -c "$refusal" "$file")
  ((n == 1)) || fail "$name: the $side said '$refusal' $n times, not once"
  grep -q "SOFTVERBS_SECRET" <(grep "$refusal" "$file") || fail "$name: the $side's message does not name SOFTVERBS_SECRET"
  for want in "$@"; do
    grep -qF -- "$want" <(grep "$refusal" "$file") || fail "$name: the $side's message does not say: $want"
  done
}

# 1. Same user, no SOFTVERBS_SECRET: the user's secret file, made by whichever came first.
S=(env HOME="$tmp/home") C=(env HOME="$tmp/home")
pair same-user
((crc == 0 && src == 0)) && grep -q "50 iters in" "$tmp/same-user.client" ||
  fail "same-user: two programs of one user without SOFTVERBS_SECRET did not connect"
secret="$tmp/home/.config/softverbs/secret"
if [[ ! -f $secret ]]; then
  fail "same-user: no secret file $secret"
else
  [[ $(stat -c %a "$secret") == 600 ]] || fail "same-user: $secret has mode $(stat -c %a "$secret"), not 600"
  grep -Eqx '[0-9a-f]{32}' "$secret" || fail "same-user: $secret does not hold 32 hex digits"
fi
grep -q "$refusal" "$tmp"/same-user.* && fail "same-user: a refusal was reported"

# 2. Different SOFTVERBS_SECRETs: refused on both sides, said once each.
S=(env SOFTVERBS_SECRET=one) C=(env SOFTVERBS_SECRET=two)
pair differ
((crc != 0)) || fail "differ: a client with another SOFTVERBS_SECRET connected"
refused differ client "this one uses SOFTVERBS_SECRET" "QP 0x"
refused differ server "this one uses SOFTVERBS_SECRET" "QP 0x"

# 3. Another user, SOFTVERBS_SECRET unset in both: their secret files differ.
as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody 2>/dev/null)" --clear-groups)
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
  "${as_nobody[@]}" env HOME=/nonexistent SOFTVERBS_SECRET=probe "$run" true 2>/dev/null; then
  mkdir -m 700 "$tmp/nobody-home"
  chown nobody "$tmp/nobody-home"
  S=(env HOME="$tmp/home")
  C=("${as_nobody[@]}" env HOME="$tmp/nobody-home")
  pair other-user
  ((crc != 0)) || fail "other-user: another user's program connected"
  refused other-user client "this one uses the per-user secret file $tmp/nobody-home/.config/softverbs/secret"
  refused other-user server "this one uses the per-user secret file $secret"
else
  echo "(another user: skipped, needs root, setpriv and a user nobody who can run $run)"
fi

# 4. A secret file others may read is refused when the library loads, with the fix.
chmod 644 "$secret"
HOME="$tmp/home" timeout 30 "$run" ibv_devinfo >"$tmp/mode.out" 2>&1
echo "--- mode 0644:"; sed 's/^/  /' "$tmp/mode.out"
grep -qF "the secret file $secret has mode 0644" "$tmp/mode.out" && grep -qF "refusing it" "$tmp/mode.out" &&
  grep -qF "chmod 600 $secret" "$tmp/mode.out" ||
  fail "mode: a secret file of mode 0644 was not refused with its mode and the fix"

if ((failures)); then
  echo "FAIL: $failures check(s) failed"
  exit 1
fi
echo "PASS"
