"""User generalization hierarchies (attributes.X.hierarchy, ARX's CSV format): the file's checks,
the lowest-common-node SQL against a Python reference on random trees, NCP, reuse, and a run on
rows of UCI Adult with ARX's hierarchies for it (tests/data/adult)."""
from __future__ import annotations

import hashlib
import json
import shutil
import tomllib
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import rows, scalar
from rxanon_sql.config import load_config, parse_config
from rxanon_sql.errors import ConfigError, InputError
from rxanon_sql.hierarchy import read_hierarchy
from rxanon_sql.pipeline import apply
from rxanon_sql.sqlrun import run_file
from rxanon_sql.verify import verify

ADULT = Path(__file__).parent / "data" / "adult"
ADULT_QIS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation")


# --- the lowest common node, in SQL and in Python ------------------------------------------

@st.composite
def trees(draw):
    """A random hierarchy as ARX writes it: one row per leaf, from the leaf up to the root '*'.
    Each level groups the nodes of the level below (a tree by construction)."""
    n = draw(st.integers(1, 12))
    paths = [[f"v{i}"] for i in range(n)]
    nodes = list(range(n))                       # each leaf's node index at the current level
    for level in range(1, draw(st.integers(0, 3)) + 1):
        groups = draw(st.lists(st.integers(0, 3), min_size=max(nodes) + 1, max_size=max(nodes) + 1))
        nodes = [groups[x] for x in nodes]
        for p, x in zip(paths, nodes):
            p.append(f"n{level}.{x}")
    for p in paths:
        p.append("*")
    return paths


def reference(paths: list[list[str]], partitions: dict[int, set[int]], present: set[int]):
    """Per partition: the node at the lowest level its leaves share, and the leaves present in D*
    under it."""
    out = {}
    for pid, leaves in partitions.items():
        level = next(lv for lv in range(len(paths[0])) if len({paths[i][lv] for i in leaves}) == 1)
        node = paths[next(iter(leaves))][level]
        out[pid] = (node, len({i for i in present if paths[i][level] == node}))
    return out


def run_recode(paths, assignment, kind):
    """recode_hierarchy.sql on minimal rx tables: person p holds leaf assignment[p][1] and sits in
    partition assignment[p][0]. A numeric value is written as the float ("3.0") the file's leaf
    "3" must match."""
    con = duckdb.connect()
    con.execute("CREATE SCHEMA rx")
    run_file(con, "parameters", "rx")
    con.execute("INSERT INTO rx.attributes VALUES ('a', ?, 0, 0, true, true)", [kind])
    leaf = (lambda i: str(i)) if kind == "numeric" else (lambda i: paths[i][0])
    con.executemany("INSERT INTO rx.hierarchies VALUES ('a', ?, ?, ?)",
                    [(leaf(i), level, leaf(i) if level == 0 else node) for i, p in enumerate(paths)
                     for level, node in enumerate(p)])
    con.execute("CREATE TABLE rx.qi_values (row_id BIGINT, person BIGINT, attribute VARCHAR, kind VARCHAR, "
                "txt VARCHAR, day DATE, num DOUBLE)")
    con.executemany("INSERT INTO rx.qi_values VALUES (?, ?, 'a', ?, ?, NULL, ?)",
                    [(p, p, kind, str(float(i)) if kind == "numeric" else paths[i][0], float(i))
                     for p, (_, i) in enumerate(assignment)])
    con.execute("CREATE TABLE rx.partitions (person BIGINT, partition_id BIGINT)")
    con.executemany("INSERT INTO rx.partitions VALUES (?, ?)", [(p, pid) for p, (pid, _) in enumerate(assignment)])
    for name in ("hierarchy_values", "recode_init", "recode_hierarchy"):
        run_file(con, name, "rx")
    return {pid: (value, covered) for pid, value, covered in
            rows(con, "SELECT partition_id, value, covered FROM rx.recoded_values")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), kind=st.sampled_from(["nominal", "numeric"]))
def test_lowest_common_node_matches_the_reference(data, kind):
    paths = data.draw(trees())
    assignment = data.draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, len(paths) - 1)), min_size=1,
                                    max_size=20))
    partitions: dict[int, set[int]] = {}
    for pid, i in assignment:
        partitions.setdefault(pid, set()).add(i)
    expected = reference(paths, partitions, {i for _, i in assignment})
    if kind == "numeric":
        # (level 0 shows the leaf as the file writes it: "3", not the column's "3.0")
        expected = {pid: (str(int(node[1:])) if node.startswith("v") else node, covered)
                    for pid, (node, covered) in expected.items()}
    assert run_recode(paths, assignment, kind) == expected


