"""Surrogates for the `pseudonymize` operator (seed paper 003, section 5). Dates and times are
parsed and shifted by dates.py, realistic values come from Faker (fake.py), identifiers keep
their format (randomize.py and each recognizer's `surrogate`).

Every surrogate is drawn from a random stream keyed by hmac(secret, person, label, norm, attempt):
the same term of the same person always gets the same surrogate (co-reference), two persons get
independent draws, a rerun with the same secret gives the same release, and without the secret
nothing links a surrogate back to its term. Faker is only used as a source of realistic values
(its lists and formats are seeded per term), so no global random state is touched.

- Names (PERSON) keep a per-person first-letter mapping (so initials stay consistent: "G." and
  "Gandalf" become "B." and "Bilbo") and the gender of a known given name.
- Identifiers (MAIL, URL, PHONE, IBAN, CARD, SSN, IP, POSTCODE, any label of a registered rule
  recognizer, and configured patterns) keep their format: each digit becomes a random digit, each
  letter a random letter of the same case; URL schemes, "www." and top-level domains stay; IBAN
  and card checksums are made valid again. Each recognizer's `surrogate` (udfs/recognizers/) says how.
- Dates (DATE) and times (TIME) are shifted by one offset per person, so order and intervals
  between a person's dates are kept, in the format they were written in.
- Numbers (MONEY, QUANTITY, CARDINAL, PERCENT) get random digits of the same magnitude.
- Places, organisations, facilities, jobs and languages get a Faker value of that kind.
Labels with none of these return NULL; SQL then writes a tag instead.
"""
from __future__ import annotations

import hashlib
import hmac
import random
import re
import string
from functools import lru_cache

import pyarrow as pa

from .dates import shift_date, shift_time
from .fake import FAKER_LOCK, faker, names
from .randomize import randomize
from .recognizers import surrogate_of

DATE_LABELS = ("DATE",)
TIME_LABELS = ("TIME",)
NUMBER_LABELS = ("MONEY", "QUANTITY", "CARDINAL", "PERCENT")
NAME_LABELS = ("PERSON",)
TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "lady", "mx", "st"}
CONTINENTS = ("Africa", "Antarctica", "Asia", "Europe", "North America", "Oceania", "South America")


