"""The residual audit of `verify` (sql/residual.sql): released tokens and capitalised sequences
that the original texts of 1 to k-1 persons hold and that are no common words, found without
rx.terms. Built on a real database file and a real `apply` of the running example with a few
posts added (k = 3)."""
from __future__ import annotations

import shutil
import tomllib

import duckdb
from hypothesis import given, settings, strategies as st
import pytest
from click.testing import CliRunner

from helpers import rows, scalar
from rxanon_sql.cli import main
from rxanon_sql.common_words import common_words
from rxanon_sql.config import parse_config
from rxanon_sql.demo import CONFIG, write_demo_database
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

K = 3
# A label of its own whose name one author also writes as a plain word.
CONFIG_RESIDUAL = CONFIG.replace("[anonymization]", 'GIZMO = ["flux capacitor"]\n\n[anonymization]')
EXTRA_POSTS = [
    # A badge number and a lower-case surname that no recognizer tags, one author each; an
    # invented word that three authors (k) write, and a rare one that two authors write; a
    # capitalised sequence of common words that three authors write, one that one author
    # writes, one that one author writes but for its last word as the three, and one with a
    # rare token; a common word that one author alone writes.
    (1, "16,May,2004", "I parked next to the grzybowski bakery, badge 483920 on the dashboard. Thank You Very Much."),
    (2, "19,August,2005", "We had quuxberry pie and I played the zither after dinner. I Love Zither Music."),
    (3, "28,May,2004", "The quuxberry season is short. My gizmo broke again. Thank You Very Much."),
    (4, "20,January,2004", "Quuxberry jam, the zither, then I repaired the flux capacitor. Thank You Very Kindly."),
    (6, "16,May,2004", "The garden is wet. Big Red Kitten won the cup again. Thank You Very Much."),
]


def _config(**overrides):
    # (the rare-token guard off, unless a test turns it on: the audit is to find what survives)
    return parse_config(tomllib.loads(CONFIG_RESIDUAL)).with_overrides(**{"k": K, "rare_guard": False, **overrides})


def _build(path: str, **overrides) -> None:
    con = duckdb.connect(path)
    write_demo_database(con)
    con.executemany("INSERT INTO posts VALUES (?, ?, ?)", EXTRA_POSTS)
    apply(con, _config(**overrides))
    con.close()


@pytest.fixture(scope="module")
def residual_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("residual") / "residual.duckdb")
    _build(path)
    return path


@pytest.fixture(scope="module")
def verdict(residual_db):
    con = duckdb.connect(residual_db, read_only=True)
    v = verify(con)
    con.close()
    return v


def _suspects(v, kind="token") -> dict[str, set]:
    """suspect -> the persons whose released texts show it."""
    out: dict[str, set] = {}
    for r in v.suspects:
        if r[0] == kind:
            out.setdefault(r[1], set()).add(r[3])
    return out


def _released(db: str, person: int) -> str:
    con = duckdb.connect(db, read_only=True)
    try:
        return " ".join(t for (t,) in rows(con, "SELECT text FROM rx.audit WHERE person = ?", [person]))
    finally:
        con.close()


def test_rare_tokens_that_survive_are_suspects(residual_db, verdict):
    assert "483920" in _released(residual_db, 1)
    suspects = _suspects(verdict)
    assert suspects["483920"] == {1}
    con = duckdb.connect(residual_db, read_only=True)
    # the surname no recognizer tagged
    assert scalar(con, "SELECT count(*) FROM rx.terms WHERE lower(term) LIKE '%grzybowski%'") == 0
    con.close()
    assert suspects["grzybowski"] == {1}
    row = next(r for r in verdict.suspects if r[0] == "token" and r[1] == "483920")
    kind, suspect, original, person, occurrences, row_id, attribute, example = row
    assert (original, person, occurrences, attribute) == (1, 1, 1, "text") and "483920" in example
    # written by two authors (fewer than k): a suspect in both their released texts
    assert suspects["zither"] == {2, 4}
    assert {r[2] for r in verdict.suspects if r[1] == "zither"} == {2}
    # the summary figures
    assert verdict.suspect_persons == len({r[3] for r in verdict.suspects}) >= 2
    assert ("token", "483920", 1, 1, 1) in verdict.suspect_strings
    assert ("token", "zither", 2, 2, 3) in verdict.suspect_strings     # author 2 writes it twice


def test_frequent_and_common_words_are_no_suspects(residual_db, verdict):
    suspects = _suspects(verdict)
    # written by k authors, but two of them in one class and the third in the other: within each
    # class it singles its writers out, a suspect for all three (counted in their class)
    assert "quuxberry" in _released(residual_db, 3).lower()
    con = duckdb.connect(residual_db, read_only=True)
    classes = dict(rows(con, "SELECT DISTINCT person, partition_id FROM rx.audit"))
    con.close()
    assert classes[2] == classes[4] != classes[3]
    assert suspects["quuxberry"] == {2, 3, 4}
    assert {(r[3], r[2]) for r in verdict.suspects if r[1] == "quuxberry"} == {(2, 2), (4, 2), (3, 1)}
    # a common word that one author alone writes
    assert "garden" in _released(residual_db, 6) and "garden" in common_words("en")
    assert "garden" not in suspects


