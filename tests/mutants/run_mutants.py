#!/usr/bin/python3
"""Mutation testing: plants each mutant of mutants.py, one at a time, in a scratch worktree of HEAD,
rebuilds incrementally and runs the tests; a mutant is killed when a test fails, survives when all
pass, and is stillborn when it does not build. Not in CI (minutes per mutant): run it before
resolving test-related work.

usage: tests/mutants/run_mutants.py [--only NAME,...] [--ctest-args "-L unit -L e2e ..."] [--work DIR]
Prints one line per mutant and the score (killed / (killed + survived)); exits 1 if any survived.
"""
import argparse
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from mutants import MUTANTS  # noqa: E402

repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True,
                      cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
ap = argparse.ArgumentParser()
ap.add_argument("--only", default="", help="comma-separated mutant names")
ap.add_argument("--ctest-args", default="", help="extra ctest arguments, e.g. \"-L unit\" or \"-R e2e-model\"")
ap.add_argument("--work", default="/tmp/systole-mutants", help="the scratch worktree (kept between runs: builds are incremental)")
args = ap.parse_args()
chosen = [m for m in MUTANTS if not args.only or m["name"] in args.only.split(",")]


def sh(cmd, cwd, log=None):
    return subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode


if not os.path.isdir(args.work):
    subprocess.run(["git", "worktree", "add", "--detach", args.work, "HEAD"], cwd=repo, check=True, capture_output=True)
else:
    subprocess.run(["git", "checkout", "--detach", "--force", subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                                                                             text=True).stdout.strip()], cwd=args.work, check=True, capture_output=True)
jobs = str(os.cpu_count() or 2)
print(f"building the unmutated tree in {args.work} ...", flush=True)
if sh("cmake --preset default > /dev/null && cmake --build --preset default", args.work) != 0:
    sys.exit("the unmutated tree does not build")
killed, survived = [], []
for m in chosen:
    path = os.path.join(args.work, m["file"])
    original = open(path).read()
    if original.count(m["find"]) != 1:
        print(f"{m['name']}: SKIPPED (its text occurs {original.count(m['find'])} times in {m['file']}: update mutants.py)")
        continue
    start = time.time()
    open(path, "w").write(original.replace(m["find"], m["replace"]))
    try:
        log = open(os.path.join(args.work, f"mutant-{m['name']}.log"), "w")
        if sh(["cmake", "--build", "--preset", "default"], args.work, log) != 0:
            print(f"{m['name']}: STILLBORN (does not build)")
            continue
        failed = sh(["ctest", "--preset", "default", "-j", jobs, *shlex.split(args.ctest_args)], args.work, log) != 0
    finally:
        open(path, "w").write(original)
    (killed if failed else survived).append(m["name"])
    print(f"{m['name']}: {'killed' if failed else 'SURVIVED'} ({time.time() - start:.0f} s) - {m['why']}", flush=True)
sh(["cmake", "--build", "--preset", "default"], args.work)  # leave the scratch tree built as HEAD
total = len(killed) + len(survived)
print(f"score: {len(killed)} / {total} killed" + (f" ({100 * len(killed) / total:.0f}%)" if total else "") +
      (f"; survived: {', '.join(survived)}" if survived else ""))
sys.exit(1 if survived else 0)
