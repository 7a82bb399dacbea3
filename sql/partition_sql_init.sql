-- The partitioner as SQL (partition_sql.py): the levels of partition.py, run by the engine where
-- the per-person tables are, for data whose values, keys and terms exceed the driver's memory
-- (anonymization.in_memory_rows). It ends with the two tables partition.py hands over
-- (partition_candidates, partition_assignment), coded alike, so that sql/partition.sql writes
-- the result of either.

-- Every person, in the one partition holding all of them (id 1).
CREATE OR REPLACE TEMP TABLE partition_assignment AS
SELECT person, idx, CAST(1 AS BIGINT) AS partition_id FROM person_index;

-- A partition may be cut while it holds at least 2k persons.
CREATE OR REPLACE TEMP TABLE open_partitions AS
SELECT CAST(1 AS BIGINT) AS partition_id, count(*) AS size
FROM person_index
HAVING count(*) >= 2 * (SELECT k FROM rx.params);

-- (Each level adds its rows by a new table from the old one and the level's: DuckDB 2.0.0 loses
-- a later insert of 122,880 rows or more into a table created empty in the same transaction.)
CREATE OR REPLACE TEMP TABLE partition_candidates AS
SELECT CAST(NULL AS INTEGER) AS level, CAST(NULL AS BIGINT) AS partition_id, CAST(NULL AS BIGINT) AS size,
       CAST(NULL AS TINYINT) AS kind, CAST(NULL AS INTEGER) AS name, CAST(NULL AS BOOLEAN) AS has_span,
       CAST(NULL AS DOUBLE) AS span, CAST(NULL AS DOUBLE) AS bias, CAST(NULL AS DOUBLE) AS priority,
       CAST(NULL AS TINYINT) AS op, CAST(NULL AS DOUBLE) AS cut_value, CAST(NULL AS BIGINT) AS cut_term,
       CAST(NULL AS BIGINT) AS "left", CAST(NULL AS BOOLEAN) AS allowable, CAST(NULL AS BOOLEAN) AS chosen,
       CAST(NULL AS BIGINT) AS left_id
FROM person_index
WHERE false;
