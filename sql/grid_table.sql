-- `rxanon-sql sweep` (sweep.py): one row per run of a grid over k, lambda and the strategy. Like
-- rx.runs, created once and only added to, so that the runs of the grid (each of which replaces
-- the other tables of the schema) and earlier sweeps stay side by side. lam is NULL for GDF,
-- which does not read it. A run whose release failed its check was rolled back: ok is false and
-- its measures are NULL.
CREATE TABLE IF NOT EXISTS rx.sweep (
    sweep_id INTEGER,
    run_id INTEGER,
    k INTEGER,
    lam DOUBLE,
    strategy VARCHAR,
    ok BOOLEAN,
    reused BOOLEAN,
    partitions BIGINT,
    size_mean DOUBLE,
    size_stdev DOUBLE,
    splits_relational BIGINT,
    splits_textual BIGINT,
    ncp_a DOUBLE,
    ncp_x DOUBLE,
    ncp DOUBLE,
    ncp_labels MAP(VARCHAR, DOUBLE),
    risk_highest DOUBLE,
    risk_average DOUBLE,
    risk_share_above DOUBLE,
    seconds DOUBLE,
    words_kept DOUBLE
);
-- (a sweep table of a version before words_kept gets the column, NULL in its earlier rows)
ALTER TABLE rx.sweep ADD COLUMN IF NOT EXISTS words_kept DOUBLE;
