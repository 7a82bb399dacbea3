"""Two versions of rxanon-sql after NER, in turn: wall, CPU, peak memory and stages of `apply
--rebuild`, medians of alternated runs, and whether the two releases are the same (identity.py).

    git worktree add --detach /tmp/before <commit>      # the version to compare with
    python benchmarks/ab.py /tmp/before . --db NER_CACHED.duckdb --config CFG --ks 2,5 --rounds 3

Each run is `python -m rxanon_sql apply COPY --config CFG --k K --rebuild --quiet` with the tree
as working directory and on PYTHONPATH (its modules win over an installed package), on a fresh
copy of --db (never written to), so that everything after NER runs and NER itself does not. The
runs alternate (before, after, before, ...) so that the load of a shared machine falls on both
alike; quote medians and the CPU seconds (user + system of the process and DuckDB's threads,
from os.wait4), which the load moves less than the wall time. The stages are apply's `timings`
line, the residual audit its last line. The last run of each side per k is kept under --workdir
and compared with identity.compare: the speed work must change no released byte.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from identity import compare  # noqa: E402

STAGES = ("terms", "linking", "recoding_release", "measures", "check", "residual")


def run_once(tree: Path, db: Path, config: Path, k: int, copy: Path) -> dict:
    """One `apply --rebuild` of `tree` on a fresh copy of db: wall, cpu, peak (MB), stages."""
    shutil.copyfile(db, copy)
    for leftover in (Path(f"{copy}.wal"), Path(f"{copy}.tmp")):
        if leftover.is_dir():
            shutil.rmtree(leftover)
        elif leftover.exists():
            leftover.unlink()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    log = copy.with_suffix(".log")
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "rxanon_sql", "apply", str(copy), "--config", str(config),
                                 "--k", str(k), "--rebuild", "--quiet"], cwd=tree, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    text = log.read_text()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{tree}: apply failed (k = {k}), see {log}")
    timings = re.search(r"^timings: (.*)$", text, re.M)
    stages = {name: float(s) for name, s in re.findall(r"(\w+) ([0-9.]+)s", timings.group(1))} if timings else {}
    residual = re.search(r"^residual audit:.*\(([0-9.]+)s\)", text, re.M)
    stages["residual"] = float(residual.group(1)) if residual else float("nan")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss / 1024, "stages": stages,
            "load": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path, help="source tree of the version to compare with")
    ap.add_argument("after", type=Path, help="source tree of the version measured")
    ap.add_argument("--db", type=Path, required=True, help="a database with the data loaded and its NER cache filled")
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--ks", default="2,5")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/rxanon-ab"))
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    ks = [int(k) for k in args.ks.split(",")]
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(args.rounds):
        for k in ks:
            for side, tree in sides.items():
                result = run_once(tree, args.db, args.config, k, args.workdir / f"{side}_k{k}.duckdb")
                runs.setdefault((side, k), []).append(result)
                print(f"round {r + 1} k={k} {side}: {result['wall']:.1f} s wall, {result['cpu']:.1f} CPU s, "
                      f"{result['peak']:.0f} MB, load {result['load']:.1f}", file=sys.stderr, flush=True)
    loads = [x["load"] for v in runs.values() for x in v]
    print(f"medians of {args.rounds} alternated runs per version and k (load {min(loads):.1f} to {max(loads):.1f})\n")
    print("| k | version | wall | CPU | peak RSS | " + " | ".join(STAGES) + " |")
    print("| ---: | --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in STAGES) + " |")
    for k in ks:
        for side in sides:
            v = runs[(side, k)]
            med = lambda f: statistics.median(f(x) for x in v)  # noqa: E731
            stages = " | ".join(f"{med(lambda x: x['stages'].get(s, 0.0)):.2f} s" for s in STAGES)
            print(f"| {k} | {side} | {med(lambda x: x['wall']):.1f} s | {med(lambda x: x['cpu']):.1f} s | "
                  f"{med(lambda x: x['peak']):,.0f} MB | {stages} |")
    print()
    same = True
    for k in ks:
        rows = compare(str(args.workdir / f"before_k{k}.duckdb"), str(args.workdir / f"after_k{k}.duckdb"))
        differing = [(name, a, b, d) for name, a, b, d in rows if d or a != b]
        same &= not differing
        print(f"k = {k}: release " + ("identical" if not differing else
                                     "DIFFERENT: " + ", ".join(f"rx.{n} {d} rows" for n, _, _, d in differing)))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
