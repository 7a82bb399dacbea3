-- The distinct values of each attribute with a hierarchy, each with its leaf's path to the root:
-- one row per value and level. A number matches the leaf of the same number (the file's "39" is
-- the column's 39.0), any other value the leaf of the same text. A value that no leaf matches has
-- one row with a NULL level: the run refuses it (hierarchy.check_leaves).
CREATE OR REPLACE TABLE rx.hierarchy_values AS
WITH value_keys AS (
    SELECT v.attribute, v.num, v.txt, count(*) AS rows,
           CASE WHEN v.kind = 'numeric' THEN CAST(v.num AS VARCHAR) ELSE v.txt END AS match_key
    FROM rx.qi_values AS v
    JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.hierarchy AND v.num IS NOT NULL
    GROUP BY v.attribute, v.kind, v.num, v.txt
),
leaf_keys AS (
    SELECT h.attribute, h.level, h.node,
           CASE WHEN a.kind = 'numeric' THEN CAST(TRY_CAST(h.leaf AS DOUBLE) AS VARCHAR) ELSE h.leaf END AS match_key
    FROM rx.hierarchies AS h
    JOIN rx.attributes AS a ON a.attribute = h.attribute
)
SELECT v.attribute, v.num, v.txt, v.rows, l.level, l.node
FROM value_keys AS v
LEFT JOIN leaf_keys AS l ON l.attribute = v.attribute AND l.match_key = v.match_key;
