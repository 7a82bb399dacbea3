"""Written dates, durations and ages, and numbers in words, for a language whose spaCy pipeline
has no DATE or CARDINAL entities (the WikiNER pipelines: fr, de, es, pt, it, ...).

Linking reads a row's date or age from DATE and CARDINAL terms. spaCy's English pipeline finds
them; the others do not, so "8 juillet 2021" and "38 ans" would be neither linked to the
relational value nor suppressed. Nothing here is a hand-written list of one language: the shapes
of dates are the locale's CLDR date patterns ("d MMMM y", "d 'de' MMMM 'de' y", "MMMM y"), its
month and weekday names and its duration units ("{0} ans", "{0} Jahre") come from CLDR through
Babel, and number words and ordinal suffixes from num2words.

(Not dateparser's `search_dates`: it is far slower per sentence, and it reads "sa" as a Saturday
and "a 38 ans et" as a date of 1988.)
"""
from __future__ import annotations

import functools
import re

from rxanon_sql.numbers import spellings

from .rules import Span, _term_regex

# The labels these rules give: a written date or a duration ("38 ans", like spaCy's DATE "36 years
# old"), and a number standing alone.
LABELS = ("DATE", "CARDINAL")
_YEAR = r"(?:1[89]|20)\d\d"
# Ages and the days of a month are what linking compares; larger numbers are rarely words.
_CARDINALS = range(2, 131)          # (1 is an article in most languages: "un", "ein", "um")
_DURATIONS = ("duration-year", "duration-month", "duration-week", "duration-day")
_DIGITS_RE = re.compile(r"(?<![\w.,/:\-])\d{1,3}(?:[.,]\d+)?(?![\w/:\-]|[.,]\d)")


def _alternation(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True) if w)


def _cldr_regex(pattern: str, parts: dict[str, str]) -> str | None:
    """A CLDR date pattern as a regular expression of `parts`; None for a pattern with a field
    that is not written out (numeric months, two-digit years, eras): the rule recognizers of
    rules.py find the numeric dates."""
    out = []
    for quoted, field, other in re.findall(r"'([^']*)'|([A-Za-z])\2*|([^A-Za-z']+)", pattern):
        if quoted:
            out.append(re.escape(quoted))
        elif field:
            token = re.match(rf"{field}+", pattern[pattern.index(field):]).group()  # (only its width matters)
            key = {"d": "d", "y": "y", "E": "E"}.get(field) or ("MMMM" if field in "ML" else None)
            if key is None or (field in "ML" and len(token) < 3) or (field == "y" and len(token) == 2):
                return None
            out.append(parts["MMM" if field in "ML" and len(token) == 3 else key])
        else:
            out.append("".join(r"\s+" if c.isspace() else ",?" if c == "," else r"\.?" if c == "." else re.escape(c)
                               for c in other))
    return "".join(out)


class LanguageRules:
    """DATE and CARDINAL spans of one language's texts; see the module's docstring."""

    def __init__(self, lang: str):
        from babel import Locale, UnknownLocaleError
        from num2words import num2words
        try:
            loc = Locale.parse(lang)
        except (UnknownLocaleError, ValueError):
            loc = Locale.parse("en")
        try:
            num2words(2, lang=lang)
            n2w = lang
        except NotImplementedError:
            n2w = "en"
        months = {n.rstrip(".") for ctx in ("format", "stand-alone") for w in ("wide", "abbreviated")
                  for n in loc.months[ctx][w].values()}
        wide = {n for ctx in ("format", "stand-alone") for n in loc.months[ctx]["wide"].values()}
        days = {n.rstrip(".") for ctx in ("format", "stand-alone") for n in loc.days[ctx]["wide"].values()}
        suffixes = {re.sub(r"^\d+", "", num2words(n, lang=n2w, to="ordinal_num")) for n in range(1, 32)}
        ordinal_words = {num2words(n, lang=n2w, to="ordinal") for n in range(1, 32)}
        day = (rf"(?:(?:[12]\d|3[01]|0?[1-9])(?:{_alternation(suffixes)})?(?!\d)"
               rf"|{_alternation(ordinal_words)})")
        parts = {"d": day, "y": _YEAR, "E": f"(?:{_alternation(days)})", "MMMM": f"(?:{_alternation(wide)})",
                 "MMM": rf"(?:{_alternation(months)})\.?"}
        patterns = [str(loc.date_formats[w]) for w in ("full", "long", "medium")]
        patterns += [str(loc.datetime_skeletons[s]) for s in ("yMMMMd", "yMMMd", "MMMMd", "MMMd", "yMMMM", "yMMM")
                     if s in loc.datetime_skeletons]
        regexes = list(dict.fromkeys(r for r in (_cldr_regex(p, parts) for p in patterns) if r))
        # (the first alternative that matches at a position wins: the longer forms go first)
        self._date = re.compile(rf"(?<![\w\-/.])(?:{'|'.join(regexes)})(?![\w\-/]|[.,]\d)", re.IGNORECASE)

        words = {form for n in _CARDINALS for form in spellings(num2words(n, lang=n2w).lower())}
        self._words = re.compile(_term_regex(sorted(words)), re.IGNORECASE)
        number = rf"(?:\d{{1,3}}|{_term_regex(sorted(words))})"
        units = set()
        for unit in _DURATIONS:
            for length in ("long", "short"):
                for count, text in loc._data["unit_patterns"].get(unit, {}).get(length, {}).items():
                    word = text.replace("{0}", "").strip()
                    # (short forms such as "a" or "J" are words or initials of the sentence)
                    if count != "per" and "{0}" in text and (length == "long" or len(word) >= 3):
                        units.add(text.replace("\u00a0", " "))
        self._duration = re.compile("(?<![\\w.,/:\\-])(?:" + "|".join(
            re.escape(u).replace(r"\{0\}", number).replace(r"\ ", r"\s+")
            for u in sorted(units, key=len, reverse=True)) + r")(?!\w)", re.IGNORECASE)

    def find(self, text: str) -> list[Span]:
        """Non-overlapping DATE and CARDINAL spans, sorted: dates first, then durations, then
        numbers (in digits or words) that stand in neither."""
        out: list[Span] = []
        taken: list[tuple[int, int]] = []

        def add(m, label):
            s, e = m.span()
            if e > s and not any(a < e and s < b for a, b in taken):
                taken.append((s, e))
                out.append(Span(s, e, text[s:e], label, "rule"))

        for m in self._date.finditer(text):
            add(m, "DATE")
        for m in self._duration.finditer(text):
            add(m, "DATE")
        for regex in (_DIGITS_RE, self._words):
            for m in regex.finditer(text):
                add(m, "CARDINAL")
        return sorted(out)


@functools.lru_cache(maxsize=8)
def language_rules(lang: str) -> LanguageRules:
    return LanguageRules(lang)
