-- Nominal and ordinal: the set of the partition's distinct values, in their order, as
-- "(a,b,c)", or the single value.
INSERT INTO rx.recoded_values
WITH distinct_values AS (
    SELECT DISTINCT p.partition_id, v.attribute, v.num, v.txt
    FROM rx.qi_values AS v
    JOIN rx.partitions AS p ON p.person = v.person
    WHERE v.kind IN ('nominal', 'ordinal')
)
SELECT partition_id, attribute,
       CASE WHEN count(*) = 1 THEN min(txt) ELSE '(' || string_agg(txt, ',' ORDER BY num) || ')' END,
       min(num), max(num), count(*)
FROM distinct_values
GROUP BY partition_id, attribute;
