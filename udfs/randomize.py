"""Format-preserving randomisation: each ASCII digit becomes a random digit and each letter a
random letter of the same case, other characters stay. The identifiers' surrogates (the rule
recognizers' `surrogate`, udfs/recognizers/) and the numbers' (surrogates.py) are drawn with it;
a module of its own so that both can import it without importing each other."""
from __future__ import annotations

import random
import string


def randomize(s: str, rng: random.Random, keep: set[int] = frozenset(), nonzero_first: bool = False) -> str:
    """s with every character not in `keep` (positions) drawn anew from rng; with nonzero_first,
    a run of digits that did not start with 0 does not start with 0 either."""
    out = []
    prev_digit = False
    for i, c in enumerate(s):
        if i in keep:
            out.append(c)
        elif c.isdigit() and c.isascii():
            lo = 1 if nonzero_first and not prev_digit and c != "0" else 0
            out.append(str(rng.randint(lo, 9)))
        elif c.isalpha():
            letter = rng.choice(string.ascii_lowercase)
            out.append(letter.upper() if c.isupper() else letter)
        else:
            out.append(c)
        prev_digit = c.isdigit()
    return "".join(out)


def keep_span(keep: set[int], start: int, end: int) -> None:
    keep.update(range(start, end))
