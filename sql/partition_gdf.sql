-- One level of GDF (paper 000, Algorithm 2): for every open partition at once, the presence
-- cut on its most frequent term (ties: label, then term). Only terms whose cut is allowable
-- (k <= df <= |P| - k) are candidates. A term used for a cut is removed from both children
-- without bookkeeping: it has df = |P| on the left and df = 0 on the right, so it can never
-- give an allowable cut again below this partition.
-- (term_id follows label, then norm: rx.term_ids)
CREATE OR REPLACE TEMP TABLE candidates AS
SELECT r.partition_id, r.size, 'textual' AS kind, i.label AS name, CAST(NULL AS DOUBLE) AS span,
       CAST(0 AS DOUBLE) AS bias, 'has' AS cut_op, CAST(NULL AS DOUBLE) AS cut_value, i.norm AS cut_term,
       r.pick.df AS left_size, CAST(r.pick.df AS DOUBLE) AS priority, true AS allowable
FROM (
    SELECT partition_id, size,
           min_by(struct_pack(term_id := term_id, df := df), struct_pack(larger := -df, term_id := term_id)) AS pick
    FROM term_df
    WHERE df >= (SELECT k FROM rx.params) AND df <= size - (SELECT k FROM rx.params)
    GROUP BY partition_id, size
) AS r
JOIN rx.term_ids AS i ON i.term_id = r.pick.term_id;
