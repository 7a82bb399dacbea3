-- Date: the smallest node of the generated hierarchy (paper 000, Figure 1) that covers the
-- partition's dates: day (2004-05-14) -> month (2004-05) -> year (2004) -> year range [2004-2005].
-- covered = the distinct dates of D* under that node (the leaves NCP counts).
INSERT INTO rx.recoded_values
WITH bounds AS (
    SELECT p.partition_id, v.attribute, min(v.day) AS first_day, max(v.day) AS last_day
    FROM rx.qi_values AS v
    JOIN rx.partitions AS p ON p.person = v.person
    WHERE v.kind = 'date' AND v.day IS NOT NULL
    GROUP BY p.partition_id, v.attribute
),
nodes AS (
    SELECT partition_id, attribute,
        CASE
            WHEN first_day = last_day THEN strftime(first_day, '%Y-%m-%d')
            WHEN year(first_day) = year(last_day) AND month(first_day) = month(last_day) THEN strftime(first_day, '%Y-%m')
            WHEN year(first_day) = year(last_day) THEN strftime(first_day, '%Y')
            ELSE '[' || strftime(first_day, '%Y') || '-' || strftime(last_day, '%Y') || ']'
        END AS value,
        CASE
            WHEN first_day = last_day THEN first_day
            WHEN year(first_day) = year(last_day) AND month(first_day) = month(last_day) THEN make_date(year(first_day), month(first_day), 1)
            ELSE make_date(year(first_day), 1, 1)
        END AS node_first,
        CASE
            WHEN first_day = last_day THEN last_day
            WHEN year(first_day) = year(last_day) AND month(first_day) = month(last_day) THEN last_day(last_day)
            ELSE make_date(year(last_day), 12, 31)
        END AS node_last
    FROM bounds
),
all_dates AS (
    SELECT DISTINCT attribute, day FROM rx.qi_values WHERE kind = 'date' AND day IS NOT NULL
)
SELECT n.partition_id, n.attribute, n.value,
       date_diff('day', DATE '1970-01-01', n.node_first), date_diff('day', DATE '1970-01-01', n.node_last),
       count(d.day)
FROM nodes AS n
LEFT JOIN all_dates AS d ON d.attribute = n.attribute AND d.day BETWEEN n.node_first AND n.node_last
GROUP BY n.partition_id, n.attribute, n.value, n.node_first, n.node_last;