class Surrogates:
    """surrogate(person, label, norm, surface, attempt) -> str | None; `arrow` is the UDF."""

    def __init__(self, secret: str | bytes, locale: str = "en_US", pattern_labels=(), geo=None):
        self.secret = secret.encode() if isinstance(secret, str) else secret
        self.locale = locale
        self.pattern_labels = frozenset(pattern_labels)
        self.geo = geo  # a callable norm -> 'country' | 'continent' | 'state' | 'city' | None

    def warm_up(self) -> None:
        faker(self.locale)
        names(self.locale)
        if self.geo:
            self.geo("")

    def rng(self, *parts) -> random.Random:
        msg = "\x1f".join(str(p) for p in parts).encode()
        return random.Random(int.from_bytes(hmac.new(self.secret, msg, hashlib.sha256).digest(), "big"))

    # one offset per person (and attempt): |days| in [183, 730], never a whole number of weeks
    # or years, so that no year, month, weekday or day-month is left as it was
    def date_offset(self, person: str, label: str, attempt: int) -> int:
        r = self.rng(person, label, "shift", attempt)
        while True:
            d = r.randint(183, 730)
            if d % 7 and d not in (365, 366, 730):
                return d if r.random() < 0.5 else -d

    @lru_cache(maxsize=4096)  # noqa: B019 - one map per person, drawn once, not once per name
    def letter_map(self, person: str) -> dict[str, str]:
        # Letters that start male, female and family names of the locale map among themselves
        # (so a mapped name can keep its gender); the rare ones among themselves.
        r = self.rng(person, "letters")
        initials = names(self.locale)["initials"]
        common = [c for c in string.ascii_uppercase if all(c in i for i in initials)]
        rare = [c for c in string.ascii_uppercase if c not in common]
        out = {}
        for group in (common, rare):
            perm = list(group)
            r.shuffle(perm)
            out.update(zip(group, perm))
        return out

    def surrogate(self, person, label, norm, surface, attempt=0) -> str | None:
        person = str(person)
        try:
            return self._surrogate(person, label, norm, surface or norm, int(attempt or 0))
        except Exception:  # a term that no generator understands gets a tag
            return None

    def _surrogate(self, person, label, norm, surface, attempt) -> str | None:
        if label in DATE_LABELS:
            return shift_date(surface, self.date_offset(person, label, attempt))
        if label in TIME_LABELS:
            off = self.date_offset(person, label, attempt)
            return shift_time(surface, off * 7 % 1409 + 31)
        r = self.rng(person, label, norm, attempt)
        if label in NAME_LABELS:
            return self._name(person, norm, surface, r)
        # (a rule recognizer's own format: checksums made valid again, a URL's scheme kept)
        fmt = surrogate_of(label)
        if fmt is not None:
            return fmt(surface, r)
        if label in self.pattern_labels:
            return randomize(surface, r, nonzero_first=True)
        if label in NUMBER_LABELS:
            return randomize(surface, r, keep={i for i, c in enumerate(surface) if c.isalpha()}, nonzero_first=True) \
                if any(c.isdigit() for c in surface) else None
        # DuckDB calls the UDF from several threads, and the Faker instance is shared: seeding it
        # and drawing from it must not interleave with another call's, or a draw follows the
        # other call's seed (with 2 threads, 2,028 of 49,234 replacements differed between two
        # runs with one secret).
        with FAKER_LOCK:
            value = self._faker_value(r, label, norm)
        return None if value is None else _recase_phrase(value, surface)

    def _faker_value(self, r: random.Random, label: str, norm: str) -> str | None:
        fake = faker(self.locale)
        fake.seed_instance(r.getrandbits(64))
        if label in ("GPE", "LOC"):
            kind = self.geo(norm) if self.geo else None
            if kind == "continent":
                return r.choice([c for c in CONTINENTS if c.lower() != norm])
            if kind == "country":
                return fake.country()
            if kind == "state" and hasattr(fake, "state"):
                return fake.state()
            if kind == "city" or label == "GPE":
                return fake.city()
            return None
        if label == "ORG":
            return fake.company()
        if label == "FAC":
            return fake.street_name()
        if label == "JOB":
            return fake.job().split(",")[0].lower()
        if label == "LANGUAGE" and hasattr(fake, "language_name"):
            return fake.language_name()
        return None

    def _name(self, person, norm, surface, r: random.Random) -> str | None:
        lists = names(self.locale)
        letters = self.letter_map(person)
        words = surface.split()
        if not words:
            return None
        out = []
        name_words = [i for i, w in enumerate(words) if w.lower().rstrip(".") not in TITLES]
        for i, w in enumerate(words):
            if i not in name_words:
                out.append(w)
                continue
            core = re.match(r"^([^\W\d_][\w'’-]*?)((?:['’]s)?[.,]?)$", w)
            if core is None:
                out.append(w)
                continue
            word, suffix = core.group(1), core.group(2)
            first = word[0].upper()
            mapped = letters.get(first)
            if len(word) == 1:  # an initial
                out.append((mapped or r.choice(string.ascii_uppercase)) + suffix)
                continue
            low = word.lower()
            family = len(name_words) > 1 and i == name_words[-1] or \
                (len(name_words) == 1 and low not in lists["is_first"] and low in lists["is_last"])
            if family:
                pool = "last"
            elif low in lists["is_male"]:
                pool = "male"
            elif low in lists["is_female"]:
                pool = "female"
            else:
                pool = "any"
            # the mapped first letter if the pool has it, else any name of the locale that has it
            by_initial = lists["by_initial"]
            cands = [n for n in by_initial[pool].get(mapped, ()) if n.lower() != low] or \
                [n for n in by_initial["any+last"].get(mapped, ()) if n.lower() != low] or \
                [n for n in lists[pool] if n.lower() != low]
            out.append(_recase_phrase(r.choice(cands), word) + suffix)
        return " ".join(out)

    def arrow(self, person: pa.Array, label: pa.Array, norm: pa.Array, surface: pa.Array, attempt: pa.Array) -> pa.Array:
        return pa.array([self.surrogate(p, l, n, s, a) for p, l, n, s, a in zip(
            person.to_pylist(), label.to_pylist(), norm.to_pylist(), surface.to_pylist(), attempt.to_pylist())],
            type=pa.string())


def _recase_phrase(value: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return value.upper()
    if like.islower():
        return value.lower()
    return value
