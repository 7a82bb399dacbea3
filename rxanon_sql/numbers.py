"""Numbers written out in words ("thirty-six", "trente-six", "fourteenth"), from num2words, so
that a text stating a row's age or the day of its date in words links to the attribute like one
that writes the digits.

Computed at run time, once per process: ages and days of a month are a few hundred words, and
num2words needs no data files.
"""
from __future__ import annotations

import functools

LANGUAGES = ("en", "fr")
# Ages (a larger number is rarely written out in words) and the days of a month.
CARDINALS = range(1, 131)
ORDINALS = range(1, 32)


def spellings(words: str) -> set[str]:
    """The ways a number's words are written: "thirty-six" is also "thirty six"; "one hundred and
    one" also "one hundred one"."""
    # "thirty-six" is also written "thirty six"; "one hundred and one" also "one hundred one".
    forms = {words, words.replace("-", " "), words.replace(" and ", " ")}
    return forms | {f.replace(" and ", " ").replace("-", " ") for f in forms}


@functools.lru_cache(maxsize=1)
def number_words() -> list[tuple[str, int, bool]]:
    """(word, value, ordinal) rows. A spelling that means two numbers is left out rather than
    guessed."""
    from num2words import num2words
    seen: dict[tuple[str, bool], set[int]] = {}
    for lang in LANGUAGES:
        for ordinal, numbers in ((False, CARDINALS), (True, ORDINALS)):
            for n in numbers:
                words = num2words(n, lang=lang, to="ordinal" if ordinal else "cardinal").lower()
                for form in spellings(words):
                    seen.setdefault((form, ordinal), set()).add(n)
    return sorted((word, next(iter(values)), ordinal) for (word, ordinal), values in seen.items() if len(values) == 1)
