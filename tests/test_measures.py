import pytest

from helpers import rows


def test_ncp_matches_a_hand_computation(demo_con):
    """NCP from the definitions, computed in Python from the recoded values and D*."""
    dom = {a: (w, n) for _, a, w, n in rows(demo_con, "SELECT kind, name, width, n_distinct FROM rx.domain WHERE kind = 'relational'")}
    kinds = dict(rows(demo_con, "SELECT attribute, kind FROM rx.attributes"))
    per_partition = {}
    for pid, a, value, lo, hi, covered in rows(demo_con, "SELECT * FROM rx.recoded_values"):
        if kinds[a] == "numeric":
            ncp = (hi - lo) / dom[a][0]
        else:
            ncp = 0 if covered <= 1 else covered / dom[a][1]
        per_partition.setdefault(pid, []).append(ncp)
    part = dict(rows(demo_con, "SELECT person, partition_id FROM rx.partitions"))
    ncp_a = [sum(per_partition[part[p]]) / len(kinds) for p in part]
    x = {}
    for person, norm, kept in rows(demo_con, """
            SELECT t.person, t.norm, k.norm IS NOT NULL FROM rx.person_terms t JOIN rx.partitions p USING (person)
            LEFT JOIN rx.kept_terms k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm"""):
        x.setdefault(person, []).append(0 if kept else 1)
    ncp_x = [sum(v) / len(v) for v in x.values()]
    a_mean, x_mean = sum(ncp_a) / len(ncp_a), sum(ncp_x) / len(ncp_x)
    got = rows(demo_con, "SELECT ncp_a, ncp_x, ncp FROM rx.ncp")[0]
    assert got == pytest.approx((a_mean, x_mean, (a_mean + x_mean) / 2))


def test_ncp_per_label_and_attribute(demo_con):
    labels = dict(rows(demo_con, "SELECT label, ncp_x FROM rx.ncp_terms"))
    assert labels["PERSON"] == 1.0  # Pedro and Ben are each written by one person
    assert labels["GPE"] < 1.0       # UK is kept
    attrs = dict(rows(demo_con, "SELECT attribute, ncp FROM rx.ncp_attributes"))
    assert attrs["gender"] == 0.0 and 0 < attrs["age"] < 1


def test_classes(demo_con):
    sizes = [r[0] for r in rows(demo_con, "SELECT size FROM rx.classes")]
    assert sorted(sizes) == [2, 2, 2]
    assert rows(demo_con, "SELECT bool_and(ok) FROM rx.classes") == [(True,)]
