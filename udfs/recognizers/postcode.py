"""POSTCODE: UK, NL, US (after a state) and DE (with "D-" or before the town) postcodes."""
from __future__ import annotations

import re

from . import register
from .base import Recognizer, Scan, Zone

# Upper case only: "sw1a 1aa" in prose is more often noise than an address.
_UK_POSTCODE_RE = re.compile(
    r"(?<![\w\-])(?:GIR ?0AA|[A-PR-UWYZ](?:\d{1,2}|[A-HK-Y]\d{1,2}|\d[A-HJKPSTUW]|[A-HK-Y]\d[ABEHMNPRV-Y])"
    r" ?\d[ABD-HJLNP-UW-Z]{2})(?![\w\-])"
)
_NL_POSTCODE_RE = re.compile(r"(?<![\w\-./])([1-9]\d{3})( ?)(?!SA|SD|SS)([A-Z]{2})(?![\w\-])")
# "1066 AD", "2500 BC", "2004 US troops", "1030 PM": a number followed by an era, a time suffix or a
# common acronym is taken for a postcode only when the town follows ("2511 CE Den Haag") or when
# written without the space ("2511CE").
_NL_STOP = frozenset({"AD", "BC", "CE", "AM", "PM", "US", "UK", "EU", "UN"})
_TOWN_AFTER_RE = re.compile(r"[ \u00a0]+[A-Z\u00c0-\u00de][a-z\u00df-\u00ff'\-]")
_ZIP4_RE = re.compile(r"(?<![\w\-])\d{5}-\d{4}(?![\w\-])")
_US_STATES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|"
    "Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
    "New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|"
    "Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|"
    "West Virginia|Wisconsin|Wyoming|District of Columbia|Puerto Rico|Guam|American Samoa|"
    "Northern Mariana Islands|U\\.S\\. Virgin Islands|Virgin Islands"
).replace(" ", r"\s+")
_US_STATE_ABBR = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|"
    "NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|GU|AS|MP|VI"
)
_US_ZIP_RE = re.compile(
    rf"(?<![A-Za-z])(?:(?:{_US_STATE_ABBR})\.?|(?:{_US_STATES}))(?![A-Za-z]),?[ \t\u00a0]{{1,3}}"
    r"(\d{5})(?![\w\-])"
)
# A bare 5-digit number is far more often a count or an amount than a German postcode, so only
# the "D-" prefix or a following capitalised word (the town) makes it one.
_DE_POSTCODE_RE = re.compile(
    r"(?<![\w\-./,$€£¥])(?:D-\d{5}(?![\w\-])|\d{5}(?=[ \u00a0][A-ZÄÖÜ][a-zäöüß]))"
)


@register
class PostcodeRecognizer(Recognizer):
    label = "POSTCODE"
    priority = 7
    order = 8
    zoned = True

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for z in scan.zones:
            self._find(text, z, out)
        return out

    def _find(self, text: str, zone: Zone, out: list) -> None:
        lo, hi = zone.lo, zone.hi
        for m in _UK_POSTCODE_RE.finditer(text, lo, hi):
            out.append((m.start(), m.end()))
        if zone.longest < 4:
            return
        for m in _NL_POSTCODE_RE.finditer(text, lo, hi):
            if m.group(2) and m.group(3) in _NL_STOP and not _TOWN_AFTER_RE.match(text, m.end()):
                continue
            out.append((m.start(), m.end()))
        if zone.longest < 5:
            return
        if text.find("-", lo, hi) >= 0:
            for m in _ZIP4_RE.finditer(text, lo, hi):
                out.append((m.start(), m.end()))
        for m in _US_ZIP_RE.finditer(text, lo, hi):
            out.append((m.start(1), m.end(1)))
        for m in _DE_POSTCODE_RE.finditer(text, lo, hi):
            out.append((m.start(), m.end()))
