#!/usr/bin/env python3
"""Differential runs over random legal configs (issue 16 item 8).

For every seed: gen_config.py writes a config, `systole isa check` must accept it, then each model
runs with `systole run MODEL --isa CONFIG --check --races`. A run is

  bit-exact  exit 0: every NPU output equals the reference interpreter's, no race;
  rejected   exit 2 with a systole diagnostic: the compiler cannot map the model onto this config
             (e.g. too little on-chip memory); listed by message so each can be judged a real limit;
  BUG        anything else: a failed check or race (exit 1), an internal error (a C++ exception
             that is no systole::Error, "systole: error: ..."), a code-generation invariant, a crash
             (signal) or a timeout.

Exit status 0 when no run is a BUG (and, with --strict, none is rejected).

    differential.py --systole BIN --seeds 1-200[/STEP] --model a.onnx --model b.onnx [-j 2] [--keep DIR] [--strict]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_config  # noqa: E402


def seed_list(text):
    """'1-200', '1-200/4' (every 4th), '3,17,42'."""
    seeds = []
    for part in text.split(","):
        span, _, step = part.partition("/")
        lo, _, hi = span.partition("-")
        seeds += range(int(lo), int(hi or lo) + 1, int(step or 1))
    return seeds


def first_error(text):
    for line in text.splitlines():
        if re.search(r"\b(error|fault|differs?|race)\b", line):
            return line.strip()[:300]
    return (text.strip().splitlines() or ["(no output)"])[-1][:300]


def classify(rc, out):
    if rc == 0:
        return "bit-exact"
    if rc == 2 and "systole: error:" not in out and "code generation:" not in out:
        return "rejected"
    return "BUG"


def run_one(systole, config, model, timeout, env):
    cmd = [systole, "run", model, "--isa", config, "--check", "--races", "--no-cache"]
    start = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        rc, out = p.returncode, p.stderr + p.stdout
    except subprocess.TimeoutExpired:
        rc, out = "timeout", f"timed out after {timeout} s"
    kind = "BUG" if rc == "timeout" else classify(rc, out)
    return kind, rc, first_error(out) if kind != "bit-exact" else "", time.time() - start


def run_seed(args, seed, workdir, env):
    config = os.path.join(workdir, f"rand{seed}.yaml")
    with open(config, "w") as f:
        f.write(gen_config.config_text(seed))
    check = subprocess.run([args.systole, "isa", "check", config], capture_output=True, text=True, env=env)
    if check.returncode != 0:
        return seed, config, [("(isa check)", "BUG", check.returncode, "illegal config: " + first_error(check.stderr), 0.0)]
    results = []
    for model in args.model:
        kind, rc, why, secs = run_one(args.systole, config, model, args.timeout, env)
        results.append((os.path.basename(model), kind, rc, why, secs))
    return seed, config, results


def normalize(message):
    """A message with its numbers and quoted names blanked, to group like rejections."""
    message = re.sub(r"^\S+: error: ", "", message)
    return re.sub(r"'[^']*'", "'_'", re.sub(r"\d+", "N", message))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systole", required=True)
    ap.add_argument("--seeds", type=seed_list, required=True, help="e.g. 1-200 or 3,17,42")
    ap.add_argument("--model", action="append", required=True, help="an ONNX model (repeatable)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="seeds run in parallel")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run")
    ap.add_argument("--keep", help="directory that keeps the generated configs (default: a temporary one)")
    ap.add_argument("--strict", action="store_true", help="a rejected run fails too")
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="randcfg-")
    workdir = args.keep or tmp.name
    os.makedirs(workdir, exist_ok=True)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp.name, "cache"))
    counts = collections.Counter()
    rejections = collections.defaultdict(list)
    bugs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for seed, config, results in pool.map(lambda s: run_seed(args, s, workdir, env), args.seeds):
            for model, kind, rc, why, secs in results:
                counts[kind] += 1
                line = f"seed {seed} {model}: {kind}" + (f" (exit {rc}) {why}" if why else "") + f" [{secs:.1f} s]"
                print(line, flush=True)
                if kind == "rejected":
                    rejections[normalize(why)].append(f"{seed}/{model}")
                elif kind == "BUG":
                    bugs.append(f"{line}\n    config: {config} (tests/randcfg/gen_config.py {seed})")
    runs = sum(counts.values())
    print(f"\nconfigs: {len(args.seeds)}, runs: {runs}, bit-exact: {counts['bit-exact']}, rejected: {counts['rejected']}, "
          f"bugs: {counts['BUG']}")
    for message, where in sorted(rejections.items(), key=lambda kv: -len(kv[1])):
        print(f"  rejected x{len(where)}: {message}  (e.g. {', '.join(where[:4])})")
    for b in bugs:
        print("  " + b)
    return 1 if counts["BUG"] or (args.strict and counts["rejected"]) else 0


if __name__ == "__main__":
    sys.exit(main())