# --- the file's checks ---------------------------------------------------------------------

def _config(tmp_path: Path, hierarchy: str | None, kind: str = "nominal", extra: str = "") -> Path:
    if hierarchy is not None:
        (tmp_path / "h.csv").write_text(hierarchy, encoding="utf-8")
    path = tmp_path / "c.toml"
    path.write_text(f'[source]\nrelations = ["t"]\n[attributes.a]\ntype = "{kind}"\nhierarchy = "h.csv"\n{extra}',
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("text, kind, message", [
    ("x;g;*\ny;g\n", "nominal", "row 2 has 2 columns, row 1 has 3"),
    ("x;g;*\nx;h;*\n", "nominal", "leaf 'x' appears twice (rows 1 and 2)"),
    ("1;g;*\n1.0;g;*\n", "numeric", "leaf '1.0' appears twice (rows 1 and 2)"),
    ("x;g;G;*\ny;g;H;*\n", "nominal", "node 'g' (column 2) has two parents, 'G' (row 1) and 'H' (row 2)"),
    ("x;g;*\ny;h;top\n", "nominal", "its last column holds 2 nodes ('*', 'top'); a hierarchy needs one root"),
    ("x;;*\n", "nominal", "row 1 has an empty column 2"),
    ("old;g;*\n", "numeric", "leaf 'old' (row 1) is not a number, but the attribute is numeric"),
    ("inf;g;*\n", "numeric", "leaf 'inf' (row 1) is not a finite number"),
    ("\n", "nominal", "has no rows"),
])
def test_bad_files_are_refused_in_one_line(tmp_path, text, kind, message):
    with pytest.raises(ConfigError) as e:
        load_config(_config(tmp_path, text, kind))
    assert message in str(e.value) and "attributes.a.hierarchy: file " in str(e.value)
    assert str(tmp_path / "h.csv") in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("hierarchy, kind, extra, message", [
    (None, "nominal", "", "not found"),
    ("x;*\n", "date", "", "attributes.a.hierarchy is for numeric, nominal and ordinal attributes"),
    ("x;*\n", "nominal", 'hierarchy_delimiter = ";;"\n', "attributes.a.hierarchy_delimiter must be one character"),
    ("x;*\n", "nominal", "hierarchy_delimiter = 1\n", "attributes.a.hierarchy_delimiter must be str"),
])
def test_bad_keys_are_refused(tmp_path, hierarchy, kind, extra, message):
    with pytest.raises(ConfigError, match=message):
        load_config(_config(tmp_path, hierarchy, kind, extra))


def test_a_delimiter_without_a_hierarchy_is_refused():
    with pytest.raises(ConfigError, match="attributes.a.hierarchy_delimiter is given without attributes.a.hierarchy"):
        parse_config(tomllib.loads('[source]\nrelations = ["t"]\n[attributes.a]\ntype = "nominal"\n'
                                   'hierarchy_delimiter = ","\n'))


def test_the_path_is_relative_to_the_configuration_file(tmp_path, monkeypatch):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "h.csv").write_text("x,g,*\ny,g,*\n", encoding="utf-8")
    path = tmp_path / "conf" / "c.toml"
    path.write_text('[source]\nrelations = ["t"]\n[attributes.a]\ntype = "nominal"\nhierarchy = "h.csv"\n'
                    'hierarchy_delimiter = ","\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    h = load_config(path).attribute("a").hierarchy
    assert h.rows == (("x", "g", "*"), ("y", "g", "*")) and h.path == str(tmp_path / "conf" / "h.csv")


def test_the_adult_hierarchies_are_trees():
    for name in ADULT_QIS:
        h = read_hierarchy(ADULT / f"adult_hierarchy_{name}.csv", ";", name, numeric=name == "age")
        assert h.rows and {r[-1] for r in h.rows} == {"*"}


# --- runs ----------------------------------------------------------------------------------

def adult_config(tmp_path: Path, hierarchies=ADULT_QIS, k: int = 5) -> Path:
    lines = ['[source]', 'relations = ["adult"]', 'person = "id"', 'insensitive = ["salary-class"]']
    for c in ADULT_QIS:
        lines += [f'[attributes."{c}"]', f'type = "{"numeric" if c == "age" else "nominal"}"']
        if c in hierarchies:
            lines.append(f'hierarchy = "adult_hierarchy_{c}.csv"')
    lines += ['[anonymization]', f'k = {k}', 'lambda = 1.0']
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path)
    path = tmp_path / "adult.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def adult_db(rows_: int = 200) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE adult AS SELECT CAST(row_number() OVER () AS INTEGER) AS id, * "
                f"FROM read_csv('{ADULT / 'adult_sample.csv'}', delim=';', header=true) LIMIT {rows_}")
    return con


