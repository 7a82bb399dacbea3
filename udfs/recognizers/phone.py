"""PHONE: phonenumbers' matcher (international numbers, and the national formats of
text.phone_regions), then any number shaped like one (text.phone_shapes)."""
from __future__ import annotations

import re

import phonenumbers

from . import register
from .base import Recognizer, Scan, Zone

# Cheap trigger: six or more digits joined by phone punctuation. Only text around a trigger is
# handed to phonenumbers, whose matcher costs ~0.1-0.4 ms per region even on a short snippet.
_PHONE_SEP = r"[\s\-\u2010-\u2015\u2212\u30fc\uff0d./\uff0f()\[\]~\u2053\u223c\uff5e]"
_PHONE_HINT_RE = re.compile(rf"\d(?:{_PHONE_SEP}{{0,3}}\d){{5,}}")
_PHONE_CONTEXT = 24   # enough for "+", "(", "tel." before and "ext. 1234" after the digits
# Dates and year ranges trigger the hint but are never numbers; phonenumbers would reject them
# only after trying every region.
_DATE_HINT_RE = re.compile(
    r"\d{1,2}([./\-])\d{1,2}\1(?:\d{4}|\d{2})|\d{4}([./\-])\d{1,2}\2\d{1,2}"
    r"|\d{4}\s?[\-\u2010-\u2015/]\s?\d{2,4}"
)

# Numbers that phonenumbers does not know to be valid (an unassigned area code, a local number
# without its area code, a region not configured) are still taken when they have the shape of a
# phone number: 7 to 15 digits (or 6 as "dd dd dd") in groups joined by "-", ".", " " or a bracketed area code, with an
# optional "+CC"/"00CC" prefix and extension; or an unbroken run of 10 or 11 digits. Under-
# anonymization is the costlier error, and dates, times, years, amounts and IPs are excluded.
_PHONE_SHAPE_RE = re.compile(
    r"(?:\+\d{1,3}[ \-.]?|00\d{1,3}[ \-.])?(?:\(\d{1,4}\)[ \-.]?)?\d{1,11}(?:[\-. ]\d{1,8}){0,6}"
    r"(?:[ ]?(?:x|ext\.?|#)[ ]?\d{1,6})?"
)
_PHONE_EXT_RE = re.compile(r"[ ]?(?:x|ext\.?|#)[ ]?\d{1,6}\Z")
_PHONE_GROUP_RE = re.compile(r"\d+")
_DATE_INSIDE_RE = re.compile(
    r"(?<!\d)(?:(\d{4})[\-./](\d{1,2})[\-./](\d{1,2})|(\d{1,2})[\-./](\d{1,2})[\-./](\d{2}|\d{4}))(?![\-./]?\d)"
    r"|(?:1[89]|20)\d\d[ \-/](?:1[89]|20)\d\d"
)
_ZIP4_SHAPE_RE = re.compile(r"\d{5}-\d{4}")


def _holds_date(core: str) -> bool:
    """A plausible date (day <= 31, month <= 12, in either order) or a pair of years inside core."""
    for m in _DATE_INSIDE_RE.finditer(core):
        if m.group(1):
            a, b = int(m.group(2)), int(m.group(3))
        elif m.group(4):
            a, b = int(m.group(4)), int(m.group(5))
        else:
            return True
        if (1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12):
            return True
    return False


def _phone_shaped(text: str, start: int, end: int) -> bool:
    """True when text[start:end], a match of _PHONE_SHAPE_RE, looks like a phone number."""
    if start > 0:
        before = text[start - 1]
        if before.isalnum() or before in "_+-./:$€£¥%":
            return False
        if before == "," and start > 1 and text[start - 2].isdigit():
            return False
    if end < len(text):
        after = text[end]
        if after.isalnum() or after in "_%" or (after in ":,.-/" and end + 1 < len(text) and text[end + 1].isdigit()):
            return False
    cand = text[start:end]
    ext = _PHONE_EXT_RE.search(cand)
    core = cand[:ext.start()] if ext else cand
    if _holds_date(core) or _ZIP4_SHAPE_RE.fullmatch(core):
        return False
    groups = _PHONE_GROUP_RE.findall(core)
    digits = sum(map(len, groups))
    if not 7 <= digits <= 15 and not (digits == 6 and len(groups) == 3 and min(map(len, groups)) == 2):
        return False
    if len(groups) == 1:
        return digits in (10, 11) or core.startswith("+")
    seps = set(ch for ch in core.lstrip("+") if not ch.isdigit())
    if seps <= {"."} and (len(groups) == 2 or all(len(g) == 3 for g in groups[1:])):
        return False   # 3.1415926, 12.345.678: a decimal point or a thousands separator
    if seps == {" "} and len(groups) == 2 and len(groups[0]) == 4 and 1800 <= int(groups[0]) <= 2099:
        return False   # "in 2004 200 people"
    return True



