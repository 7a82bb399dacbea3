-- The persons of every open partition of this level, with the partition's size.
CREATE OR REPLACE TEMP TABLE current_persons AS
SELECT a.person, a.partition_id, o.size
FROM assignment AS a
JOIN open_partitions AS o ON o.partition_id = a.partition_id;

-- Document frequency of every term in every open partition.
CREATE OR REPLACE TEMP TABLE term_df AS
SELECT c.partition_id, c.size, t.label, t.norm, count(*) AS df
FROM current_persons AS c
JOIN rx.person_terms AS t ON t.person = c.person
GROUP BY c.partition_id, c.size, t.label, t.norm;
