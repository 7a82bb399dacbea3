-- The released texts in long form, read from the audit (release.py builds rx.audit first, its
-- text columns straight from rebuilt_texts and the dataset): one more copy of every text was
-- the largest table of the stage.
CREATE OR REPLACE VIEW rx.released_texts AS
SELECT row_id, attribute, text FROM rx.audit_texts WHERE text IS NOT NULL;

-- Where each replacement, and each term left as written, stands in the released text: the leak
-- check tells a suppressed surface written out from one that is part of a replacement (a
-- recoded set, a surrogate) or of a longer term. A term that overlaps a replacement is found by
-- one hash join on the text and a bucket of 256 characters of it, each span in every bucket it
-- touches, as terms.sql pairs overlapping spans: joined on the text alone, the terms and
-- replacements of one dense text met each other all, in the square of their number. (NOT EXISTS
-- with the overlap conditions is planned as two joins.)
CREATE OR REPLACE TABLE rx.released_spans AS
-- A term at the very place of a replacement overlaps it (most terms: 2.5 of 3.7 million on the
-- corpus shape), told by one equality join; only the others go through the buckets (the
-- statement: 3.9 -> 2.9 CPU s there). (An empty span overlaps nothing, not even its own place.)
WITH unreplaced AS (
    SELECT t.row_id, t.attribute, t.start_pos, t.end_pos
    FROM rx.terms AS t
    ANTI JOIN rx.replacements AS r
        ON r.row_id = t.row_id AND r.attribute = t.attribute AND r.start_pos = t.start_pos AND r.end_pos = t.end_pos
       AND t.start_pos < t.end_pos
),
term_buckets AS (
    SELECT row_id, attribute, start_pos, end_pos,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM unreplaced
),
replacement_buckets AS (
    SELECT row_id, attribute, start_pos, end_pos,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM rx.replacements
),
-- (a term is told apart by its place, not by a rowid, which Spark has not: two terms at the
-- same place overlap the same replacements)
overlapped AS (
    SELECT DISTINCT t.row_id, t.attribute, t.start_pos, t.end_pos
    FROM term_buckets AS t
    JOIN replacement_buckets AS r
        ON r.row_id = t.row_id AND r.attribute = t.attribute AND r.bucket = t.bucket
       AND r.start_pos < t.end_pos AND t.start_pos < r.end_pos
),
spans AS (
    SELECT row_id, attribute, start_pos, end_pos, length(replacement) AS released_length, 'replacement' AS kind
    FROM rx.replacements
    UNION ALL
    SELECT t.row_id, t.attribute, t.start_pos, t.end_pos, t.end_pos - t.start_pos, 'term'
    FROM unreplaced AS t
    ANTI JOIN overlapped AS o
        ON o.row_id = t.row_id AND o.attribute = t.attribute AND o.start_pos = t.start_pos AND o.end_pos = t.end_pos
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
