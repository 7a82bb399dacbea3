"""apply's repair (rxanon_sql/repair.py, sql/repair.sql): what the check before the commit still
reads in a released text is replaced where it read it, and the release passes its check."""
from __future__ import annotations

import duckdb
import pytest
from click.testing import CliRunner

from helpers import demo_config, rows, scalar
from rxanon_sql.cli import main
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import apply
from rxanon_sql.release import release
from rxanon_sql.repair import repair, repairable
from rxanon_sql.verify import verify


def _unreplace(con):
    """Drop a suppressed replacement of surfaces that the same person's texts replace elsewhere
    too, and rebuild the release: the check then reads them as leaks, as it would a text the
    pipeline read another way."""
    dropped = rows(con, """
        SELECT r.row_id, r.attribute, r.start_pos FROM rx.replacements AS r
        WHERE r.reason = 'suppressed' AND (SELECT count(*) FROM rx.replacements AS o
                                           WHERE o.person = r.person AND o.norm = r.norm AND o.reason = 'suppressed') > 1
        ORDER BY ALL LIMIT 1""")
    for row_id, attribute, start in dropped:
        con.execute("DELETE FROM rx.replacements WHERE row_id = ? AND attribute = ? AND start_pos = ?",
                    [row_id, attribute, start])
    release(con, demo_config())
    return dropped


@pytest.fixture(scope="module")
def twice():
    """The demo, with Pedro named in a second post of his."""
    con = duckdb.connect()
    write_demo_database(con)
    con.execute("UPDATE posts SET text = text || ' Pedro says hi.' WHERE id = (SELECT id FROM posts WHERE text LIKE "
                "'%Pedro%') AND text NOT LIKE '%Pedro%'")
    apply(con, demo_config())
    yield con
    con.close()


def test_a_leak_is_replaced_where_the_check_read_it(twice):
    con = twice
    before = rows(con, "SELECT * FROM rx.release ORDER BY ALL")
    dropped = _unreplace(con)
    assert dropped
    v = verify(con, "rx", residual=False)
    assert v.leaks and not v.ok and repairable(v, demo_config())
    v, added = repair(con, demo_config(), v)
    assert v.ok and added == len(dropped) == scalar(con, "SELECT count(*) FROM rx.replacements WHERE reason = 'repaired'")
    # each repair stands where the dropped replacement stood, and the release reads as before
    assert sorted(rows(con, "SELECT row_id, attribute, start_pos FROM rx.replacements WHERE reason = 'repaired'")) \
        == sorted(dropped)
    assert rows(con, "SELECT * FROM rx.release ORDER BY ALL") == before
    # verify, which knows nothing of repairs, agrees
    assert verify(con, "rx").ok


def test_no_repair_on_a_release_that_passes(demo_con):
    assert scalar(demo_con, "SELECT count(*) FROM rx.replacements WHERE reason = 'repaired'") == 0


def test_a_class_below_k_is_not_repaired(demo_con):
    v = verify(demo_con, "rx", k=4, residual=False)
    assert v.failing and not repairable(v, demo_config(k=4))


def test_a_release_that_cannot_be_repaired_says_what_to_change_first(tmp_path):
    """A column released as it is that holds a direct identifier's values: no repair reaches a
    column other than a text, and the first line names the column and the key to change."""
    db = tmp_path / "db.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE people AS SELECT i AS id, ['Mary Jones', 'John Smith'][1 + i % 2] AS full_name, "
                "['Mary Jones', 'John Smith'][1 + i % 2] AS nick, 20 + i % 7 AS age FROM range(20) t(i)")
    con.close()
    (tmp_path / "rx.toml").write_text('[source]\nrelations = ["people"]\nperson = "id"\n'
                                      'direct_identifiers = ["full_name"]\ninsensitive = ["nick"]\n'
                                      '[attributes.age]\ntype = "numeric"\n')
    r = CliRunner().invoke(main, ["apply", str(db), "--config", str(tmp_path / "rx.toml"), "--k", "2"])
    assert r.exit_code == 1
    first = r.output.splitlines()[0]
    assert first.startswith("rxanon-sql: what to change: column 'nick'") and "source.direct_identifiers" in first, \
        r.output
