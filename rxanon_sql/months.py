"""Month names in the languages a date column may mix in ("mayo", "Juni", "juin"), from the
CLDR data of Babel, mapped to the English name that strptime's %B reads."""
from __future__ import annotations

import functools

from babel.dates import get_month_names

LOCALES = ("en", "es", "de", "fr", "it", "pt", "nl", "ca", "da", "sv", "nb", "fi", "pl", "cs", "ro", "tr", "id")


@functools.lru_cache(maxsize=1)
def month_names() -> list[tuple[str, int, str]]:
    english = get_month_names("wide", locale="en")
    seen: dict[str, set[int]] = {}
    for loc in LOCALES:
        for width in ("wide", "abbreviated"):
            for month, name in get_month_names(width, locale=loc).items():
                seen.setdefault(name.lower().rstrip("."), set()).add(month)
    # A word that is a different month in two languages is left out rather than guessed.
    return sorted((name, next(iter(m)), english[next(iter(m))]) for name, m in seen.items() if len(m) == 1 and name)
