-- One row per tuple and quasi-identifier, with a number that orders the values:
-- numeric: the value; date: days since 1970-01-01; ordinal: the configured position;
-- nominal: the rank of the value in sorted order. Missing nominal and ordinal values are grouped
-- under the placeholder '(missing)'; missing numbers and dates stay NULL and are left out of spans,
-- medians and ranges.
CREATE OR REPLACE TABLE rx.qi_values AS
WITH v AS (
    SELECT
        r.row_id, r.person, r.attribute, a.kind, r.day,
        CASE WHEN r.txt IS NULL AND a.kind IN ('nominal', 'ordinal') THEN '(missing)'
             -- (NaN is a missing number: it would otherwise sort above every value and break ranges)
             WHEN a.kind = 'numeric' AND isnan(TRY_CAST(r.txt AS DOUBLE)) THEN NULL
             ELSE r.txt END AS txt
    FROM rx.values_raw AS r
    JOIN rx.attributes AS a ON a.attribute = r.attribute
)
SELECT
    v.row_id, v.person, v.attribute, v.kind, v.txt, v.day,
    CASE
        WHEN v.kind = 'numeric' THEN TRY_CAST(v.txt AS DOUBLE)
        WHEN v.kind = 'date' THEN CAST(date_diff('day', DATE '1970-01-01', v.day) AS DOUBLE)
        WHEN v.kind = 'ordinal' THEN o.position
        ELSE CAST(dense_rank() OVER (PARTITION BY v.attribute ORDER BY v.txt) AS DOUBLE)
    END AS num
FROM v
LEFT JOIN rx.ordinal_order AS o ON o.attribute = v.attribute AND o.value = v.txt;

CREATE OR REPLACE VIEW rx.values_unparsed AS
-- (An empty date string is a missing date, not a bad one.)
SELECT attribute, txt FROM rx.qi_values WHERE kind = 'date' AND trim(txt) <> '' AND day IS NULL;

CREATE OR REPLACE VIEW rx.values_infinite AS
SELECT attribute, txt FROM rx.qi_values WHERE kind = 'numeric' AND isinf(num);
