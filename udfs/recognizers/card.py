"""CARD: payment card numbers: Luhn checksum (python-stdnum), card prefixes and printed groupings."""
from __future__ import annotations

import random
import re

from stdnum import luhn as _luhn

from . import register
from .base import Recognizer, Scan

_CARD_RUN_RE = re.compile(r"(?<![\w\-.,])\d+(?:[ \-]\d+)*(?!\w)")
_CARD_SEP_RE = re.compile(r"[ \-]")
# The groups of an IBAN whose checksum failed must not come back as a card number.
_IBAN_HEAD_RE = re.compile(r"[A-Z]{2}\d{2}[ \u00a0]\Z")


def _is_card_prefix(digits: str) -> bool:
    first = digits[0]
    if first in "3456":
        return True
    # Mastercard 2-series (2221-2720) is 16 digits long.
    return first == "2" and len(digits) == 16 and 2221 <= int(digits[:4]) <= 2720


def _card_grouping_ok(sizes: list[int]) -> bool:
    """Printed card numbers are unbroken or grouped 4-4-4-3, 4-4-4-4(-3), 4-6-5 (Amex) or 4-6-4
    (Diners); rejecting other groupings keeps runs of phone numbers, amounts or the digits of a
    mistyped IBAN from passing Luhn by chance (1 in 10)."""
    if len(sizes) == 1:
        return True
    if all(s == 4 for s in sizes[:-1]) and sizes[-1] in (3, 4):
        return True
    return sizes in ([4, 6, 5], [4, 6, 4])



def _surrogate(s: str, rng: random.Random) -> str | None:
    """Random digits between the first and the check digit, which is made valid again."""
    pos = [i for i, c in enumerate(s) if c.isdigit()]
    if len(pos) < 12:
        return None
    chars = list(s)
    for i in pos[1:-1]:
        chars[i] = str(rng.randint(0, 9))
    chars[pos[-1]] = _luhn.calc_check_digit("".join(chars[i] for i in pos[:-1]))
    return "".join(chars)


@register
class CardRecognizer(Recognizer):
    label = "CARD"
    priority = 3
    order = 3
    surrogate = staticmethod(_surrogate)
    zoned = True

    def find(self, text: str, scan: Scan) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for z in scan.zones:
            if not (z.digits >= 13):
                continue
            lo, hi = z.lo, z.hi
            for m in _CARD_RUN_RE.finditer(text, lo, hi):
                run = m.group()
                if len(run) < 13 or _IBAN_HEAD_RE.search(text, max(0, m.start() - 5), m.start()):
                    continue
                groups = _CARD_SEP_RE.split(run)
                # Offsets of the groups inside the run, so a sub-window maps back to the text.
                offsets, pos = [], 0
                for g in groups:
                    offsets.append(pos)
                    pos += len(g) + 1
                best = None
                n = len(groups)
                for i in range(n):
                    digits = ""
                    for j in range(i, n):
                        digits += groups[j]
                        if len(digits) > 19:
                            break
                        if len(digits) < 13 or (best and len(digits) <= best[0]):
                            continue
                        if (_is_card_prefix(digits)
                                and _card_grouping_ok([len(g) for g in groups[i:j + 1]])
                                and _luhn.is_valid(digits)):
                            best = (len(digits), offsets[i], offsets[j] + len(groups[j]))
                if best:
                    out.append((m.start() + best[1], m.start() + best[2]))
        return out
