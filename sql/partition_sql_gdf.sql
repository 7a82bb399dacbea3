-- One level of the SQL partitioner, GDF (paper 000, Algorithm 2): one candidate per open
-- partition, the presence cut on its most frequent term among those that leave k persons on
-- each side (ties: the term's id, which follows label, then norm). A term cut on is never
-- allowable again below: it has df = |P| on the left side and 0 on the right.
CREATE OR REPLACE TEMP TABLE level_scored AS
SELECT partition_id, size, 1 AS kind, label_id AS name, CAST(NULL AS VARCHAR) AS name_text, false AS has_span,
       CAST(NULL AS DOUBLE) AS span, CAST(0 AS DOUBLE) AS bias, CAST(df AS DOUBLE) AS priority, 3 AS op,
       CAST(NULL AS DOUBLE) AS cut_value, term_id AS cut_term, df AS left_size
FROM (
    SELECT t.*, row_number() OVER (PARTITION BY t.partition_id ORDER BY t.df DESC, t.term_id) AS r
    FROM level_terms AS t
    CROSS JOIN rx.params AS p
    WHERE t.df >= p.k AND t.df <= t.size - p.k
) AS best
WHERE r = 1;
