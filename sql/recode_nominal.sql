-- Nominal and ordinal: the set of the partition's distinct values, in their order, as
-- "(a,b,c)", or the single value (an attribute with a hierarchy: sql/recode_hierarchy.sql).
INSERT INTO rx.recoded_values
WITH distinct_values AS (
    SELECT DISTINCT p.partition_id, v.attribute, v.num, v.txt
    FROM rx.qi_values AS v
    JOIN rx.partitions AS p ON p.person = v.person
    JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE v.kind IN ('nominal', 'ordinal') AND NOT a.hierarchy
)
SELECT partition_id, attribute,
       CASE WHEN count(*) = 1 THEN min(txt) ELSE '(' || string_agg(txt, ',' ORDER BY num) || ')' END,
       min(num), max(num), count(*)
FROM distinct_values
GROUP BY partition_id, attribute;
