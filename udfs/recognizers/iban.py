"""IBAN: checksum and country structure from python-stdnum; upper or lower case, grouped or not."""
from __future__ import annotations

import random
import re
import string

from stdnum import iban as _iban

from . import register
from .base import Recognizer, Scan

# Generous candidate (up to 34 alphanumerics, single spaces between groups); the longest prefix
# that ends on a group boundary and passes stdnum's checksum + country structure check wins.
_IBAN_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z]{2}\d{2}(?:[ \u00a0]?[A-Z0-9]){11,30}"
                      r"|[a-z]{2}\d{2}(?:[ \u00a0]?[a-z0-9]){11,30})")


def _surrogate(s: str, rng: random.Random) -> str | None:
    """Random letters and digits after the country, and a valid check number again."""
    pos = [i for i, c in enumerate(s) if c.isalnum()]
    if len(pos) < 5:
        return None
    chars = list(s)
    for i in pos[4:]:
        c = s[i]
        chars[i] = str(rng.randint(0, 9)) if c.isdigit() else (rng.choice(string.ascii_uppercase) if c.isupper() else rng.choice(string.ascii_lowercase))
    check = _iban.calc_check_digits("".join(chars[i] for i in pos).upper())
    chars[pos[2]], chars[pos[3]] = check[0], check[1]
    return "".join(chars)


@register
class IbanRecognizer(Recognizer):
    label = "IBAN"
    priority = 2
    order = 2
    surrogate = staticmethod(_surrogate)
    zoned = True

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for z in scan.zones:
            lo, hi = z.lo, z.hi
            for m in _IBAN_RE.finditer(text, lo, hi):
                start, cand = m.start(), m.group()
                # Candidate ends: each group boundary, longest first; a valid end must not cut a word.
                ends = [i for i, ch in enumerate(cand) if ch in " \u00a0"] + [len(cand)]
                for rel in reversed(ends):
                    end = start + rel
                    if end < len(text) and text[end].isalnum():
                        continue
                    prefix = cand[:rel]
                    if len(prefix) - prefix.count(" ") - prefix.count("\u00a0") < 15:
                        break   # shortest IBAN (Norway) has 15 characters
                    if _iban.is_valid(prefix):
                        out.append((start, end))
                        break
        return out
