"""Surrogates for the `pseudonymize` operator (seed paper 003, section 5), and the date parser
that the `generalize` operator shares.

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

import datetime as dt
import hashlib
import hmac
import random
import re
import string
import threading
from functools import lru_cache

import pyarrow as pa

from .randomize import randomize
from .recognizers import surrogate_of

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_ALT = "|".join(sorted({m for m in MONTHS} | {m[:3] for m in MONTHS} | {"sept"}, key=len, reverse=True))
_WEEKDAY_ALT = "|".join(sorted(set(WEEKDAYS) | {w[:3] for w in WEEKDAYS}, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)"

DATE_LABELS = ("DATE",)
TIME_LABELS = ("TIME",)
NUMBER_LABELS = ("MONEY", "QUANTITY", "CARDINAL", "PERCENT")
NAME_LABELS = ("PERSON",)
TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "lady", "mx", "st"}
CONTINENTS = ("Africa", "Antarctica", "Asia", "Europe", "North America", "Oceania", "South America")


# --- dates ---------------------------------------------------------------------------------

def _month_of(token: str) -> int | None:
    t = token.lower().rstrip(".")
    for i, m in enumerate(MONTHS):
        if t == m or t == m[:3] or (t == "sept" and i == 8):
            return i + 1
    return None


def _valid(y: int, m: int, d: int) -> bool:
    try:
        dt.date(y, m, d)
        return True
    except ValueError:
        return False


_DATE_PATTERNS = [
    # 2004-05-14, 2004/05/14
    ("ymd", re.compile(r"(?<!\d)(?P<y>\d{4})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})(?!\d)")),
    # 14.05.2004, 05/14/2004, 14-05-04
    ("num", re.compile(r"(?<!\d)(?P<a>\d{1,2})(?P<s>[-/.])(?P<b>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})(?!\d)")),
    # May 14(th)(,) 2004 / May 14
    ("mdy", re.compile(rf"\b(?P<mon>{_MONTH_ALT})\.?\s+(?P<d>\d{{1,2}})(?P<o>{_ORD})?\b(?:(?P<c>,?\s+)(?P<y>\d{{4}})\b)?", re.I)),
    # (the) 14(th) (of) May(,) (2004)
    ("dmy", re.compile(rf"\b(?P<d>\d{{1,2}})(?P<o>{_ORD})?(?P<of>\s+of)?\s+(?P<mon>{_MONTH_ALT})\b\.?(?:(?P<c>,?\s+)(?P<y>\d{{4}})\b)?", re.I)),
    # May 2004, May
    ("my", re.compile(rf"\b(?P<mon>{_MONTH_ALT})\b\.?(?:(?P<c>,?\s+)(?P<y>\d{{4}})\b)?", re.I)),
    # 2004
    ("y", re.compile(r"(?<![\d-])(?P<y>1[89]\d{2}|20\d{2})(?![\d-])")),
    # Monday
    ("wd", re.compile(rf"\b(?P<w>{_WEEKDAY_ALT})\b", re.I)),
]


def parse_date(text: str) -> tuple[str, dict, re.Match] | None:
    """The first date-like part of text: (kind, fields, match). kind is 'day' (y, m, d), 'daymonth'
    (m, d), 'month' (y, m), 'monthonly' (m), 'year' (y) or 'weekday' (w)."""
    for kind, rx in _DATE_PATTERNS:
        for m in rx.finditer(text):
            g = m.groupdict()
            if kind == "ymd":
                y, mo, d = int(g["y"]), int(g["m"]), int(g["d"])
                if _valid(y, mo, d):
                    return "day", {"y": y, "m": mo, "d": d}, m
            elif kind == "num":
                a, b, yy = int(g["a"]), int(g["b"]), g["y"]
                y = int(yy) if len(yy) == 4 else (2000 + int(yy) if int(yy) < 50 else 1900 + int(yy))
                dm = g["s"] == "." or a > 12  # day first: dotted dates and impossible months
                d, mo = (a, b) if dm else (b, a)
                if _valid(y, mo, d):
                    return "day", {"y": y, "m": mo, "d": d, "dayfirst": dm}, m
            elif kind in ("mdy", "dmy"):
                mo, d = _month_of(g["mon"]), int(g["d"])
                if mo and _valid(2000, mo, d):
                    if g.get("y") and _valid(int(g["y"]), mo, d):
                        return "day", {"y": int(g["y"]), "m": mo, "d": d}, m
                    if not g.get("y"):
                        return "daymonth", {"m": mo, "d": d}, m
            elif kind == "my":
                mo = _month_of(g["mon"])
                if mo:
                    return ("month", {"y": int(g["y"]), "m": mo}, m) if g.get("y") else ("monthonly", {"m": mo}, m)
            elif kind == "y":
                return "year", {"y": int(g["y"])}, m
            elif kind == "wd":
                w = g["w"].lower()[:3]
                return "weekday", {"w": [x[:3] for x in WEEKDAYS].index(w)}, m
    return None


def _recase(new: str, like: str) -> str:
    if like.isupper():
        return new.upper()
    if like.islower():
        return new.lower()
    return new[:1].upper() + new[1:].lower() if like[:1].isupper() else new


def _month_name(m: int, like: str) -> str:
    name = MONTHS[m - 1]
    stripped = like.rstrip(".")
    if stripped.lower() not in MONTHS:  # the original was abbreviated
        name = "sept" if stripped.lower() == "sept" and m == 9 else name[:3]
    return _recase(name, stripped) + ("." if like.endswith(".") and len(name) <= 4 else "")


def _ordinal(d: int) -> str:
    return "th" if 10 <= d % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")


def _pad(n: int, like: str) -> str:
    return str(n).zfill(2) if len(like) == 2 else str(n)


def shift_date(text: str, days: int) -> str | None:
    """text with its first date shifted by `days` (coarser dates by the month or year that the
    shift moves them into), written in the same format; None when text holds no date."""
    parsed = parse_date(text)
    if parsed is None:
        return None
    kind, f, m = parsed
    g = m.groupdict()
    if kind == "day":
        new = dt.date(f["y"], f["m"], f["d"]) + dt.timedelta(days=days)
    elif kind == "daymonth":
        new = dt.date(2000, f["m"], f["d"]) + dt.timedelta(days=days)
    elif kind in ("month", "monthonly"):
        new = dt.date(f.get("y", 2001), f["m"], 15) + dt.timedelta(days=days)
    elif kind == "year":
        new = dt.date(f["y"], 7, 2) + dt.timedelta(days=days)
    else:
        w = (f["w"] + days) % 7
        word = WEEKDAYS[w] if len(g["w"]) > 3 else WEEKDAYS[w][:3]
        return text[:m.start()] + _recase(word, g["w"]) + text[m.end():]
    name = next(k for k, rx in _DATE_PATTERNS if rx is m.re)

    def year(like: str) -> str:
        return str(new.year) if len(like) == 4 else f"{new.year % 100:02d}"
    repl: dict[str, str] = {}
    if name == "ymd":
        repl = {"y": year(g["y"]), "m": _pad(new.month, g["m"]), "d": _pad(new.day, g["d"])}
    elif name == "num":
        a, b = (new.day, new.month) if f.get("dayfirst") else (new.month, new.day)
        repl = {"a": _pad(a, g["a"]), "b": _pad(b, g["b"]), "y": year(g["y"])}
    elif name in ("mdy", "dmy", "my"):
        repl = {"mon": _month_name(new.month, g["mon"])}
        if g.get("d"):
            repl["d"] = _pad(new.day, g["d"])
        if g.get("o"):
            repl["o"] = _ordinal(new.day)
        if g.get("y"):
            repl["y"] = str(new.year)
    else:
        repl = {"y": str(new.year)}
    out, last = [], m.start()
    for key in sorted(repl, key=m.start):
        out.append(text[last:m.start(key)] + repl[key])
        last = m.end(key)
    out = "".join(out) + text[last:m.end()]
    return text[:m.start()] + out + text[m.end():]


_TIME = re.compile(r"(?<!\d)(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?(?P<sp>\s*)(?P<ap>[ap]\.?m\.?)?(?!\d)", re.I)


def shift_time(text: str, minutes: int) -> str | None:
    m = _TIME.search(text)
    if m is None or (m.group("mi") is None and m.group("ap") is None):
        return None
    h, mi, ap = int(m.group("h")), int(m.group("mi") or 0), m.group("ap")
    if ap:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ap.lower().startswith("p") else 0)
    elif h > 23 or mi > 59:
        return None
    total = (h * 60 + mi + (minutes if m.group("mi") else minutes // 60 * 60)) % (24 * 60)
    nh, nm = divmod(total, 60)
    if ap:
        word = ("pm" if nh >= 12 else "am")
        word = word[0] + "." + word[1] + "." if "." in ap else word
        word = word.upper() if ap.isupper() else word
        out = str(nh % 12 or 12) + (f":{nm:02d}" if m.group("mi") else "") + m.group("sp") + word
    else:
        out = (f"{nh:02d}" if m.group("h").startswith("0") or len(m.group("h")) == 2 else str(nh)) + f":{nm:02d}"
    return text[:m.start()] + out + text[m.end():]


# --- the generator ---------------------------------------------------------------------------

_FAKER_LOCK = threading.Lock()


@lru_cache(maxsize=8)
def _faker(locale: str):
    from faker import Faker
    return Faker(locale)


@lru_cache(maxsize=8)
def _names(locale: str) -> dict[str, tuple]:
    """Given names by gender and family names of a locale (and en_US for telling gender)."""
    def provider(loc):
        gen = _faker(loc)[loc]
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


class Surrogates:
    """surrogate(person, label, norm, surface, attempt) -> str | None; `arrow` is the UDF."""

    def __init__(self, secret: str | bytes, locale: str = "en_US", pattern_labels=(), geo=None):
        self.secret = secret.encode() if isinstance(secret, str) else secret
        self.locale = locale
        self.pattern_labels = frozenset(pattern_labels)
        self.geo = geo  # a callable norm -> 'country' | 'continent' | 'state' | 'city' | None

    def warm_up(self) -> None:
        _faker(self.locale)
        _names(self.locale)
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
        initials = _names(self.locale)["initials"]
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
        with _FAKER_LOCK:
            value = self._faker_value(r, label, norm)
        return None if value is None else _recase_phrase(value, surface)

    def _faker_value(self, r: random.Random, label: str, norm: str) -> str | None:
        fake = _faker(self.locale)
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
        lists = _names(self.locale)
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
