-- The partitioner starts from one partition holding every person (id 1, level 0).
-- partition_tree keeps every partition ever made; a leaf is a final partition.
CREATE OR REPLACE TABLE rx.partition_tree AS
SELECT CAST(1 AS BIGINT) AS partition_id, CAST(NULL AS BIGINT) AS parent_id, 0 AS level, count(*) AS size
FROM rx.person_ids;

CREATE OR REPLACE TEMP TABLE assignment AS
SELECT person, CAST(1 AS BIGINT) AS partition_id FROM rx.person_ids;

-- A partition is open (may still be cut) when it holds at least 2k persons.
CREATE OR REPLACE TEMP TABLE open_partitions AS
SELECT partition_id, size FROM rx.partition_tree
WHERE size >= 2 * (SELECT k FROM rx.params);

CREATE OR REPLACE TABLE rx.splits (
    level INTEGER, partition_id BIGINT, attribute VARCHAR, label VARCHAR, kind VARCHAR,
    cut VARCHAR, cut_value DOUBLE, cut_term VARCHAR, priority DOUBLE,
    left_id BIGINT, right_id BIGINT, left_size BIGINT, right_size BIGINT
);

CREATE OR REPLACE TABLE rx.split_candidates (
    level INTEGER, partition_id BIGINT, kind VARCHAR, name VARCHAR, span DOUBLE, bias DOUBLE,
    priority DOUBLE, cut_op VARCHAR, cut_value DOUBLE, cut_term VARCHAR,
    left_size BIGINT, right_size BIGINT, allowable BOOLEAN, chosen BOOLEAN
);
