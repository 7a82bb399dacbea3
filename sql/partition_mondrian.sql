-- One level of the modified Mondrian (DESIGN.md, split priority and cuts): for every open
-- partition at once, every relational attribute and every textual label is a candidate with
-- priority (span + w + bias) / 2 and the size of the left side of its cut.
CREATE OR REPLACE TEMP TABLE candidates AS
WITH
vals AS (
    SELECT c.partition_id, c.size, v.attribute, v.num
    FROM current_persons AS c
    JOIN rx.person_values AS v ON v.person = c.person
),
rel_span AS (
    SELECT partition_id, size, attribute, max(num) - min(num) AS width, count(DISTINCT num) AS n_distinct
    FROM vals
    GROUP BY partition_id, size, attribute
),
keys AS (
    SELECT partition_id, attribute, key FROM level_keys
),
-- numeric and date: left = persons whose key is below the median of the keys in P
median_cut AS (
    SELECT keys.partition_id, keys.attribute, median(keys.key) AS cut, 'lt' AS op
    FROM keys
    JOIN rx.attributes AS a ON a.attribute = keys.attribute
    WHERE a.kind IN ('numeric', 'date')
    GROUP BY keys.partition_id, keys.attribute
),
-- nominal and ordinal: left = persons whose first value is among the first floor(n/2) of the
-- n distinct values of P (in the order of value_ranks, partition_open.sql)
value_cut AS (
    SELECT partition_id, attribute, CAST(rank AS DOUBLE) AS cut, 'le' AS op
    FROM value_ranks
    WHERE rank = n // 2
),
rel_cut AS (
    SELECT * FROM median_cut
    UNION ALL
    SELECT * FROM value_cut
),
rel_left AS (
    SELECT keys.partition_id, keys.attribute,
           count(*) FILTER (WHERE (rc.op = 'lt' AND keys.key < rc.cut) OR (rc.op = 'le' AND keys.key <= rc.cut)) AS left_size
    FROM keys
    JOIN rel_cut AS rc ON rc.partition_id = keys.partition_id AND rc.attribute = keys.attribute
    GROUP BY keys.partition_id, keys.attribute
),
relational AS (
    SELECT s.partition_id, s.size, 'relational' AS kind, s.attribute AS name,
           CASE
               WHEN a.kind IN ('numeric', 'date') THEN CASE WHEN d.width > 0 THEN s.width / d.width ELSE 0 END
               ELSE s.n_distinct / d.n_distinct
           END AS span,
           a.bias, rc.op AS cut_op, rc.cut AS cut_value, CAST(NULL AS VARCHAR) AS cut_term,
           coalesce(l.left_size, 0) AS left_size
    FROM rel_span AS s
    JOIN rx.attributes AS a ON a.attribute = s.attribute
    JOIN rx.domain AS d ON d.kind = 'relational' AND d.name = s.attribute
    LEFT JOIN rel_cut AS rc ON rc.partition_id = s.partition_id AND rc.attribute = s.attribute
    LEFT JOIN rel_left AS l ON l.partition_id = s.partition_id AND l.attribute = s.attribute
),
-- textual label e: the presence cut on the term of e whose document frequency is closest to
-- |P|/2 among those with k <= df <= |P| - k (ties: higher df, then the term)
level_terms AS MATERIALIZED (
    SELECT * FROM term_df
),
label_span AS (
    SELECT partition_id, size, label_id, count(*) AS n_terms
    FROM level_terms
    GROUP BY partition_id, size, label_id
),
-- (within a label, term_id follows norm; an aggregate took half the time of a row_number window)
term_pick AS (
    SELECT partition_id, label_id,
           min_by(struct_pack(term_id := term_id, df := df),
                  struct_pack(distance := abs(df - size / 2.0), larger := -df, term_id := term_id)) AS pick
    FROM level_terms
    WHERE df >= (SELECT k FROM rx.params) AND df <= size - (SELECT k FROM rx.params)
    GROUP BY partition_id, label_id
),
textual AS (
    SELECT s.partition_id, s.size, 'textual' AS kind, d.name,
           s.n_terms / d.n_distinct AS span,
           coalesce(lb.bias, 0) AS bias, 'has' AS cut_op, CAST(NULL AS DOUBLE) AS cut_value, i.norm AS cut_term,
           coalesce(p.pick.df, 0) AS left_size
    FROM label_span AS s
    JOIN rx.domain AS d ON d.kind = 'textual' AND d.label_id = s.label_id
    LEFT JOIN rx.labels AS lb ON lb.label = d.name
    LEFT JOIN term_pick AS p ON p.partition_id = s.partition_id AND p.label_id = s.label_id
    LEFT JOIN rx.term_ids AS i ON i.term_id = p.pick.term_id
),
everything AS (
    SELECT * FROM relational
    UNION ALL
    SELECT * FROM textual
)
SELECT e.*,
       (e.span + CASE WHEN e.kind = 'relational' THEN p.lam ELSE 1 - p.lam END + e.bias) / 2 AS priority,
       e.left_size >= p.k AND e.size - e.left_size >= p.k AS allowable
FROM everything AS e
CROSS JOIN rx.params AS p;
