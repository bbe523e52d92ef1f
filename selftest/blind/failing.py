#!/usr/bin/env python3
"""failing.py RESULTS.json [run.log]: one line naming what a run failed: the gate, the
clauses whose verdict is not PASS/PROFILE/NOT_SUPPORTED/WAIVED (id, kind, verdict and the
configurations it failed in), the properties and litmus entries that did not pass."""
import json, sys

def main():
    path = sys.argv[1]
    try:
        d = json.load(open(path))
    except Exception as e:  # no results (a hang killed by timeout, a crash before writing)
        tail = ""
        if len(sys.argv) > 2:
            try:
                lines = [l.strip() for l in open(sys.argv[2], errors="replace") if l.strip()]
                tail = " | ".join(lines[-2:])[:300]
            except OSError:
                pass
        print(f"no results.json ({type(e).__name__}); log: {tail}")
        return
    ok = {"PASS", "PROFILE", "NOT_SUPPORTED", "WAIVED"}
    parts = []
    s = d.get("summary", {})
    parts.append(f"gate={s.get('gate')} must={s.get('must_passed')}/{s.get('must_total')}")
    if s.get("not_run"):
        parts.append("not_run=" + ",".join(map(str, s["not_run"])))
    bad = []
    for c in d.get("clauses", []):
        if c.get("verdict") in ok:
            continue
        cfgs = [x["name"] for x in c.get("configurations", []) if x.get("verdict") not in ok]
        bad.append(f"{c['id']}({c.get('kind')}:{c.get('verdict')}@{'+'.join(cfgs) or '-'})")
    parts.append("clauses: " + (" ".join(bad) if bad else "none"))
    props = [f"{p['name']}:{p['verdict']}" for p in d.get("properties", []) if p.get("verdict") != "PASS"]
    if props:
        parts.append("properties: " + " ".join(props))
    lit = sorted({f"{l['id']}:{l['verdict']}" for l in d.get("litmus", []) if l.get("verdict") not in ("PASS", "PROFILE", "NOT_SUPPORTED")})
    if lit:
        parts.append("litmus: " + " ".join(lit))
    cfg = [f"{c['name']}:{c.get('status')}" for c in d.get("configurations", []) if c.get("status") != "complete"]
    if cfg:
        parts.append("configs: " + " ".join(cfg))
    print("; ".join(parts))

main()
