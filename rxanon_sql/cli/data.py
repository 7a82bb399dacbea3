"""The commands that bring data in or show what is found in it: load, init, entities, generate."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import Config, load_config
from ..engines.duckdb import readable, writable
from .common import fail, main, open_database

# Imports inside functions, module-wide, for start-up time: each command imports what it runs.


@main.command()
@click.argument("db")
@click.argument("file")
@click.option("--table", "name", help="Table to create (default: the file's name without its extensions, "
              "other characters than letters, digits and _ made _).")
def load(db: str, file: str, name) -> None:
    """Read FILE (CSV, Parquet or JSON) into a new table of DB.

    Formats by extension: .csv, .tsv, .parquet, .json, .jsonl (CSV and JSON also .gz). A row key
    column `row_key` (1..n in file order) is added when no column can stand for a person."""
    from ..load import load as load_file, reader
    reader(file)            # (before the database file is created)
    con = open_database(db)
    with readable(db):
        loaded = load_file(con, file, name)
    con.close()
    click.echo(f"loaded {loaded.rows} rows and {loaded.columns} columns into table {loaded.table!r} of {db}"
               + (f", with a row key {loaded.key!r} (1..{loaded.rows} in file order) since no column identifies a "
                  "person" if loaded.key else ""))


@main.command()
@click.argument("db")
@click.option("--out", default="rx.toml", show_default=True, help="Configuration file to write (not replaced).")
def init(db: str, out: str) -> None:
    """Write a starting configuration for the tables found in DB."""
    from ..init import starting_config
    if Path(out).exists():
        fail(f"{out!r} exists; remove it or give --out")
    writable(out, "--out")
    con = open_database(db, read_only=True)
    warnings: list[str] = []
    with readable(db):
        text = starting_config(con, warnings)
    con.close()
    for w in warnings:
        click.echo(f"rxanon-sql: warning: {w}", err=True)
    Path(out).write_text(text, encoding="utf-8")
    click.echo(f"wrote {out}; review the roles of the columns before `rxanon-sql apply {db} --config {out}`")


@main.command(name="entities")
@click.argument("text")
@click.option("--config", "config_path", type=click.Path(), help="Recognize as configured here (term lists, "
              "patterns, phone regions, pipeline, guard); default: the default configuration.")
def entities_cmd(text: str, config_path) -> None:
    """Show the sensitive terms found in TEXT, with labels and offsets.

    TEXT '-' reads the text from standard input."""
    from ..entities import entities, format_entities
    from ..label_check import check_labels, label_note
    from ..recognize import check_rules
    cfg = None
    if text == "-":
        text = sys.stdin.read()
    if config_path:
        cfg = load_config(config_path)
        # (as apply checks them: the recognizer itself would refuse a bad pattern with a bare ValueError)
        check_rules(cfg)
        check_labels(cfg)
    spans = entities(text, cfg)
    note = label_note(cfg or Config())
    click.echo(format_entities(text, spans))
    if note:
        click.echo(note)


@main.command(name="generate")
@click.argument("db")
@click.option("--persons", type=int, default=1000, show_default=True, help="Authors to generate.")
@click.option("--posts-per-person", type=int, default=5, show_default=True, help="Posts (texts) per author.")
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed writes the same data.")
@click.option("--relational", type=click.Path(exists=True, dir_okay=False),
              help="Take authors and post dates from this CSV (id, gender, age, topic, sign, date; one row per "
                   "post, as blog_relational_full.csv.gz) and generate only the texts.")
@click.option("--prefill-cache/--no-prefill-cache", default=False, show_default=True,
              help="Write the generated terms into rx.ner_cache, so that `apply` runs no NER on these texts.")
@click.option("--out", "config_out", type=click.Path(dir_okay=False), help="Also write a matching configuration here.")
def generate_cmd(db: str, persons: int, posts_per_person: int, seed: int, relational, prefill_cache: bool,
                 config_out) -> None:
    """Write generated blog-shaped test data into DB.

    The relations `authors` and `posts` (replaced if there), seeded."""
    from ..generate import config_text, generate, prefill_generated
    if persons < 1 or posts_per_person < 1:
        fail("--persons and --posts-per-person must be >= 1")
    con = open_database(db)
    stats = generate(con, persons, posts_per_person, seed=seed, relational=relational, entities=prefill_cache)
    if prefill_cache:
        stats["cached"] = prefill_generated(con)
    if config_out:
        Path(config_out).write_text(config_text(), encoding="utf-8")
    con.close()
    click.echo(f"wrote {stats['persons']} authors and {stats['posts']} posts ({stats['words']} words, "
               f"{stats['entities']} terms) to {db}" + (f"; {stats['cached']} texts cached" if prefill_cache else "")
               + (f"; configuration {config_out}" if config_out else ""))
