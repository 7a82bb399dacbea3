"""What to change when a release fails its check: one line per kind of failure, naming the
column and the configuration key, printed before the verdict's details (console.report_advice)."""
from __future__ import annotations

from collections import Counter, defaultdict

import duckdb

from .config import Config
from .sqlrun import table


def _examples(values) -> str:
    return ", ".join(repr(v) for v, _ in Counter(values).most_common(3))


def advise(con: duckdb.DuckDBPyConnection, cfg: Config, v) -> list[str]:
    """The lines for the verdict `v` of the release of `cfg.schema` (empty when it holds)."""
    out = []
    if v.mismatched_rows or v.unrebuilt_rows:
        out.append("the release tables were changed after the run that wrote them: run `rxanon-sql apply` again")
    if v.failing:
        out.append(f"{len(v.failing)} classes hold fewer than {v.k} persons or give a person two released tuples: "
                   "a defect of the partitioning, not of your data; run `apply --rebuild` and report it if it stays")
    for attribute in sorted({u[3] for u in v.undiverse}):
        out.append(f"classes break anonymization.l or .t on sensitive attribute {attribute!r}: lower "
                   "anonymization.l, raise anonymization.t, or raise --k")
    owner = dict(con.execute(f"SELECT norm, min(column_name) FROM {table('identifier_values', cfg.schema).sql('duckdb')} "
                             "GROUP BY norm").fetchall()) if v.identifiers else {}
    by_column = defaultdict(list)
    for column, needle, _ in v.identifiers:
        by_column[column].append(needle)
    for column, needles in by_column.items():
        sources = sorted({owner.get(n, "?") for n in needles})
        if column in cfg.text_columns:
            out.append(f"texts of column {column!r} still name values of direct identifier {', '.join(map(repr, sources))} "
                       f"(e.g. {_examples(needles)}) where no repair could go (inside another replacement): run "
                       "`apply --rebuild`, and report it with the rows listed below if it stays")
        else:
            role = "released as it is (source.insensitive)" if column in cfg.insensitive else "a quasi-identifier"
            out.append(f"column {column!r}, {role}, shows values of direct identifier {', '.join(map(repr, sources))} "
                       f"(e.g. {_examples(needles)}): add {column!r} to source.direct_identifiers, or give it a type "
                       f"that generalizes it ([attributes.{column}])")
    by_text = defaultdict(list)
    for _, _, attribute, _, _, needle in v.leaks:
        by_text[attribute].append(needle)
    for attribute, needles in by_text.items():
        out.append(f"texts of column {attribute!r} still show {len(needles)} surfaces that are replaced elsewhere in "
                   f"the same person's texts (e.g. {_examples(needles)}) where no repair could go: run `apply --rebuild`, "
                   "and report it with the rows listed below if it stays")
    if v.strict and v.suspects:
        fix = ("turn text.rare_guard on" if not cfg.rare_guard else
               "raise --k, or replace them yourself (list harmless ones in text.allow only if no one is named by them)")
        out.append(f"{len(v.suspect_strings)} rare strings that fewer than {v.k} persons wrote are still readable "
                   f"(e.g. {_examples(s for _, s, *_ in v.suspect_strings)}): {fix}")
    return out
