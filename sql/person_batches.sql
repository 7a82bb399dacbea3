-- The batches of the searches that group every text by person (sqlrun.run_file's $batch):
-- propagate.sql's value mentions and the leak check's search of the released texts (leaks.sql).
-- One statement grouping all texts at once held them all: on the blog corpus shape (19,320
-- persons, 163 MB of text) the leak check peaked 0.5 GB above DuckDB's memory limit.
-- Runs of persons in their order, each with about a $batches-th of the text (rx.texts, the
-- original texts: a released text is about as long). rx.texts lies in person order
-- (rx.dataset's row_id; text column after text column), so a batch's scan skips the row groups
-- of the other batches: with hash(person) % $batches for the batch, every batch would read all
-- the texts.
CREATE OR REPLACE TEMP TABLE person_batches AS
WITH sizes AS (
    SELECT person, sum(octet_length(encode(text))) AS size
    FROM rx.texts
    GROUP BY person
),
running AS (
    SELECT person, sum(size) OVER (ORDER BY person) - size AS before, sum(size) OVER () AS total
    FROM sizes
)
SELECT least(coalesce(CAST(floor(before * $batches / nullif(total, 0)) AS INTEGER), 0), $batches - 1) AS batch,
       min(person) AS first_person, max(person) AS last_person
FROM running
GROUP BY ALL;
