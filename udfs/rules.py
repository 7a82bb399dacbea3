"""Rule-based recognizers of sensitive terms in free text.

Complements the statistical NER (spaCy) with identifiers that have a rigid shape: e-mail
addresses, URLs, phone numbers, IBANs, payment cards, US social security numbers, IP
addresses, postcodes and numeric dates, plus user-supplied term lists and regular expressions.
Each kind is one class of the package `udfs.recognizers`, found through its registry;
`RuleRecognizer` runs them all and resolves their overlaps.

Every offset refers to the text exactly as given: the text is never normalised here, because the
caller replaces the spans in the string it passed and a shifted offset would leak or corrupt it.
(`ner.TextRecognizer` passes the text cleaned of glue characters and maps the spans back itself.)
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from rxanon_sql.months import ENGLISH_MONTH_ABBREVIATIONS, ENGLISH_MONTHS

from . import recognizers
from .recognizers.base import Scan
from .recognizers.chars import _NOT_WORD_AFTER, _WORD, _cuts_word

__all__ = ["Span", "RuleRecognizer", "is_vague_temporal"]


@dataclass(frozen=True, order=True)
class Span:
    start: int      # character offset (Python str index) into the ORIGINAL text
    end: int        # exclusive
    term: str       # == text[start:end]
    label: str
    source: str     # "rule" for recognizers, "list" for term-list hits, "pattern" for user regex patterns


def _term_regex(terms: list[str]) -> str | None:
    """One case-insensitive whole-word alternation for a whole term list, factored as a trie so
    matching cost does not grow with the number of terms; whitespace inside a term matches any
    whitespace run.

    The pattern starts with a class of the terms' first characters so the regex engine can skip
    through the text quickly; the word boundary before the term and the branch for the first
    character are then checked with look-behinds (a leading look-behind over the large word class
    would be evaluated at every position and is ~10x slower)."""
    trie: dict = {}
    for term in terms:
        words = term.split()
        if not words:
            continue
        node = trie
        for i, word in enumerate(words):
            if i:
                node = node.setdefault(None, {})   # None = whitespace run
            for ch in word:
                node = node.setdefault(ch, {})
        node[""] = {}                              # "" = end of term
    if not trie:
        return None

    def render(node: dict) -> str:
        # Iterative along single-child chains so long terms do not hit the recursion limit.
        out = []
        while len(node) == 1 and "" not in node:
            key = next(iter(node))
            out.append(r"\s+" if key is None else re.escape(key))
            node = node[key]
        branches = [(r"\s+" if k is None else re.escape(k)) + render(child)
                    for k, child in node.items() if k != ""]
        if branches:
            alt = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
            if "" in node:
                # Greedy "?" tries the longer term first; a failed boundary backtracks to the shorter.
                alt = "(?:" + alt + ")?"
            out.append(alt)
        return "".join(out)

    first = "".join(re.escape(k) for k in trie)
    branches = [f"(?<={re.escape(k)})" + render(child) for k, child in trie.items()]
    return (f"[{first}](?<![{_WORD}].)(?:{'|'.join(branches)}){_NOT_WORD_AFTER}")


class RuleRecognizer:
    """Finds rule, pattern and term-list hits in free text; see :meth:`find`.

    The rule recognizers are those registered (`udfs.recognizers`) when it is made, each made with
    the options ``phone_regions`` (ISO 3166 regions whose national number formats are recognised;
    numbers written with a leading "+CC" or an international prefix are recognised regardless)
    and ``phone_shapes``.
    ``terms``: label -> list of words/phrases, matched case-insensitively as whole words.
    ``patterns``: label -> list of regular expressions (Python ``re`` syntax).
    Labels of terms and patterns are upper-cased.
    """

    def __init__(self, phone_regions=("US", "GB", "DE", "NL"), terms: dict[str, list[str]] | None = None,
                 patterns: dict[str, list[str]] | None = None, phone_shapes: bool = True):
        self._recognizers = [cls(phone_regions=phone_regions, phone_shapes=phone_shapes)
                             for cls in recognizers.registered()]
        # (a user's pattern or term list loses a tie to every recognizer, and a term list to a pattern)
        prio = max((r.priority for r in self._recognizers), default=0) + 1
        self._patterns: list[tuple[re.Pattern, str, int]] = []
        for label, regexes in (patterns or {}).items():
            if isinstance(regexes, str):
                regexes = [regexes]
            for regex in regexes:
                try:
                    compiled = re.compile(regex)
                except re.error as exc:
                    raise ValueError(f"pattern {regex!r} for label {label!r}: {exc}") from None
                self._patterns.append((compiled, str(label).upper(), prio))
                prio += 1

        self._terms: list[tuple[re.Pattern, str, int]] = []
        for label, words in (terms or {}).items():
            if isinstance(words, str):
                words = [words]
            body = _term_regex([w for w in words if w])
            if body is None:
                continue
            compiled = re.compile(body, re.IGNORECASE)
            self._terms.append((compiled, str(label).upper(), prio))
            prio += 1

    def find(self, text: str) -> list[Span]:
        """All rule/list/pattern hits, sorted by start, NON-overlapping among themselves
        (on overlap keep the longer span; same length: the recognizer of lower priority, which is
        MAIL, URL, IBAN, CARD, SSN, PHONE, IP, POSTCODE, DATE for the built-in ones, then user
        patterns, then term lists)."""
        if not text:
            return []
        hits: list[tuple[int, int, int, str, str]] = []
        scan = Scan(text, hits)
        digits = bool(scan.zones)
        for recognizer in self._recognizers:
            if recognizer.zoned and not digits:
                continue
            found = recognizer.find(text, scan)
            if found:
                p, label = recognizer.priority, recognizer.label
                hits.extend([(s, e, p, label, "rule") for s, e in found])
        for regex, label, prio in self._patterns:
            for m in regex.finditer(text):
                # A pattern hit must not cut a word: replacing half a word would glue the label
                # onto the other half ("XEMP-123456" is no "EMP-\d{6}").
                if m.end() > m.start() and not _cuts_word(text, m.start(), m.end()):
                    hits.append((m.start(), m.end(), prio, label, "pattern"))
        for regex, label, prio in self._terms:
            for m in regex.finditer(text):
                hits.append((m.start(), m.end(), prio, label, "list"))
        return _resolve(text, hits)


def _resolve(text: str, hits: list[tuple[int, int, int, str, str]]) -> list[Span]:
    """Greedy longest-first selection of non-overlapping hits; ties go to the lower priority
    number, then to the earlier start, so the result does not depend on discovery order."""
    if not hits:
        return []
    hits.sort(key=lambda h: (h[0] - h[1], h[2], h[0]))
    starts: list[int] = []
    ends: list[int] = []
    chosen: list[tuple[int, int, int, str, str]] = []
    lost: list[tuple[int, int]] = []
    for hit in hits:
        start, end = hit[0], hit[1]
        i = bisect.bisect_right(starts, start)
        # Accepted spans are disjoint, so only the neighbours on either side can overlap.
        if i > 0 and ends[i - 1] > start or i < len(starts) and starts[i] < end:
            lost.append((start, end))
            continue
        starts.insert(i, start)
        ends.insert(i, end)
        chosen.insert(i, hit)
    # A hit that lost to an overlapping one but reaches past it would leave its own part outside
    # the winner readable ("BDG-" of the badge "BDG-016808" where the PHONE "016808 000", as
    # long, won): the winners it touches take it in, as one span of the longest winner's label.
    for start, end in lost:
        lo, hi = bisect.bisect_right(ends, start), bisect.bisect_left(starts, end)
        if hi - lo == 1 and starts[lo] <= start and end <= ends[lo]:
            continue
        winner = max(chosen[lo:hi], key=lambda h: h[1] - h[0])
        merged = (min(start, starts[lo]), max(end, ends[hi - 1]), *winner[2:])
        starts[lo:hi], ends[lo:hi], chosen[lo:hi] = [merged[0]], [merged[1]], [merged]
    return [Span(s, e, text[s:e], label, source) for s, e, _, label, source in chosen]


# --- vague temporal expressions ---------------------------------------------------------------
_MONTHS = "|".join((*ENGLISH_MONTHS, *ENGLISH_MONTH_ABBREVIATIONS))
_WEEKDAYS = (
    "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
    "mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun"
)
_APOS = "['\u2019]?"
_HOLIDAYS = "|".join(h.replace(" ", r"\s+").replace("'", _APOS) for h in (
    "christmas", "xmas", "x-mas", "easter", "thanksgiving", "halloween", "hallowe'en",
    "hanukkah", "hanukah", "chanukah", "ramadan", "eid", "diwali", "deepavali", "holi",
    "passover", "pesach", "purim", "yom kippur", "rosh hashanah", "rosh hashana", "sukkot",
    "kwanzaa", "lent", "pentecost", "whitsun", "whitsunday", "advent", "epiphany", "new year's",
    "new years", "new year", "hogmanay", "valentine's day", "valentines day", "st. patrick's day",
    "st patrick's day", "saint patrick's day", "independence day", "memorial day", "labor day",
    "labour day", "veterans' day", "veterans day", "presidents' day", "presidents day",
    "columbus day", "martin luther king day", "mlk day", "juneteenth", "boxing day",
    "mother's day", "mothers day", "father's day", "fathers day", "remembrance day",
    "armistice day", "anzac day", "canada day", "australia day", "bastille day", "guy fawkes",
    "bonfire night", "mardi gras", "oktoberfest", "midsummer", "all saints' day",
    "all souls' day", "day of the dead", "lunar new year", "chinese new year", "nowruz",
    "vesak", "michaelmas", "candlemas", "pancake day", "king's day", "koningsdag",
    "sinterklaas", "hanami",
))
_TEMPORAL_ANCHOR_RE = re.compile(
    rf"\d|(?<![^\W\d_])(?:{_MONTHS}|{_WEEKDAYS}|{_HOLIDAYS})(?![^\W\d_])",
    re.IGNORECASE,
)


def is_vague_temporal(span_text: str) -> bool:
    """False-positive guard for spaCy DATE/TIME spans: True means the span does not pin down a
    point in time and should be dropped, False means keep it.

    Rule: a span is identifying (False) if it contains
      * a digit (any Unicode decimal digit: "2004", "10:30", "14/05/2004", "the 1990s"),
      * an English month name or abbreviation ("in March", "May 14", "Sept."),
      * an English weekday name, its plural or abbreviation ("Monday", "on Fridays", "Wed"), or
      * a named holiday ("Christmas", "New Year's Eve", "Thanksgiving", "Ramadan", ...);
    otherwise it is vague (True): "today", "tonight", "a good day", "four days ago", "the weekend",
    "last week", "these days", "the past few years". Spelled-out numbers do not count, so
    "nineteen ninety-nine" is treated as vague. Names are matched case-insensitively as whole
    words, so "decade" does not contain "dec" and "Sunday" does.
    """
    if not span_text or not span_text.strip():
        return True
    return _TEMPORAL_ANCHOR_RE.search(span_text) is None
