"""Month names in the languages a date column may mix in ("mayo", "Juni", "juin"), from the
CLDR data of Babel, mapped to the English name that strptime's %B reads."""
from __future__ import annotations

import functools

from babel.dates import get_month_names

LOCALES = ("en", "es", "de", "fr", "it", "pt", "nl", "ca", "da", "sv", "nb", "nn", "fi", "et", "lv", "lt", "pl", "cs",
           "sk", "sl", "hr", "bs", "sr_Latn", "hu", "ro", "tr", "id", "ms", "tl", "af", "is", "ga", "cy", "eu", "gl",
           "sq", "mt", "sw")


@functools.lru_cache(maxsize=1)
def month_names() -> list[tuple[str, int, str]]:
    english = get_month_names("wide", locale="en")
    seen: dict[str, set[int]] = {}
    for loc in LOCALES:
        # Both forms: Polish writes "lipca" in a date and "lipiec" on its own.
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for month, name in get_month_names(width, context=context, locale=loc).items():
                    seen.setdefault(name.lower().rstrip("."), set()).add(month)
    # A word that is a different month in two languages is left out rather than guessed.
    return sorted((name, next(iter(m)), english[next(iter(m))]) for name, m in seen.items() if len(m) == 1 and name)
