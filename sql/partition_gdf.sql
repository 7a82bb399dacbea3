-- One level of GDF (paper 000, Algorithm 2): for every open partition at once, the presence
-- cut on its most frequent term (ties: label, then term). Only terms whose cut is allowable
-- (k <= df <= |P| - k) are candidates. A term used for a cut is removed from both children
-- without bookkeeping: it has df = |P| on the left and df = 0 on the right, so it can never
-- give an allowable cut again below this partition.
CREATE OR REPLACE TEMP TABLE candidates AS
SELECT partition_id, size, 'textual' AS kind, label AS name, CAST(NULL AS DOUBLE) AS span,
       CAST(0 AS DOUBLE) AS bias, 'has' AS cut_op, CAST(NULL AS DOUBLE) AS cut_value, norm AS cut_term,
       df AS left_size, CAST(df AS DOUBLE) AS priority, true AS allowable
FROM (
    SELECT *, row_number() OVER (PARTITION BY partition_id ORDER BY df DESC, label, norm) AS rn
    FROM term_df
    WHERE df >= (SELECT k FROM rx.params) AND df <= size - (SELECT k FROM rx.params)
) AS ranked
WHERE rn = 1;
