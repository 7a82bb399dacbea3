-- Numeric: [min-max] of the partition's values, or the value itself when there is one (an
-- attribute with a hierarchy: sql/recode_hierarchy.sql).
-- Whole numbers print without a decimal point (beyond BIGINT, a huge one prints as a DOUBLE).
INSERT INTO rx.recoded_values
WITH bounds AS (
    SELECT p.partition_id, v.attribute, min(v.num) AS lo, max(v.num) AS hi, count(DISTINCT v.num) AS covered
    FROM rx.qi_values AS v
    JOIN rx.partitions AS p ON p.person = v.person
    JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE v.kind = 'numeric' AND v.num IS NOT NULL AND NOT a.hierarchy
    GROUP BY p.partition_id, v.attribute
),
printed AS (
    SELECT *,
        CASE WHEN lo = round(lo) THEN coalesce(CAST(TRY_CAST(lo AS BIGINT) AS VARCHAR), CAST(lo AS VARCHAR)) ELSE CAST(lo AS VARCHAR) END AS lo_text,
        CASE WHEN hi = round(hi) THEN coalesce(CAST(TRY_CAST(hi AS BIGINT) AS VARCHAR), CAST(hi AS VARCHAR)) ELSE CAST(hi AS VARCHAR) END AS hi_text
    FROM bounds
)
SELECT partition_id, attribute,
       CASE WHEN lo = hi THEN lo_text ELSE '[' || lo_text || '-' || hi_text || ']' END,
       lo, hi, covered
FROM printed;
