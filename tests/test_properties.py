"""Privacy properties over random small datasets (hypothesis): for any k, lambda and strategy the
release is k-anonymous, keeps every row, leaves no suppressed term in any text of its person, and
the level-synchronous partitioner agrees with the recursive reference, cut for cut."""
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference
from helpers import RANDOM_CONFIG, build, build_random, config_from, datasets, random_schemas, rows
from rxanon_sql.pipeline import apply
from rxanon_sql.verify import verify

def unreplaced_leaks(con):
    """Occurrences of a suppressed surface, in the person's original texts, with a letter or digit
    left unreplaced (an occurrence inside a longer term belongs to that term)."""
    leaks = []
    suppressed = {}
    for person, norm in rows(con, "SELECT DISTINCT person, norm FROM rx.replacements WHERE reason = 'suppressed'"):
        suppressed.setdefault(person, set()).add(norm)
    for row_id, person, attribute, text in rows(con, "SELECT row_id, person, attribute, text FROM rx.texts"):
        spans = rows(con, "SELECT start_pos, end_pos FROM rx.replacements WHERE row_id = ? AND attribute = ?", [row_id, attribute])
        terms = rows(con, "SELECT start_pos, end_pos FROM rx.terms WHERE row_id = ? AND attribute = ?", [row_id, attribute])
        for norm in suppressed.get(person, ()):
            for m in re.finditer(rf"(?<!\w){re.escape(norm)}(?!\w)", text, re.IGNORECASE):
                inside_longer_term = any(s <= m.start() and m.end() <= e and e - s > m.end() - m.start() for s, e in terms)
                # every letter and digit of the occurrence lies under some replacement
                replaced = all(any(s <= p < e for s, e in spans) for p in range(m.start(), m.end()) if text[p].isalnum())
                if not inside_longer_term and not replaced:
                    leaks.append((row_id, norm))
    return leaks


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(), lam=st.floats(0, 1), strategy=st.sampled_from(["mondrian", "gdf"]),
       nominal_order=st.sampled_from(["value", "frequency"]))
def test_release_is_k_anonymous_and_leaks_nothing(data, lam, strategy, nominal_order):
    k, people = data
    con = build(people)
    apply(con, config_from(RANDOM_CONFIG, k=k, lam=lam, strategy=strategy, nominal_order=nominal_order))
    v = verify(con)
    assert v.ok, (v.failing, v.leaks)
    assert v.smallest >= k
    assert rows(con, "SELECT count(*) FROM rx.release") == rows(con, "SELECT count(*) FROM posts")
    assert unreplaced_leaks(con) == []
    # A kept term is held by every person of its partition.
    assert rows(con, """
        SELECT count(*) FROM rx.kept_terms k JOIN rx.partitions p USING (partition_id)
        WHERE NOT EXISTS (SELECT 1 FROM rx.person_terms t WHERE t.person = p.person AND t.label = k.label AND t.norm = k.norm)
    """) == [(0,)]
    d = reference.load(con)
    cuts = []
    expected = (reference.mondrian if strategy == "mondrian" else reference.gdf)(d, cuts=cuts)
    got = {}
    for p, pid in rows(con, "SELECT person, partition_id FROM rx.partitions"):
        got.setdefault(pid, set()).add(p)
    assert sorted(map(sorted, got.values())) == sorted(map(sorted, expected))
    # the same cuts, with the same priorities to the last bit
    assert sorted(rows(con, "SELECT left_size + right_size, left_size, coalesce(attribute, label), kind, priority "
                            "FROM rx.splits")) == sorted(cuts)


@settings(max_examples=10, deadline=None)
@given(data=datasets(), lam=st.sampled_from([0.0, 1.0]))
def test_lambda_extremes(data, lam):
    k, people = data
    con = build(people)
    apply(con, config_from(RANDOM_CONFIG, k=k, lam=lam))
    preferred, other = ("relational", "textual") if lam == 1.0 else ("textual", "relational")
    assert rows(con, """
        SELECT count(*) FROM rx.split_candidates c
        WHERE c.chosen AND c.kind = ? AND EXISTS (
            SELECT 1 FROM rx.split_candidates r
            WHERE r.level = c.level AND r.partition_id = c.partition_id AND r.kind = ? AND r.allowable)
    """, [other, preferred]) == [(0,)]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=random_schemas(), lam=st.floats(0, 1), strategy=st.sampled_from(["mondrian", "gdf"]))
def test_random_schemas_nulls_and_overlaps(data, lam, strategy):
    names, k, persons = data
    con, cfg = build_random(names, persons)
    apply(con, config_from(cfg, k=k, lam=lam, strategy=strategy))
    v = verify(con)
    assert v.ok, (v.failing, v.leaks, v.identifiers)
    assert rows(con, "SELECT count(*) FROM rx.release") == [(sum(len(p[4]) for p in persons),)]
    assert unreplaced_leaks(con) == []
