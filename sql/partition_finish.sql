CREATE OR REPLACE TABLE rx.partitions AS
SELECT person, partition_id FROM assignment ORDER BY partition_id, person;
