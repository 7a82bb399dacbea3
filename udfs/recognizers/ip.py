"""IP: IPv4 and IPv6 addresses, checked with the standard library's ipaddress."""
from __future__ import annotations

import ipaddress
import random
import re
import string

from . import register
from .base import Recognizer, Scan

_IPV4_RE = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?!\w|\.\d)")
_IPV6_RE = re.compile(
    r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?![\w:]|\.\d)"
)


def _surrogate(s: str, rng: random.Random) -> str:
    if re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}", s):
        return ".".join(str(rng.randint(1, 254)) for _ in range(4))
    out = []
    for c in s:
        if c in string.hexdigits:
            h = rng.choice("0123456789abcdef")
            out.append(h.upper() if c.isupper() else h)
        else:
            out.append(c)
    return "".join(out)


@register
class Ipv4Recognizer(Recognizer):
    label = "IP"
    priority = 6
    order = 5       # (before PHONE, which skips the digits of an address)
    zoned = True
    surrogate = staticmethod(_surrogate)

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for z in scan.zones:
            if not (z.runs >= 4 and text.find(".", z.lo, z.hi) >= 0):
                continue
            lo, hi = z.lo, z.hi
            for m in _IPV4_RE.finditer(text, lo, hi):
                try:
                    ipaddress.IPv4Address(m.group())
                except ValueError:
                    continue
                out.append((m.start(), m.end()))
        return out


@register
class Ipv6Recognizer(Ipv4Recognizer):
    order = 7
    zoned = False   # ("ab::cd" has no decimal digit)

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        if "::" not in text and text.count(":") < 7:
            return out
        for m in _IPV6_RE.finditer(text):
            cand = m.group()
            if cand.strip(":.") == "":
                continue   # "::" in prose or code ("std::") is not an address
            attempts = [cand]
            if cand.endswith(":") and not cand.endswith("::"):
                attempts.append(cand[:-1])   # sentence colon after the address
            for attempt in attempts:
                try:
                    ipaddress.IPv6Address(attempt)
                except ValueError:
                    continue
                out.append((m.start(), m.start() + len(attempt)))
                break
        return out