def test_capitalised_sequences(residual_db, verdict):
    assert "Big Red Kitten" in _released(residual_db, 6) and "I Love Zither Music" in _released(residual_db, 2)
    sequences = _suspects(verdict, "sequence")
    # common words only, but one author's (without "Big" at its start: one of the most frequent
    # words, as a sentence's first word is)
    assert sequences["red kitten"] == {6} and "big red kitten" not in sequences
    assert {r[2] for r in verdict.suspects if r[1] == "red kitten"} == {1}
    # written by k authors; and the same but for its last word, by one: the whole run counts
    assert "thank you very much" not in sequences and "thank you very" not in sequences
    assert sequences["thank you very kindly"] == {4}
    # its rare token is the suspect already
    assert "i love zither music" not in sequences and 2 in _suspects(verdict)["zither"]


def test_a_run_of_five_capitalised_words_is_no_suspect(tmp_path):
    # A shouted sentence is rare as a phrase, as most sentences are, and is no name; a run of
    # two to four is still a suspect (the guard's range).
    con = duckdb.connect(str(tmp_path / "shout.duckdb"))
    write_demo_database(con)
    con.executemany("INSERT INTO posts VALUES (?, ?, ?)", [
        (6, "16,May,2004", "MY PARENTS ARE MOVING AWAY SOON. Big Red Kitten won the cup again."),
        (1, "17,May,2004", "Thank You Very Much For Everything.")])
    apply(con, _config())
    sequences = _suspects(verify(con), "sequence")
    con.close()
    assert "MY PARENTS ARE MOVING AWAY SOON" in _released(str(tmp_path / "shout.duckdb"), 6)
    assert not [s for s in sequences if "moving" in s or "everything" in s], sequences
    assert sequences["red kitten"] == {6}


def test_bracketed_labels_are_no_suspects(residual_db, verdict):
    # Author 3 writes "gizmo"; the release writes author 4's flux capacitor as "[GIZMO]".
    assert "[GIZMO]" in _released(residual_db, 4)
    assert _suspects(verdict)["gizmo"] == {3}


def test_values_of_the_same_row_are_no_suspects(residual_db, verdict):
    """Author 5's "Pisces" is a value of the sign column, recoded in the text as in the column:
    new to no reader of that row, although only author 5 writes it."""
    con = duckdb.connect(residual_db, read_only=True)
    shown = rows(con, "SELECT row_id, sign, text FROM rx.audit WHERE person = 5 AND contains(lower(text), 'pisces')")
    con.close()
    assert shown and all("pisces" in sign.lower() for _, sign, _ in shown)
    assert "pisces" not in common_words("en")
    assert "pisces" not in _suspects(verdict)


def test_a_sequence_of_the_rows_values_is_no_suspect(residual_db, tmp_path):
    """A capitalised sequence of common words that one author writes is a suspect, unless its
    words are all values of the row it is released in (topic "(Science,Student)" here)."""
    db = str(tmp_path / "values.duckdb")
    shutil.copy(residual_db, db)
    con = duckdb.connect(db)
    row_id, topic = rows(con, "SELECT row_id, topic FROM rx.audit WHERE person = 4 ORDER BY row_id LIMIT 1")[0]
    assert {"science", "student"} <= set(topic.lower().strip("()").split(","))
    other = rows(con, "SELECT row_id FROM rx.audit WHERE person = 1 ORDER BY row_id LIMIT 1")[0][0]
    for name in ("dataset", "audit"):
        con.execute(f"UPDATE rx.{name} SET text = text || ' Science Student.' WHERE row_id IN (?, ?)", [row_id, other])
    v = verify(con)
    con.close()
    assert _suspects(v, "sequence")["science student"] == {1}


def test_a_token_that_k_persons_of_the_class_write_is_no_suspect(residual_db, tmp_path):
    """Counted in the class: "blorptastic" in the texts of the k persons of one class passes; in
    those of k persons of two classes it is a suspect of each."""
    db = str(tmp_path / "classes.duckdb")
    shutil.copy(residual_db, db)
    con = duckdb.connect(db)
    classes = dict(rows(con, "SELECT DISTINCT person, partition_id FROM rx.audit"))
    one = sorted(p for p in classes if classes[p] == classes[1])
    assert len(one) == K
    other = next(p for p in classes if classes[p] != classes[1])
    for name in ("dataset", "audit"):
        con.execute(f"UPDATE rx.{name} SET text = text || ' Blorptastic.' WHERE person IN ?", [one])
        con.execute(f"UPDATE rx.{name} SET text = text || ' Zwonkish.' WHERE person IN ?", [[*one[:K - 1], other]])
    suspects = _suspects(verify(con))
    con.close()
    assert "blorptastic" not in suspects
    assert suspects["zwonkish"] == {*one[:K - 1], other}


