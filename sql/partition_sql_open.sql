-- One level of the SQL partitioner, first part: what its candidates are scored from.

-- The persons of the level's open partitions.
CREATE OR REPLACE TEMP TABLE level_persons AS
SELECT a.person, a.partition_id, o.size
FROM partition_assignment AS a
JOIN open_partitions AS o ON o.partition_id = a.partition_id;

-- Every distinct nominal or ordinal value of each open partition, ranked from 0: in value order
-- or, for a nominal attribute with nominal_order = 'frequency', by the persons holding it (most
-- first, ties in value order). A cut puts left whoever holds one of the first floor(n/2) of the
-- n values.
CREATE OR REPLACE TEMP TABLE level_ranks AS
WITH holders AS (
    SELECT c.partition_id, v.attribute, a.kind, v.num, count(*) AS persons
    FROM level_persons AS c
    JOIN rx.person_values AS v ON v.person = c.person
    JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.kind IN ('nominal', 'ordinal')
    GROUP BY c.partition_id, v.attribute, a.kind, v.num
)
SELECT h.partition_id, h.attribute, h.num,
       row_number() OVER (PARTITION BY h.partition_id, h.attribute
                          ORDER BY CASE WHEN h.kind = 'nominal' AND p.nominal_order = 'frequency' THEN -h.persons ELSE 0 END,
                                   h.num) - 1 AS rank,
       count(*) OVER (PARTITION BY h.partition_id, h.attribute) AS n
FROM holders AS h
CROSS JOIN rx.params AS p;

-- The median of each numeric or date attribute's keys in each open partition, as partition.py
-- takes it (the middle key, or the mean of the two middle ones): an engine's median function may
-- interpolate otherwise, and a cut must fall where the other partitioner's falls, to the last bit.
CREATE OR REPLACE TEMP TABLE level_medians AS
WITH ordered AS (
    SELECT c.partition_id, k.attribute, k.key,
           row_number() OVER (PARTITION BY c.partition_id, k.attribute ORDER BY k.key) - 1 AS pos,
           count(*) OVER (PARTITION BY c.partition_id, k.attribute) AS n
    FROM level_persons AS c
    JOIN rx.person_keys AS k ON k.person = c.person
    WHERE k.key IS NOT NULL
),
middle AS (
    SELECT partition_id, attribute, n,
           max(CASE WHEN pos = (n - 1) // 2 THEN key END) AS lo,
           max(CASE WHEN pos = n // 2 THEN key END) AS hi
    FROM ordered
    GROUP BY partition_id, attribute, n
)
SELECT partition_id, attribute, CASE WHEN n % 2 = 1 THEN lo ELSE (lo + hi) / 2 END AS median
FROM middle;

-- Each term's document frequency in each open partition.
CREATE OR REPLACE TEMP TABLE level_terms AS
SELECT c.partition_id, c.size, t.label_id, t.term_id, count(*) AS df
FROM level_persons AS c
JOIN rx.person_terms AS t ON t.person = c.person
GROUP BY c.partition_id, c.size, t.label_id, t.term_id;
