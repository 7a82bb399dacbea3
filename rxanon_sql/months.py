"""Month names in the languages a date column may mix in ("mayo", "Juni", "juin"), from the
CLDR data of Babel, mapped to the English name that strptime's %B reads; and weekday names, with
which linking checks the weekday a text gives a date ("Friday May 14").

The table is generated from Babel into `month_names.tsv` (`python -m rxanon_sql.months`) rather
than computed at run time: loading 38 locales of CLDR data would cost every run memory and
time, for 545 rows that change only with Babel's CLDR version. A test checks that
the file equals what Babel produces now.
"""
from __future__ import annotations

import functools
from importlib import resources

LOCALES = ("en", "es", "de", "fr", "it", "pt", "nl", "ca", "da", "sv", "nb", "nn", "fi", "et", "lv", "lt", "pl", "cs",
           "sk", "sl", "hr", "bs", "sr_Latn", "hu", "ro", "tr", "id", "ms", "tl", "af", "is", "ga", "cy", "eu", "gl",
           "sq", "mt", "sw")
FILE = "month_names.tsv"
# The English names in calendar order, lower case: the dates a text writes (udfs/dates.py), the
# generalize operator's hierarchies and the generated data (title-cased there) read them here.
ENGLISH_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                  "october", "november", "december")
ENGLISH_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Their abbreviations as texts write them ("may" is its own; September is "sept" or "sep").
ENGLISH_MONTH_ABBREVIATIONS = ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep", "oct", "nov", "dec")
WEEKDAY_FILE = "weekday_names.tsv"


def from_babel() -> list[tuple[str, int, str]]:
    from babel.dates import get_month_names
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


def weekdays_from_babel() -> list[tuple[str, int]]:
    """(name, ISO weekday: Monday 1 to Sunday 7). Full names in every locale, abbreviations in
    English only: the other languages' abbreviations are words of a date's sentence ("on", "do",
    "man", "to" are weekdays somewhere) or month names ("mar"), and a weekday found in a date
    term must agree with the date."""
    from babel.dates import get_day_names
    months = {name for name, _, _ in from_babel()}
    seen: dict[str, set[int]] = {}
    for loc in LOCALES:
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated") if loc == "en" else ("wide",):
                for day, name in get_day_names(width, context=context, locale=loc).items():
                    seen.setdefault(name.lower().rstrip("."), set()).add(day + 1)
    return sorted((name, next(iter(d))) for name, d in seen.items() if len(d) == 1 and name and name not in months)


def to_text(rows: list[tuple]) -> str:
    return "".join("\t".join(map(str, row)) + "\n" for row in rows)


@functools.lru_cache(maxsize=1)
def month_names() -> list[tuple[str, int, str]]:
    text = resources.files("rxanon_sql").joinpath(FILE).read_text(encoding="utf-8")
    return [(name, int(month), english) for name, month, english in (line.split("\t") for line in text.splitlines())]


@functools.lru_cache(maxsize=1)
def weekday_names() -> list[tuple[str, int]]:
    text = resources.files("rxanon_sql").joinpath(WEEKDAY_FILE).read_text(encoding="utf-8")
    return [(name, int(day)) for name, day in (line.split("\t") for line in text.splitlines())]


if __name__ == "__main__":
    from pathlib import Path
    Path(__file__).with_name(FILE).write_text(to_text(from_babel()), encoding="utf-8")
    Path(__file__).with_name(WEEKDAY_FILE).write_text(to_text(weekdays_from_babel()), encoding="utf-8")