def test_tokens_no_original_text_holds_are_no_suspects(residual_db, tmp_path):
    """A token of no original text identifies no one (a surrogate); one of another person's
    original text does, wherever it is released."""
    db = str(tmp_path / "tampered.duckdb")
    shutil.copy(residual_db, db)
    con = duckdb.connect(db)
    con.execute("UPDATE rx.audit SET text = text || ' Call qwzxvbnm about 483920.' WHERE person = 6")
    v = verify(con)
    con.close()
    suspects = _suspects(v)
    assert "qwzxvbnm" not in suspects
    assert suspects["483920"] == {1, 6}


def test_surrogates_are_no_suspects(tmp_path):
    db = str(tmp_path / "pseudonymized.duckdb")
    _build(db, operator="pseudonymize", secret="residual audit test")
    con = duckdb.connect(db, read_only=True)
    surrogates = {w.lower() for (s,) in rows(con, "SELECT DISTINCT surrogate FROM rx.surrogates WHERE surrogate IS NOT NULL")
                  for w in s.split()}
    released = " ".join(t for (t,) in rows(con, "SELECT text FROM rx.audit")).lower()
    originals = " ".join(t for (t,) in rows(con, "SELECT text FROM rx.dataset")).lower()
    v = verify(con)
    con.close()
    # surrogate words that the release shows and that are neither common nor any author's words
    fresh = {w for w in surrogates if w in released and w not in originals and w not in common_words("en")}
    assert fresh
    assert not fresh & set(_suspects(v))


def test_verify_strict_fails_on_suspects_via_the_cli(residual_db):
    runner = CliRunner()
    plain = runner.invoke(main, ["verify", residual_db])
    assert plain.exit_code == 0, plain.output
    assert "residual audit:" in plain.output and "SUSPECT" not in plain.output
    strict = runner.invoke(main, ["verify", residual_db, "--strict"])
    assert strict.exit_code == 1
    assert "SUSPECT token '483920'" in strict.output


def test_verify_strict_passes_without_suspects(residual_db, tmp_path):
    """--strict fails for the suspects alone: with none left, the release passes."""
    db = str(tmp_path / "clean.duckdb")
    shutil.copy(residual_db, db)
    con = duckdb.connect(db)
    # every author's texts written as the word "hello" only: common, no suspect left (in the
    # dataset too, with the replacements as empty edits, since verify rebuilds the audit from them)
    for name in ("dataset", "audit"):
        con.execute(f"UPDATE rx.{name} SET text = 'hello'")
    con.execute("UPDATE rx.replacements SET start_pos = 0, end_pos = 0, replacement = ''")
    con.close()
    r = CliRunner().invoke(main, ["verify", db, "--strict"])
    assert "residual audit: 0 suspect strings" in r.output
    assert r.exit_code == 0, r.output


def test_with_the_rare_guard_on_the_strict_audit_passes(tmp_path):
    path = str(tmp_path / "guarded.duckdb")
    _build(path, rare_guard=True)
    con = duckdb.connect(path, read_only=True)
    v = verify(con, strict=True)
    assert v.ok and not v.suspects, v.suspects


# Characters that tell the two cuttings of a text into tokens apart if any can: word characters
# of several scripts and cases (a capital whose lower case is longer, "İ"; the Kelvin sign), marks,
# digits, the underscore, spaces in a row, tabs, line breaks, the no-break space, brackets,
# apostrophes, punctuation and an emoji.
_TEXT_CHARACTERS = list("aZé É ßẞİıΣσς Kk中_09٣  \t\n\u00a0\u0301\u200b[]'.,;-!") + ["\U0001f600"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(_TEXT_CHARACTERS), max_size=30) | st.text(max_size=12),
                min_size=1, max_size=4))
def test_the_original_texts_pass_finds_the_tokens_of_the_token_pattern(texts):
    """residual.sql's one pass over the original texts cuts them into runs of word characters
    and spaces and those at the spaces (fewer regular-expression matches): every position of the
    tokens that TOKEN finds in the lower-case text, with its next three tokens, and nothing else."""
    from rxanon_sql.sqlrun import statements
    from rxanon_sql.verify import audit_patterns
    (sql, names), = [(s, n) for s, n in statements("residual", cached=False) if "TABLE residual_original_hits AS" in s]
    con = duckdb.connect()
    con.execute("CREATE TEMP TABLE residual_originals AS SELECT 7 AS person, unnest($1::VARCHAR[]) AS text", [texts])
    patterns = audit_patterns()
    token_lists = [r[0] for r in rows(con, "SELECT regexp_extract_all(lower(text), $1) FROM residual_originals",
                                      [patterns["token"]])]
    con.execute("CREATE TEMP TABLE residual_wanted AS SELECT unnest($1::VARCHAR[]) AS token",
                [sorted({t for tokens in token_lists for t in tokens})])
    con.execute(sql, {n: patterns[n] for n in names})
    expected = {(7, t, tuple(tokens[i + j] if i + j < len(tokens) else None for j in range(4)))
                for tokens in token_lists for i, t in enumerate(tokens)}
    assert {(p, t, tuple(run)) for p, t, run in rows(con, "SELECT * FROM residual_original_hits")} == expected
