"""The recognizers' false positives on hotel reviews, and what they cost the release.

    python benchmarks/hotel.py [--data ../shared/data/hotel/hotel_reviews_499.csv] [--k 5]
                               [--allow hotel,breakfast,...] [--top 15] [--lower]

Loads the CSV into DuckDB (`read_csv_auto`), one person per review (`row_number() OVER ()`),
with Reviewer_Nationality (nominal), Reviewer_Score (numeric) and Review_Date (date) as
quasi-identifiers and Negative_Review and Positive_Review as text. For each setting (the
common-word guard off, on, and on with `--allow`) it prints the recognizers' spans and the
release's replacements per (label, lower-cased surface), the most frequent first, and NCP_A,
NCP_X and NCP of a real `apply` at k, and the candidates for `text.allow`: single-word spans of
the name-like labels whose word is common (wordfreq) and no known first name or place, for a
person to review (a hotel's name can be among them). The
data file is not part of the repository; when it is
absent the script says so and exits 0. `--lower` lower-cases the review texts first, as
many review and chat sources write them.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "hotel" / "hotel_reviews_499.csv"
TEXT_COLUMNS = ("Negative_Review", "Positive_Review")


def load(con, path: Path, lower: bool = False) -> None:
    """The reviews as table `reviews`: a person per row and the columns the configuration names."""
    text = ", ".join(f"lower({c}) AS {c}" if lower else c for c in TEXT_COLUMNS)
    con.execute(
        "CREATE OR REPLACE TABLE reviews AS SELECT row_number() OVER () AS person, Reviewer_Nationality, "
        f"Reviewer_Score, Review_Date, {text} FROM read_csv_auto(?)", [str(path)])


def config(k: int, common_word_guard: bool, allow=()):
    from rxanon_sql.config import parse_config
    return parse_config({
        "source": {"relations": ["reviews"], "person": "person"},
        "attributes": {"Reviewer_Nationality": {"type": "nominal"},
                       "Reviewer_Score": {"type": "numeric"},
                       # (read_csv_auto reads "8/3/17" as a DATE: no format needed)
                       "Review_Date": {"type": "date"}},
        "text": {"columns": list(TEXT_COLUMNS), "common_word_guard": common_word_guard, "allow": list(allow)},
        "anonymization": {"k": k},
    })


def run(path: Path, k: int, guard: bool, allow, lower: bool) -> dict:
    import duckdb

    from rxanon_sql.entities import recognizer_for
    from rxanon_sql.pipeline import apply
    con = duckdb.connect()
    load(con, path, lower)
    cfg = config(k, guard, allow)
    texts = [t for row in con.execute(f"SELECT {', '.join(TEXT_COLUMNS)} FROM reviews").fetchall() for t in row]
    rec = recognizer_for(cfg)
    t0 = time.perf_counter()
    spans = Counter((s.label, " ".join(s.term.lower().split())) for r in rec.entities(texts) for s in r or ())
    t_rec = time.perf_counter() - t0
    t0 = time.perf_counter()
    apply(con, cfg)
    t_apply = time.perf_counter() - t0
    replaced = Counter(dict(((l, n), c) for l, n, c in con.execute(
        "SELECT label, norm, count(*) FROM rx.replacements GROUP BY ALL").fetchall()))
    ncp_a, ncp_x, ncp = con.execute("SELECT ncp_a, ncp_x, ncp FROM rx.ncp").fetchall()[0]
    return {"spans": spans, "replaced": replaced, "ncp": (ncp_a, ncp_x, ncp), "t_rec": t_rec,
            "t_apply": t_apply, "texts": len(texts)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--allow", default="", help="comma-separated text.allow for the third setting")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--lower", action="store_true", help="lower-case the review texts")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"skipped: {args.data} not found (the hotel reviews are not part of the repository)")
        return 0
    sys.path.insert(0, str(ROOT))
    allow = tuple(w.strip() for w in args.allow.split(",") if w.strip())
    settings = [("guard off", False, ()), ("guard on", True, ())]
    if allow:
        settings.append((f"guard on, allow {len(allow)}", True, allow))
    results = {name: run(args.data, args.k, guard, al, args.lower) for name, guard, al in settings}
    names = list(results)
    first = results[names[0]]
    print(f"{first['texts']} texts ({args.data.name}{', lower-cased' if args.lower else ''}), k = {args.k}")
    for what, title in (("spans", "recognizer spans"), ("replaced", "replacements in the release")):
        # the top offenders of the first setting: single-word spans of the name-like labels
        worst = [key for key, _ in first[what].most_common() if " " not in key[1]
                 and key[0] in ("PERSON", "ORG", "PRODUCT", "FAC", "LOC", "GPE", "NORP", "WORK_OF_ART", "EVENT")]
        print(f"\n{title} per (label, surface): " + " | ".join(names))
        for key in worst[:args.top]:
            print(f"  {key[0]:<8}{key[1]!r:<16}" + "".join(f"{results[n][what][key]:>8}" for n in names))
        print(f"  {'all':<24}" + "".join(f"{sum(results[n][what].values()):>8}" for n in names))
    from udfs.ner_guards import COMMON_WORD_LABELS, common_set, known_names
    common, known = common_set("en"), known_names("en")
    candidates = Counter()
    for (label, word), n in results[names[-1]]["spans"].items():
        if label in COMMON_WORD_LABELS and word in common and word not in known.get(label, ()):
            candidates[word] += n
    print("\ncandidates for text.allow (spans of the last setting): "
          + ", ".join(f"{w} {n}" for w, n in candidates.most_common(args.top)))
    print("\n" + "".join(f"{n:<28}" for n in ["measure"] + names))
    for i, m in enumerate(("NCP_A", "NCP_X", "NCP")):
        print(f"{m:<28}" + "".join(f"{results[n]['ncp'][i]:<28.3f}" for n in names))
    print("time (recognizers, apply)   " + "".join(f"{results[n]['t_rec']:.1f}s, {results[n]['t_apply']:.1f}s".ljust(28)
                                                  for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
