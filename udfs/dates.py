"""Dates and times as a text writes them ("May 14th, 2004", "14.05.2004", "3:30 pm"): the first one
found in a term, parsed (`parse_date`, which the `generalize` operator's hierarchies read too),
and shifted by a number of days or minutes in the format it was written in (`shift_date`,
`shift_time`, the `pseudonymize` operator's surrogates of DATE and TIME)."""
from __future__ import annotations

import datetime as dt
import re

from rxanon_sql.months import ENGLISH_MONTH_ABBREVIATIONS, ENGLISH_MONTHS as MONTHS, ENGLISH_WEEKDAYS as WEEKDAYS

_MONTH_ALT = "|".join(sorted({*MONTHS, *ENGLISH_MONTH_ABBREVIATIONS}, key=len, reverse=True))
_WEEKDAY_ALT = "|".join(sorted(set(WEEKDAYS) | {w[:3] for w in WEEKDAYS}, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)"


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
