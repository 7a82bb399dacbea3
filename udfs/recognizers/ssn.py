"""SSN: US social security numbers, with the SSA's invalid areas and groups excluded."""
from __future__ import annotations

import random

from . import register
from .base import PatternRecognizer


def _surrogate(s: str, rng: random.Random) -> str | None:
    """Another number of a valid area, group and serial, in the same format."""
    pos = [i for i, c in enumerate(s) if c.isdigit()]
    if len(pos) != 9:
        return None
    area = rng.choice([a for a in range(1, 900) if a != 666])
    digits = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
    chars = list(s)
    for i, d in zip(pos, digits):
        chars[i] = d
    return "".join(chars)


@register
class SsnRecognizer(PatternRecognizer):
    label = "SSN"
    priority = 4
    order = 4
    pattern = r"(?<![\w\-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w\-])"
    min_digits = 9
    anchor = "-"
    surrogate = staticmethod(_surrogate)