def ancestors(path: Path) -> dict[str, set[str]]:
    return {r[0]: set(r) for r in read_hierarchy(path, ";", "", numeric=False).rows}


def test_adult_release_shows_an_ancestor_of_each_value_and_is_k_anonymous(tmp_path):
    con = adult_db()
    report = apply(con, load_config(adult_config(tmp_path)))
    assert report.verdict.ok and report.verdict.smallest >= 5
    for c in ADULT_QIS:
        up = ancestors(tmp_path / f"adult_hierarchy_{c}.csv")
        pairs = rows(con, f'SELECT CAST(d."{c}" AS VARCHAR), a."{c}" FROM rx.audit AS a '
                          f'JOIN rx.dataset AS d ON d.row_id = a.row_id')
        assert len(pairs) == 200 and all(shown in up[value] for value, shown in pairs), c
    # ...and the lowest such node: a partition shows a value only when it holds one value.
    assert scalar(con, 'SELECT count(*) FROM rx.recoded WHERE "age__covered" = 1 AND "age" LIKE \'%-%\'') == 0
    assert verify(con, "rx").ok     # the verdict from the stored configuration


def test_adult_ncp_counts_the_values_of_d_under_the_node(tmp_path):
    con = adult_db()
    apply(con, load_config(adult_config(tmp_path)))
    for c in ADULT_QIS:
        paths = {r[0]: r for r in read_hierarchy(tmp_path / f"adult_hierarchy_{c}.csv", ";", "", False).rows}
        values = {str(v) for v, in rows(con, f'SELECT DISTINCT "{c}" FROM adult')}
        expected = []
        for shown, size in rows(con, f'SELECT "{c}", size FROM rx.recoded'):
            level = next(i for i, node in enumerate(next(p for p in paths.values() if shown in p)) if node == shown)
            under = sum(1 for v in values if paths[v][level] == shown)
            expected += [0.0 if under == 1 else under / len(values)] * size
        got = scalar(con, "SELECT ncp FROM rx.ncp_attributes WHERE attribute = ?", [c])
        assert got == pytest.approx(sum(expected) / len(expected)), c


def test_adult_with_and_without_hierarchies_same_partitions(tmp_path):
    # Partitioning is unchanged: only recoding and NCP differ.
    a, b = adult_db(), adult_db()
    apply(a, load_config(adult_config(tmp_path)))
    apply(b, load_config(adult_config(tmp_path, hierarchies=())))
    query = "SELECT * FROM rx.partitions ORDER BY person"
    assert rows(a, query) == rows(b, query)
    assert scalar(a, "SELECT ncp_a FROM rx.ncp") >= scalar(b, "SELECT ncp_a FROM rx.ncp") - 1e-12


def test_a_value_that_is_no_leaf_is_refused_and_nothing_is_written(tmp_path):
    con = adult_db()
    con.execute("UPDATE adult SET occupation = 'Astronaut' WHERE id = 3")
    with pytest.raises(InputError) as e:
        apply(con, load_config(adult_config(tmp_path)))
    assert str(e.value).startswith("relations ['adult'], column 'occupation': value 'Astronaut' (1 rows) is no leaf "
                                   "of attributes.occupation.hierarchy")
    assert scalar(con, "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'rx'") == 0


