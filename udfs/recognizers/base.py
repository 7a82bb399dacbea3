"""What a rule recognizer is: a label, a `find` over one text, and a surrogate for `pseudonymize`.

Presidio's analyzer has the same shape (an `EntityRecognizer` per entity, `PatternRecognizer` for
the regular-expression ones with a `validate_result` hook for checksums); here a recognizer gets
the text and a `Scan` of it, and returns (start, end) pairs. `RuleRecognizer.find` (rules.py)
labels them and resolves overlaps among every recognizer's hits at once.
"""
from __future__ import annotations

import random
import re

from ..randomize import randomize

# Python's regex engine only skips quickly through text when a pattern starts with a literal or
# a plain character class; a leading look-behind or a broad class like \w costs ~25 us per 1,000
# characters per pattern. Hence the recognizers run only at cheap anchors ("@", "://", "/",
# "www", digit runs: `Scan.zones`) instead of over the whole text.

# Numeric recognizers run on zones around digit runs. The margin covers the longest non-digit
# context any of them reads ("Northern Mariana Islands, " before a ZIP, "GB82 WEST" in an IBAN,
# the town after a German postcode); zones end on whitespace so that look-aheads at the zone end
# see the same thing they would in the full text.
_DIGIT_RUN_RE = re.compile(r"\d+")
_ASCII_DIGIT_RUN_RE = re.compile(r"[0-9]+")   # same as \d on ASCII text, and 2x faster
_SPACE_RE = re.compile(r"\s")
_ZONE_MARGIN = 48


class Zone:
    """A stretch of text around digit runs, with digit statistics that let recognizers skip
    zones that cannot hold their pattern (a lone year cannot be a card number)."""
    __slots__ = ("lo", "hi", "digits", "longest", "runs")

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self.digits = self.longest = self.runs = 0


def zones(text: str) -> list[Zone]:
    if text.isascii():
        # str.find on an ASCII string is a memchr; a regex scan is ~10x slower.
        if not any(d in text for d in "0123456789"):
            return []
        runs = _ASCII_DIGIT_RUN_RE
    elif _DIGIT_RUN_RE.search(text) is None:
        return []
    else:
        runs = _DIGIT_RUN_RE
    found: list[Zone] = []
    n = len(text)
    zone = None
    for m in runs.finditer(text):
        start, end = m.span()
        if zone is None or start - _ZONE_MARGIN > zone.hi:
            zone = Zone(max(0, start - _ZONE_MARGIN), 0)
            found.append(zone)
        if end + _ZONE_MARGIN > zone.hi:
            hi = end + _ZONE_MARGIN
            if hi >= n:
                hi = n
            else:
                space = _SPACE_RE.search(text, hi)
                hi = space.start() if space else n
            zone.hi = hi
        zone.digits += end - start
        zone.runs += 1
        if end - start > zone.longest:
            zone.longest = end - start
    return found


class Scan:
    """One text as the recognizers see it. `hits`: the (start, end, priority, label, source) hits
    of the recognizers that ran before (a phone number inside an IBAN need not be looked up);
    `zones`: the stretches around its digit runs."""
    __slots__ = ("text", "hits", "zones")

    def __init__(self, text: str, hits: list):
        self.text, self.hits, self.zones = text, hits, zones(text)


class Recognizer:
    """One kind of identifier. A subclass sets `label` and overrides `find`; `register` (the
    package's `__init__`) makes every `RuleRecognizer` run it.

    `priority` breaks ties between overlapping hits of equal length (lower wins); `order` is when
    it runs, so that it can read the hits of those before it in `Scan.hits`; `version` is part of
    the NER cache key: raise it when the recognizer finds something else. Options of the
    configuration (`phone_regions`, `phone_shapes`) come as keyword arguments."""
    label: str = ""
    priority: int = 100
    order: int = 100
    version: int = 1
    # True: finds nothing outside Scan.zones, so a text without digits does not call it (a call
    # costs a few tenths of a microsecond, and most texts have no digits).
    zoned: bool = False

    def __init__(self, **options):
        pass

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        raise NotImplementedError

    @staticmethod
    def surrogate(surface: str, rng: random.Random) -> str | None:
        """The term's stand-in for `pseudonymize`, drawn from rng (seeded per person and term):
        by default every digit and letter replaced by a random one, the format kept."""
        return randomize(surface, rng, nonzero_first=True)


class PatternRecognizer(Recognizer):
    """A recognizer given by one regular expression (`pattern`, compiled with `flags`) and an
    optional check of each match (`validate`: a checksum, a range). With `min_digits` set, only
    the zones around digit runs with at least that many digits are searched, and with `anchor`
    set, only zones (or texts) that contain it: most texts then cost nothing."""
    pattern: str | re.Pattern = ""
    flags: int = 0
    min_digits: int | None = None
    anchor: str | None = None

    def __init__(self, **options):
        super().__init__(**options)
        self.regex = re.compile(self.pattern, self.flags) if isinstance(self.pattern, str) else self.pattern
        self.zoned = self.min_digits is not None

    def validate(self, value: str) -> bool:
        return True

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        regex, anchor, least = self.regex, self.anchor, self.min_digits
        if least is None:
            ranges = ((0, len(text)),) if anchor is None or anchor in text else ()
        else:
            ranges = [(z.lo, z.hi) for z in scan.zones if z.digits >= least
                      and (anchor is None or text.find(anchor, z.lo, z.hi) >= 0)]
        out: list[tuple[int, int]] = []
        for lo, hi in ranges:
            for m in regex.finditer(text, lo, hi):
                # (an empty match would be a span that replaces nothing)
                if m.end() > m.start() and self.validate(m.group()):
                    out.append(m.span())
        return out
