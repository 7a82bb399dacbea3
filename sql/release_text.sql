-- The recoded texts: each text with its replacements applied (release.py runs
-- release_edits.sql, then rebuild_texts.sql, then this file), or as written when it has none.
CREATE OR REPLACE TABLE rx.released_texts AS
SELECT t.row_id, t.attribute, coalesce(r.text, t.text) AS text
FROM rx.texts AS t
LEFT JOIN rebuilt_texts AS r ON r.row_id = t.row_id AND r.attribute = t.attribute;

-- Where each replacement, and each term left as written, stands in the released text: the leak
-- check tells a suppressed surface written out from one that is part of a replacement (a
-- recoded set, a surrogate) or of a longer term.
CREATE OR REPLACE TABLE rx.released_spans AS
WITH spans AS (
    SELECT row_id, attribute, start_pos, end_pos, length(replacement) AS released_length, 'replacement' AS kind
    FROM rx.replacements
    UNION ALL
    SELECT t.row_id, t.attribute, t.start_pos, t.end_pos, t.end_pos - t.start_pos, 'term'
    FROM rx.terms AS t
    WHERE NOT EXISTS (
        SELECT 1 FROM rx.replacements AS r
        WHERE r.row_id = t.row_id AND r.attribute = t.attribute AND r.start_pos < t.end_pos AND t.start_pos < r.end_pos
    )
),
shifted AS (
    SELECT *,
           coalesce(sum(released_length - (end_pos - start_pos)) OVER (
               PARTITION BY row_id, attribute ORDER BY start_pos
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS shift
    FROM spans
)
SELECT row_id, attribute, kind,
       CAST(start_pos + shift AS BIGINT) AS start_pos,
       CAST(start_pos + shift + released_length AS BIGINT) AS end_pos
FROM shifted;
