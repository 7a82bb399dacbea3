"""The month-name table shipped with the package is Babel's CLDR data, not a hand-kept copy."""
from rxanon_sql.months import (ENGLISH_MONTH_ABBREVIATIONS, ENGLISH_MONTHS, ENGLISH_WEEKDAYS, from_babel, month_names,
                               to_text)


def test_shipped_table_equals_babel():
    # If this fails after a Babel upgrade, regenerate: python -m rxanon_sql.months
    assert month_names() == from_babel()


def test_table_round_trips_and_is_unambiguous():
    rows = month_names()
    assert to_text(rows).count("\n") == len(rows) > 500
    assert len({name for name, _, _ in rows}) == len(rows)
    assert ("mayo", 5, "May") in rows and ("juni", 6, "June") in rows and ("lipca", 7, "July") in rows


def test_shipped_weekdays_equal_babel():
    from rxanon_sql.months import weekday_names, weekdays_from_babel
    assert weekday_names() == weekdays_from_babel()


def test_weekdays_are_no_month_and_no_short_foreign_word():
    from rxanon_sql.months import weekday_names
    names = dict(weekday_names())
    assert names["friday"] == 5 and names["fri"] == 5 and names["vendredi"] == 5 and names["sonntag"] == 7
    # "mar" is March in English, Tuesday in Spanish; "do" is Thursday in Dutch
    assert "mar" not in names and "do" not in names and "on" not in names


def test_the_english_names_are_babels():
    # (the one list of English month and weekday names that dates, rules and generated data read)
    from babel.dates import get_day_names, get_month_names
    assert ENGLISH_MONTHS == tuple(n.lower() for n in get_month_names("wide", locale="en").values())
    days = get_day_names("wide", locale="en")
    assert ENGLISH_WEEKDAYS == tuple(days[i].lower() for i in range(7))     # (Babel's 0 is Monday)
    assert {a for a in ENGLISH_MONTH_ABBREVIATIONS if a != "sept"} == \
        {n.lower() for n in get_month_names("abbreviated", locale="en").values()} - {"may"}
