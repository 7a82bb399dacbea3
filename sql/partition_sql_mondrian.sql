-- One level of the SQL partitioner, the modified Mondrian (paper 000, Algorithm 1; docs/how-it-works.md):
-- every relational attribute and every textual label of every open partition is a candidate,
-- with its span, its priority (span + w + bias) / 2, its cut and the size of the cut's left side,
-- coded as partition.py codes them (kind 0 relational, 1 textual; op 0 none, 1 lt, 2 le, 3 has).
CREATE OR REPLACE TEMP TABLE level_scored AS
WITH
spread AS (
    SELECT c.partition_id, c.size, v.attribute, max(v.num) - min(v.num) AS width, count(DISTINCT v.num) AS n_distinct
    FROM level_persons AS c
    JOIN rx.person_values AS v ON v.person = c.person
    GROUP BY c.partition_id, c.size, v.attribute
),
-- nominal and ordinal: left are the persons holding one of the first floor(n/2) values
ranked_left AS (
    SELECT r.partition_id, r.attribute, count(DISTINCT c.person) AS left_size
    FROM level_ranks AS r
    JOIN rx.person_values AS v ON v.attribute = r.attribute AND v.num = r.num
    JOIN level_persons AS c ON c.person = v.person AND c.partition_id = r.partition_id
    WHERE r.rank < r.n // 2
    GROUP BY r.partition_id, r.attribute
),
-- numeric and date: left are the persons whose key is below the median
median_left AS (
    SELECT m.partition_id, m.attribute, m.median, count(k.person) AS left_size
    FROM level_medians AS m
    JOIN level_persons AS c ON c.partition_id = m.partition_id
    LEFT JOIN rx.person_keys AS k ON k.person = c.person AND k.attribute = m.attribute AND k.key < m.median
    GROUP BY m.partition_id, m.attribute, m.median
),
relational AS (
    SELECT s.partition_id, s.size, 0 AS kind, a.position AS name, a.attribute AS name_text,
           CASE
               WHEN a.kind IN ('numeric', 'date') THEN
                   CASE WHEN coalesce(d.width, 0) > 0 THEN s.width / d.width ELSE 0 END
               ELSE s.n_distinct / greatest(coalesce(d.n_distinct, 0), 1)
           END AS span,
           a.bias,
           CASE
               WHEN m.median IS NOT NULL THEN 1
               WHEN a.kind IN ('nominal', 'ordinal') AND s.n_distinct // 2 >= 1 THEN 2
               ELSE 0
           END AS op,
           CASE
               WHEN m.median IS NOT NULL THEN m.median
               WHEN a.kind IN ('nominal', 'ordinal') AND s.n_distinct // 2 >= 1 THEN CAST(s.n_distinct // 2 AS DOUBLE)
           END AS cut_value,
           0 AS cut_term,
           coalesce(m.left_size, r.left_size, 0) AS left_size
    FROM spread AS s
    JOIN rx.attributes AS a ON a.attribute = s.attribute
    LEFT JOIN rx.domain AS d ON d.kind = 'relational' AND d.name = s.attribute
    LEFT JOIN median_left AS m ON m.partition_id = s.partition_id AND m.attribute = s.attribute
    LEFT JOIN ranked_left AS r ON r.partition_id = s.partition_id AND r.attribute = s.attribute
),
-- a label's presence cut is on its term whose document frequency is closest to |P|/2 among
-- those that leave k persons on each side (ties: the larger df, then the term's id)
term_pick AS (
    SELECT t.partition_id, t.label_id, t.term_id, t.df,
           row_number() OVER (PARTITION BY t.partition_id, t.label_id
                              ORDER BY abs(2 * t.df - t.size), t.df DESC, t.term_id) AS r
    FROM level_terms AS t
    CROSS JOIN rx.params AS p
    WHERE t.df >= p.k AND t.df <= t.size - p.k
),
label_spread AS (
    SELECT partition_id, size, label_id, count(*) AS n_terms
    FROM level_terms
    GROUP BY partition_id, size, label_id
),
textual AS (
    SELECT s.partition_id, s.size, 1 AS kind, s.label_id AS name, d.name AS name_text,
           s.n_terms / coalesce(d.n_distinct, 1) AS span,
           coalesce(lb.bias, 0) AS bias, 3 AS op, CAST(NULL AS DOUBLE) AS cut_value,
           coalesce(pick.term_id, 0) AS cut_term, coalesce(pick.df, 0) AS left_size
    FROM label_spread AS s
    LEFT JOIN rx.domain AS d ON d.kind = 'textual' AND d.label_id = s.label_id
    LEFT JOIN rx.labels AS lb ON lb.label = d.name
    LEFT JOIN term_pick AS pick ON pick.partition_id = s.partition_id AND pick.label_id = s.label_id AND pick.r = 1
)
SELECT e.partition_id, e.size, e.kind, e.name, e.name_text, true AS has_span, e.span, e.bias,
       (e.span + CASE WHEN e.kind = 0 THEN p.lam ELSE 1 - p.lam END + e.bias) / 2 AS priority,
       e.op, e.cut_value, e.cut_term, e.left_size
FROM (SELECT * FROM relational UNION ALL SELECT * FROM textual) AS e
CROSS JOIN rx.params AS p;
