"""DATE: numeric dates with a plausible day and month, written dates with a capitalised English
month and a day on either side, and "5/14" after a word that announces a date."""
from __future__ import annotations

import functools
import re

from rxanon_sql.months import ENGLISH_MONTH_ABBREVIATIONS, ENGLISH_MONTHS

from . import register
from .base import Recognizer, Scan

# spaCy's small English pipeline misses "14.05.2004" and often "05/14/2004"; a numeric date with a
# plausible day and month (in either order) is a DATE. Written-out dates are left to spaCy.
_NUMERIC_DATE_RE = re.compile(
    r"(?<![\w./\-])(?:(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})([./\-])(\d{1,2})\5(\d{4}|\d{2}))(?!\w|[./\-]\d)"
)


# --- DATE (written) ---------------------------------------------------------------------------
# spaCy misses a written date at the start of a sentence ("Fourteenth of May was ...") and tags
# "5/14" as CARDINAL; linking needs them as DATE terms to tell whether they state a row's date.
# Anchored at a capitalised English month name (a literal first class, fast to skip to); the day
# stands before it ("14 May", "14th of May", "fourteenth of May") or after it ("May 14th", "May
# the 14th"), with an optional weekday in front and year behind. Lower-case month words ("may",
# "march") are verbs far more often than dates and are left to spaCy.
_MONTH_WORDS = "|".join(m.title() for m in (*ENGLISH_MONTHS, *ENGLISH_MONTH_ABBREVIATIONS))
_WEEKDAY_WORDS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tues|Tue|Wed|Thurs|Thu|Fri|Sat|Sun"
_MONTH_TAILS: dict[str, list[str]] = {}
for _m in sorted(_MONTH_WORDS.split("|"), key=len, reverse=True):
    _MONTH_TAILS.setdefault(_m[0], []).append(re.escape(_m[1:]))
# (the first letter as a class, the rest behind a look-behind on it: see rules._term_regex)
_MONTH_ANCHOR_RE = re.compile(
    "[JFMASOND](?<![^\\W\\d_].)(?:" + "|".join(f"(?<={k})(?:{'|'.join(v)})" for k, v in _MONTH_TAILS.items())
    + ")(?![^\\W\\d_])")
_YEAR_AFTER = r"(?:\.?,?\s+(?:1[89]|20)\d\d(?!\w|[./\-]\d))?"


@functools.lru_cache(maxsize=1)
def _written_date_res() -> tuple[re.Pattern, re.Pattern]:
    """(day before the month, up to the month's start; day after the month, from its end). The
    day's ordinal words come from num2words (built once, when the first text holds a month)."""
    from num2words import num2words
    words = sorted({num2words(n, to="ordinal") for n in range(1, 32)}, key=len, reverse=True)
    words = "|".join(re.escape(w) for w in words) + "|" + "|".join(re.escape(w.capitalize()) for w in words)
    day = rf"(?:(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?|{words})"
    weekday = rf"(?:(?:{_WEEKDAY_WORDS})\.?,?\s+)?"
    before = re.compile(rf"(?<![\w\-/.]){weekday}(?:the\s+|The\s+)?{day}(?:\s+of)?\s+\Z")
    after = re.compile(rf"\.?\s+(?:the\s+)?{day}(?![\w\-/.]\d|\w){_YEAR_AFTER}")
    return before, after


_WEEKDAY_BEFORE_RE = re.compile(rf"(?<![\w\-])(?:{_WEEKDAY_WORDS})\.?,?\s+\Z")
_YEAR_AFTER_RE = re.compile(_YEAR_AFTER)
# "on 5/14", "since 14/5": month and day without a year, only after a word that announces a date
# ("1/2 of the cake", "3/4 cup" are fractions).
_DATE_CUES = "on|since|until|till|from|before|after|due|dated|" + _WEEKDAY_WORDS
_SHORT_DATE_RE = re.compile(
    rf"(?<![\w])(?:{_DATE_CUES}|{_DATE_CUES.upper()}|{_DATE_CUES.title()}),?\s+(\d{{1,2}})/(\d{{1,2}})(?![\w/%]|[.,]\d)"
)
_FRACTION_AFTER_RE = re.compile(r"\s*(?:of|cups?|inch|inches|tsp|tbsp|mile|miles)\b", re.IGNORECASE)


@register
class DateRecognizer(Recognizer):
    label = "DATE"
    priority = 8
    order = 9

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for z in scan.zones:
            if z.digits >= 4:
                self._numeric(text, z.lo, z.hi, out)
            if text.find("/", z.lo, z.hi) >= 0:
                self._short(text, max(0, z.lo - 16), z.hi, out)
        self._written(text, out)
        return out

    def _numeric(self, text: str, lo: int, hi: int, out: list) -> None:
        for m in _NUMERIC_DATE_RE.finditer(text, lo, hi):
            if m.group(1):
                a, b = int(m.group(2)), int(m.group(3))
                ok = 1 <= a <= 12 and 1 <= b <= 31
            else:
                a, b = int(m.group(4)), int(m.group(6))
                ok = (1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12)
            if ok:
                out.append((m.start(), m.end()))

    def _written(self, text: str, out: list) -> None:
        m = _MONTH_ANCHOR_RE.search(text)
        if m is None:
            return
        before, after = _written_date_res()
        while m is not None:
            start, end = m.start(), m.end()
            b = before.search(text, max(0, start - 48), start)
            a = after.match(text, end)
            if b is not None:
                y = _YEAR_AFTER_RE.match(text, end)
                out.append((b.start(), y.end() if y else end))
            elif a is not None:
                w = _WEEKDAY_BEFORE_RE.search(text, max(0, start - 16), start)
                out.append((w.start() if w else start, a.end()))
            m = _MONTH_ANCHOR_RE.search(text, end)

    def _short(self, text: str, lo: int, hi: int, out: list) -> None:
        for m in _SHORT_DATE_RE.finditer(text, lo, hi):
            a, b = int(m.group(1)), int(m.group(2))
            if ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12)) \
                    and not _FRACTION_AFTER_RE.match(text, m.end()):
                out.append((m.start(1), m.end(2)))
