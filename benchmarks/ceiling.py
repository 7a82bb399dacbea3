"""How many words a release could keep at most without leaving a rare string readable.

    python benchmarks/ceiling.py RELEASE.duckdb [RELEASE.duckdb ...]

Reads finished releases (`apply` output) and prints one row each. The rare-string count of
benchmarks/privacy.py (`rare left`) must stay 0: every token of three characters or more with a
letter, no common word (wordfreq Zipf < 3) and in the original texts of 1 to k - 1 persons is
replaced. The *ceiling* is the share of the original words a release keeps if the rare guard
replaced those words and nothing else, while every other replacement (the model's terms,
propagation, the rules, direct identifiers, recoding) stays as it is. A words-kept target above
the ceiling cannot be met without leaving a rare string readable or keeping terms the method
suppresses.

The guard's words are split by why they went:
- required: what the count itself requires (above);
- per class: single words that k or more persons of the corpus write but not every person of
  the writer's class (a string is kept only where the whole class shows it);
- runs: the other words of the guard's multi-word strings (capitalised runs such as "San Juan",
  shouted text, which the guard cuts into runs of two to four words);
- other: the rest (a dictionary word written with a capital inside a sentence, a number).

Words are counted as the `[\\pL\\pN_]+` tokens inside the replaced spans of the original texts,
over the tokens of all original texts (not the per-person measure of rx.utility, which differs
in the third decimal).
"""
from __future__ import annotations

import sys

import duckdb
import pyarrow as pa

from rxanon_sql.common_words import common_words

TOKEN = r"[\pL\pN_]+"

COUNTS = r"""
WITH holders AS (
    SELECT w, count(DISTINCT person) AS n
    FROM (SELECT person, unnest(regexp_extract_all(lower(text), $token)) AS w FROM rx.texts)
    GROUP BY w
),
required AS (
    SELECT w FROM holders ANTI JOIN zipf3 AS c ON c.word = holders.w
    WHERE length(w) >= 3 AND regexp_matches(w, '\pL') AND n BETWEEN 1 AND (SELECT k FROM rx.params) - 1
),
spans AS (
    SELECT r.label = 'RARE' AS guard,
           regexp_extract_all(lower(substring(x.text, r.start_pos + 1, r.end_pos - r.start_pos)), $token) AS ws
    FROM rx.replacements AS r
    JOIN rx.texts AS x ON x.row_id = r.row_id AND x.attribute = r.attribute
),
words AS (
    SELECT guard, len(ws) > 1 AS run, unnest(ws) AS w FROM spans
),
judged AS (
    SELECT w.guard, w.run, q.w IS NOT NULL AS required, coalesce(h.n, 0) >= (SELECT k FROM rx.params) AS many
    FROM words AS w
    LEFT JOIN required AS q ON q.w = w.w
    LEFT JOIN holders AS h ON h.w = w.w
)
SELECT (SELECT sum(len(regexp_extract_all(text, $token))) FROM rx.texts) AS tokens,
       count(*) FILTER (WHERE NOT guard) AS other_words,
       count(*) FILTER (WHERE guard) AS guard_words,
       count(*) FILTER (WHERE guard AND required) AS required,
       count(*) FILTER (WHERE guard AND NOT required AND NOT run AND many) AS per_class,
       count(*) FILTER (WHERE guard AND NOT required AND run) AS runs
FROM judged
"""


def ceiling(path: str) -> dict:
    con = duckdb.connect(path, read_only=True)
    con.register("zipf3", pa.table({"word": pa.array(common_words("en", 3.0), pa.string())}))
    row = con.execute(COUNTS, {"token": TOKEN}).fetchall()[0]
    k = con.execute("SELECT k FROM rx.params").fetchall()[0][0]
    kept = con.execute("SELECT share_kept FROM rx.utility WHERE scope = 'all'").fetchall()[0][0]
    con.close()
    tokens, other, guard, required, per_class, runs = row
    return {"release": path, "k": k, "kept": kept, "other": other / tokens, "guard": guard / tokens,
            "required": required / tokens, "per_class": per_class / tokens, "runs": runs / tokens,
            "rest": (guard - required - per_class - runs) / tokens,
            "ceiling": 1 - (other + required) / tokens}


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| release | k | words kept | other replacements | guard | of it: required / per class / runs / other "
          "| ceiling |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for path in sys.argv[1:]:
        c = ceiling(path)
        print(f"| {c['release']} | {c['k']} | {c['kept']:.3f} | {c['other']:.3f} | {c['guard']:.3f} | "
              f"{c['required']:.3f} / {c['per_class']:.3f} / {c['runs']:.3f} / {c['rest']:.3f} | {c['ceiling']:.3f} |")


if __name__ == "__main__":
    main()
