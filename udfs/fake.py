"""Faker as a source of realistic values for the `pseudonymize` operator: a locale's given names by
gender and family names, by initial (`names`), and one shared generator per locale (`faker`),
seeded per term by the caller under `FAKER_LOCK`."""
from __future__ import annotations

import threading
from functools import lru_cache

FAKER_LOCK = threading.Lock()


@lru_cache(maxsize=8)
def faker(locale: str):
    from faker import Faker
    return Faker(locale)


@lru_cache(maxsize=8)
def names(locale: str) -> dict[str, tuple]:
    """Given names by gender and family names of a locale (and en_US for telling gender)."""
    def provider(loc):
        gen = faker(loc)[loc]
        return next(p for p in gen.providers if p.__provider__.endswith(".person"))
    out = {"male": set(), "female": set(), "last": set()}
    lists = {}
    for loc in dict.fromkeys((locale, "en_US")):
        p = provider(loc)
        male = tuple(getattr(p, "first_names_male", ()) or ())
        female = tuple(getattr(p, "first_names_female", ()) or ())
        first = tuple(getattr(p, "first_names", ()) or ()) or male + female
        last = tuple(getattr(p, "last_names", ()) or ())
        out["male"].update(n.lower() for n in male)
        out["female"].update(n.lower() for n in female)
        out["last"].update(n.lower() for n in last)
        if loc == locale:
            lists = {"male": male or first, "female": female or first, "any": first or male + female, "last": last}
    lists["is_male"] = frozenset(out["male"] - out["female"])
    lists["is_female"] = frozenset(out["female"] - out["male"])
    lists["is_first"] = frozenset(out["male"] | out["female"])
    lists["is_last"] = frozenset(out["last"])
    # Names by initial, so that a draw looks only at the names of its mapped letter.
    lists["by_initial"] = {pool: _by_initial(lists[pool]) for pool in ("male", "female", "any", "last")}
    lists["by_initial"]["any+last"] = _by_initial(lists["any"] + lists["last"])
    lists["initials"] = [frozenset(lists["by_initial"][k]) for k in ("male", "female", "last")]
    return lists


def _by_initial(names) -> dict[str, tuple]:
    out: dict[str, list] = {}
    for n in names:
        out.setdefault(n[:1].upper(), []).append(n)
    return {c: tuple(v) for c, v in out.items()}
