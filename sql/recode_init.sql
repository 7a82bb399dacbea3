-- One recoded value per partition and quasi-identifier, with what NCP needs:
-- lo and hi (numeric: the range; date: the recoded node's first and last day, as days since
-- 1970-01-01) and covered (how many distinct values of D* the recoded value stands for).
CREATE OR REPLACE TABLE rx.recoded_values (
    partition_id BIGINT, attribute VARCHAR, value VARCHAR, lo DOUBLE, hi DOUBLE, covered BIGINT
);

CREATE OR REPLACE TABLE rx.partition_sizes AS
SELECT partition_id, count(*) AS size FROM rx.partitions GROUP BY partition_id;