def test_a_changed_file_is_read_again_when_the_run_reuses(tmp_path):
    con = adult_db()
    path = adult_config(tmp_path)
    apply(con, load_config(path))
    # The same path, another content: age in decades only.
    (tmp_path / "adult_hierarchy_age.csv").write_text(
        "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(1, 100)), encoding="utf-8")
    report = apply(con, load_config(path))
    assert report.reused
    fresh = adult_db()
    apply(fresh, load_config(path), reuse=False)
    query = "SELECT * FROM rx.release ORDER BY ALL"
    assert rows(con, query) == rows(fresh, query)
    assert {v for v, in rows(con, "SELECT DISTINCT age FROM rx.release")} <= \
        {"*", *(f"{d}-{d + 9}" for d in range(0, 100, 10)), *(str(a) for a in range(1, 100))}
    # A content that lacks a value of the data is refused on the reusing path too.
    (tmp_path / "adult_hierarchy_age.csv").write_text("".join(f"{a};*\n" for a in range(1, 30)), encoding="utf-8")
    with pytest.raises(InputError, match="column 'age': value '.*' .* is no leaf of attributes.age.hierarchy"):
        apply(con, load_config(path))


def test_the_run_records_the_file_and_its_digest_not_its_rows(tmp_path):
    con = adult_db()
    apply(con, load_config(adult_config(tmp_path)))
    recorded = json.loads(scalar(con, "SELECT config->'$.attributes[1].hierarchy' FROM rx.runs"))
    data = (tmp_path / "adult_hierarchy_age.csv").read_bytes()
    assert recorded == {"path": str(tmp_path / "adult_hierarchy_age.csv"), "delimiter": ";",
                        "sha256": hashlib.sha256(data).hexdigest(), "leaves": len(data.splitlines())}


def test_a_stated_value_in_the_text_shows_the_node(tmp_path):
    # "I am 36 years old" states the age: its number is replaced by the partition's node.
    (tmp_path / "age.csv").write_text("".join(f"{a};{a // 10 * 10}s;*\n" for a in range(100)), encoding="utf-8")
    path = tmp_path / "c.toml"
    path.write_text('[source]\nrelations = ["t"]\nperson = "id"\n[attributes.age]\ntype = "numeric"\n'
                    'hierarchy = "age.csv"\n[text]\ncolumns = ["text"]\n[anonymization]\nk = 2\n', encoding="utf-8")
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, 30 + i, f"I am {30 + i} years old.") for i in range(4)])
    report = apply(con, load_config(path))
    assert report.verdict.ok
    assert sorted(r[0] for r in rows(con, "SELECT text FROM rx.release")) == ["I am 30s years old."] * 4


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(["nominal", "ordinal", "numeric"]), k=st.integers(2, 4))
def test_any_tree_gives_a_k_anonymous_release_of_ancestors(tmp_path_factory, data, kind, k):
    """On random trees and data (a person may hold several values): every class has k persons or
    more, and each released value is an ancestor of (or is) the tuple's own value."""
    paths = data.draw(trees())
    leaf = (lambda i: str(i)) if kind == "numeric" else (lambda i: paths[i][0])
    persons = data.draw(st.integers(k, 3 * k))
    tuples = [(p, i) for p in range(persons)
              for i in data.draw(st.lists(st.integers(0, len(paths) - 1), min_size=1, max_size=2, unique=True))]
    folder = tmp_path_factory.mktemp("tree")
    (folder / "h.csv").write_text("".join(";".join([leaf(i), *p[1:]]) + "\n" for i, p in enumerate(paths)),
                                  encoding="utf-8")
    order = f"order = [{', '.join(repr(leaf(i)) for i in range(len(paths)))}]\n" if kind == "ordinal" else ""
    (folder / "c.toml").write_text(f'[source]\nrelations = ["t"]\nperson = "id"\n[attributes.a]\ntype = "{kind}"\n'
                                   f'hierarchy = "h.csv"\n{order}[anonymization]\nk = {k}\n', encoding="utf-8")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t (id INTEGER, a {'INTEGER' if kind == 'numeric' else 'VARCHAR'})")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(p, i if kind == "numeric" else leaf(i)) for p, i in tuples])
    report = apply(con, load_config(folder / "c.toml"))
    assert report.verdict.ok and report.verdict.smallest >= k
    up = {str(leaf(i)): {leaf(i), *p[1:]} for i, p in enumerate(paths)}
    shown = rows(con, "SELECT CAST(d.a AS VARCHAR), a.a FROM rx.audit AS a JOIN rx.dataset AS d ON d.row_id = a.row_id")
    assert len(shown) == len(tuples) and all(s in up[v] for v, s in shown)