# Hits that the digits of a phone number cannot outlast, found before this recognizer runs.
_COVERING = frozenset({"IBAN", "CARD", "SSN", "IP"})


@register
class PhoneRecognizer(Recognizer):
    """``phone_regions``: ISO 3166 regions whose national number formats are recognised (numbers
    written with a leading "+CC" or an international prefix are recognised regardless)."""
    label = "PHONE"
    priority = 5
    order = 6
    zoned = True

    def __init__(self, phone_regions=("US", "GB", "DE", "NL"), phone_shapes: bool = True, **options):
        super().__init__(**options)
        self.phone_shapes = phone_shapes
        if isinstance(phone_regions, str):
            phone_regions = (phone_regions,)
        regions: list[str] = []
        for region in phone_regions or ():
            code = str(region).upper()
            if code not in phonenumbers.SUPPORTED_REGIONS:
                raise ValueError(f"unknown phone region {region!r}")
            if code not in regions:
                regions.append(code)
        self.phone_regions = tuple(regions)

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        if self.phone_regions:
            covered = [(h[0], h[1]) for h in scan.hits if h[3] in _COVERING]
            self._find(text, [z for z in scan.zones if z.digits >= 6], covered, out)
        return out

    def _find(self, text: str, zones: list[Zone], covered: list[tuple[int, int]], out: list) -> None:
        """``covered``: spans already claimed by IBAN/CARD/SSN/IP hits. A phone number inside
        one could never outlast it, and asking phonenumbers costs up to ~0.2 ms per region."""
        n = len(text)
        windows: list[list] = []   # [lo, hi, [(hint_start, hint_end), ...]]
        for zone in zones:
            for m in _PHONE_HINT_RE.finditer(text, zone.lo, zone.hi):
                hs, he = m.span()
                if any(s <= hs and he <= e for s, e in covered) or _DATE_HINT_RE.fullmatch(m.group()):
                    continue
                # Widen to whitespace so phonenumbers sees the same neighbouring characters it
                # would in the full text (it rejects candidates glued to Latin letters).
                lo = max(0, m.start() - _PHONE_CONTEXT)
                hi = min(n, m.end() + _PHONE_CONTEXT)
                while lo > 0 and lo > m.start() - 2 * _PHONE_CONTEXT and not text[lo - 1].isspace():
                    lo -= 1
                while hi < n and hi < m.end() + 2 * _PHONE_CONTEXT and not text[hi].isspace():
                    hi += 1
                if windows and lo <= windows[-1][1]:
                    windows[-1][1] = max(windows[-1][1], hi)
                    windows[-1][2].append(m.span())
                else:
                    windows.append([lo, hi, [m.span()]])
        leniency = phonenumbers.Leniency.VALID
        seen = set()
        for lo, hi, hints in windows:
            chunk = text[lo:hi]
            found: list[tuple[int, int]] = []
            for region in self.phone_regions:
                for match in phonenumbers.PhoneNumberMatcher(chunk, region, leniency=leniency):
                    found.append((lo + match.start, lo + match.end))
                # Later regions are only asked about digits no earlier region explained: each
                # matcher run costs far more than everything else in find().
                if all(any(s <= hs and he <= e for s, e in found) for hs, he in hints):
                    break
            if self.phone_shapes:
                for hs, he in hints:
                    if any(s <= hs and he <= e for s, e in found):
                        continue
                    for m in _PHONE_SHAPE_RE.finditer(text, max(lo, hs - 8), min(hi, he + 12)):
                        if m.start() < he and hs < m.end() and _phone_shaped(text, m.start(), m.end()):
                            found.append(m.span())
            for span in found:
                if span not in seen:
                    seen.add(span)
                    out.append((span[0], span[1]))
