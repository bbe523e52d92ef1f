#!/usr/bin/env python3
"""Checks a CI template of docs/ci/ with a real YAML parser (PyYAML) and then the
structure its CI system needs for the hcts gate (docs/ci/README.md).

usage: check_yaml_template.py github|gitlab FILE
Exit status: 0 the template holds, 1 it does not (each problem printed), 2 usage.
"""
import sys

import yaml

GATE_SCRIPT = "hcts-gate.sh"
REPORTS = ("hcts-results/junit.xml", "hcts-results/report.html")


def text_of(value):
    """A script entry as one string: a string, or a list of strings (GitLab)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    return ""


def check_install(where, script, problems):
    # The hcts .deb is installed with apt-get, after an update (a fresh container has no lists).
    if "apt-get update" not in script:
        problems.append(f"{where}: no 'apt-get update' before installing hcts")
    if not any("apt-get install" in line and "hcts_*.deb" in line for line in script.splitlines()):
        problems.append(f"{where}: no 'apt-get install ... hcts_*.deb' step installing hcts")


def check_github(doc, problems):
    # PyYAML reads YAML 1.1, where the bare key `on` is the boolean true.
    if "on" not in doc and True not in doc:
        problems.append("no 'on' (the events that start the workflow)")
    jobs = doc.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        problems.append("no 'jobs' mapping with at least one job")
        return
    for name, job in jobs.items():
        where = f"jobs.{name}"
        if not isinstance(job, dict):
            problems.append(f"{where} is not a mapping")
            continue
        if "runs-on" not in job:
            problems.append(f"{where}: no 'runs-on'")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
            problems.append(f"{where}: 'steps' is not a non-empty list of mappings")
            continue
        runs = [s.get("run") for s in steps if isinstance(s.get("run"), str)]
        check_install(where, "\n".join(runs), problems)
        gate = [i for i, s in enumerate(steps) if GATE_SCRIPT in str(s.get("run", ""))]
        if not gate:
            problems.append(f"{where}: no step runs {GATE_SCRIPT}")
        elif "if" in steps[gate[0]]:
            problems.append(f"{where}: the {GATE_SCRIPT} step has an 'if'; it must always decide the job")
        uploads = [
            (i, s) for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("actions/upload-artifact@")
        ]
        if not uploads:
            problems.append(f"{where}: no actions/upload-artifact step")
        for i, step in uploads:
            if "always()" not in str(step.get("if", "")):
                problems.append(f"{where}.steps[{i}]: the upload has no 'if: always()' (a failed gate uploads nothing)")
            path = str((step.get("with") or {}).get("path", ""))
            for report in REPORTS:
                if report not in path:
                    problems.append(f"{where}.steps[{i}]: the upload's path does not include {report}")
            if gate and i < gate[0]:
                problems.append(f"{where}.steps[{i}]: the upload comes before the gate step")


def check_gitlab(doc, problems):
    reserved = {"variables", "stages", "default", "include", "workflow", "image", "services", "cache",
                "before_script", "after_script"}
    jobs = {k: v for k, v in doc.items()
            if isinstance(k, str) and k not in reserved and not k.startswith(".") and isinstance(v, dict)}
    gate_jobs = {k: v for k, v in jobs.items() if GATE_SCRIPT in text_of(v.get("script"))}
    if not gate_jobs:
        problems.append(f"no job whose 'script' runs {GATE_SCRIPT}")
    for name, job in jobs.items():
        for key in ("before_script", "script", "after_script"):
            entries = job.get(key)
            if entries is not None and not text_of(entries):
                problems.append(f"{name}: {key} is not a string or a list of strings "
                                "(an unquoted ': ' in a command makes a mapping)")
    for name, job in gate_jobs.items():
        where = name
        check_install(where, text_of(job.get("before_script")) + "\n" + text_of(job.get("script")), problems)
        artifacts = job.get("artifacts")
        if not isinstance(artifacts, dict):
            problems.append(f"{where}: no 'artifacts'")
            continue
        if artifacts.get("when") != "always":
            problems.append(f"{where}: artifacts.when is {artifacts.get('when')!r}, not 'always' "
                            "(a failed gate uploads nothing)")
        paths = artifacts.get("paths")
        if not isinstance(paths, list):
            problems.append(f"{where}: artifacts.paths is not a list")
        else:
            for report in REPORTS:
                if report not in paths:
                    problems.append(f"{where}: artifacts.paths does not include {report}")
        junit = (artifacts.get("reports") or {}).get("junit")
        if junit != "hcts-results/junit.xml":
            problems.append(f"{where}: artifacts.reports.junit is {junit!r}, not 'hcts-results/junit.xml'")


def main(argv):
    if len(argv) != 3 or argv[1] not in ("github", "gitlab"):
        print("usage: check_yaml_template.py github|gitlab FILE", file=sys.stderr)
        return 2
    kind, path = argv[1], argv[2]
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"{path}: not a readable YAML document: {e}", file=sys.stderr)
        return 1
    if not isinstance(doc, dict):
        print(f"{path}: the document is a {type(doc).__name__}, not a mapping", file=sys.stderr)
        return 1
    problems = []
    (check_github if kind == "github" else check_gitlab)(doc, problems)
    for p in problems:
        print(f"{path}: {p}", file=sys.stderr)
    if not problems:
        print(f"{path}: a {kind} template with install, gate and always-uploaded reports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
