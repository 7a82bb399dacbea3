-- The persons of every open partition of this level, with the partition's size.
CREATE OR REPLACE TEMP TABLE current_persons AS
SELECT a.person, a.partition_id, o.size
FROM assignment AS a
JOIN open_partitions AS o ON o.partition_id = a.partition_id;

-- Document frequency of every term in every open partition. A view, not a table: inside the
-- run's transaction every replaced table stays in memory until the commit, and this would be
-- the largest table of a level.
-- (by the numbers of rx.term_ids, persons.sql: term_id orders the terms by label and norm)
CREATE OR REPLACE TEMP VIEW term_df AS
SELECT c.partition_id, c.size, t.label_id, t.term_id, count(*) AS df
FROM current_persons AS c
JOIN rx.person_terms AS t ON t.person = c.person
GROUP BY c.partition_id, c.size, t.label_id, t.term_id;

-- The rank of every nominal and ordinal value in every open partition: a nominal cut takes the
-- first floor(n/2) of P's n distinct values in sorted order (DESIGN.md) or, with nominal_order =
-- 'frequency', in descending order of the persons of P holding them (ties: sorted order), which
-- keeps a dominant value ("United-States") with the other common ones. Ordinal values keep their
-- order.
CREATE OR REPLACE TEMP TABLE value_ranks AS
WITH counts AS (
    SELECT c.partition_id, v.attribute, a.kind, v.num, count(*) AS persons
    FROM current_persons AS c
    JOIN rx.person_values AS v ON v.person = c.person
    JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.kind IN ('nominal', 'ordinal')
    GROUP BY c.partition_id, v.attribute, a.kind, v.num
)
SELECT partition_id, attribute, num,
       row_number() OVER (PARTITION BY partition_id, attribute
                          ORDER BY CASE WHEN kind = 'nominal' AND p.nominal_order = 'frequency' THEN -persons ELSE 0 END,
                                   num) AS rank,
       count(*) OVER (PARTITION BY partition_id, attribute) AS n
FROM counts
CROSS JOIN rx.params AS p;

-- The key a relational cut compares, per person of an open partition: numeric and date, the
-- person's key (rx.person_keys); nominal and ordinal, the person's first rank in P.
CREATE OR REPLACE TEMP TABLE level_keys AS
SELECT c.partition_id, c.person, k.attribute, k.key
FROM current_persons AS c
JOIN rx.person_keys AS k ON k.person = c.person
UNION ALL
SELECT c.partition_id, c.person, v.attribute, CAST(min(r.rank) AS DOUBLE) AS key
FROM current_persons AS c
JOIN rx.person_values AS v ON v.person = c.person
JOIN value_ranks AS r ON r.partition_id = c.partition_id AND r.attribute = v.attribute AND r.num = v.num
GROUP BY c.partition_id, c.person, v.attribute;
