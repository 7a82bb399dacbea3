-- Information loss (paper 000, section 5.3; docs/how-it-works.md, Decisions).

-- NCP of each quasi-identifier in each partition.
-- numeric: (hi - lo) / (max - min over D*); nominal, ordinal, date and any attribute with a user
-- hierarchy: 0 for one value, else covered / distinct values in D* (for a date or a hierarchy,
-- covered = the values of D* under the recoded node).
CREATE OR REPLACE TEMP TABLE partition_attribute_ncp AS
SELECT r.partition_id, r.attribute,
       CASE
           WHEN a.kind = 'numeric' AND NOT a.hierarchy THEN CASE WHEN d.width > 0 THEN (r.hi - r.lo) / d.width ELSE 0 END
           WHEN r.covered <= 1 THEN 0
           ELSE r.covered / d.n_distinct
       END AS ncp
FROM rx.recoded_values AS r
JOIN rx.attributes AS a ON a.attribute = r.attribute
JOIN rx.domain AS d ON d.kind = 'relational' AND d.name = r.attribute;

-- Each person's terms of each label, and what they lose: a kept term 0, a suppressed one 1, a
-- generalized one the share of its hierarchy that the shown node covers
-- (rx.generalized_terms.share). Read per record and per label below.
CREATE OR REPLACE TEMP TABLE person_label_loss AS
SELECT t.person, t.label, count(*) AS n_terms, count(*) FILTER (WHERE k.norm IS NULL AND g.norm IS NULL) AS n_suppressed,
       count(g.norm) AS n_generalized,
       sum(CASE WHEN k.norm IS NOT NULL THEN 0 WHEN g.norm IS NOT NULL THEN g.share ELSE 1 END) AS loss
FROM rx.person_terms AS t
JOIN rx.partitions AS p ON p.person = t.person
LEFT JOIN rx.kept_terms AS k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm
LEFT JOIN rx.generalized_terms AS g ON g.person = t.person AND g.label = t.label AND g.norm = t.norm
GROUP BY t.person, t.label;

-- Per record (person). NCP_A = mean over the quasi-identifiers (an attribute with no value in
-- the partition loses nothing), NULL when there is none (texts alone). NCP_X = loss of the terms
-- / |X'|, NULL when X' is empty. NCP = (w_A NCP_A + w_X NCP_X) / (w_A + w_X), or the one that
-- is not NULL.
CREATE OR REPLACE TABLE rx.ncp_records AS
WITH relational AS (
    SELECT partition_id, sum(ncp) / (SELECT count(*) FROM rx.attributes) AS ncp_a
    FROM partition_attribute_ncp
    GROUP BY partition_id
),
textual AS (
    -- (counts cast back: DuckDB sums BIGINTs into HUGEINTs)
    SELECT person, CAST(sum(n_terms) AS BIGINT) AS n_terms, CAST(sum(n_suppressed) AS BIGINT) AS n_suppressed,
           CAST(sum(n_generalized) AS BIGINT) AS n_generalized, sum(loss) AS loss
    FROM person_label_loss
    GROUP BY person
),
joined AS (
    SELECT p.person, p.partition_id,
           CASE WHEN (SELECT count(*) FROM rx.attributes) > 0 THEN coalesce(r.ncp_a, 0) END AS ncp_a,
           coalesce(x.n_terms, 0) AS n_terms, coalesce(x.n_suppressed, 0) AS n_suppressed,
           CAST(x.loss AS DOUBLE) / x.n_terms AS ncp_x, coalesce(x.n_generalized, 0) AS n_generalized
    FROM rx.partitions AS p
    LEFT JOIN relational AS r ON r.partition_id = p.partition_id
    LEFT JOIN textual AS x ON x.person = p.person
)
SELECT j.*,
       CASE WHEN j.ncp_x IS NULL THEN j.ncp_a WHEN j.ncp_a IS NULL THEN j.ncp_x
            ELSE (w.w_a * j.ncp_a + w.w_x * j.ncp_x) / (w.w_a + w.w_x) END AS ncp
FROM joined AS j
CROSS JOIN rx.params AS w;

-- Per quasi-identifier: its mean NCP over the records.
CREATE OR REPLACE TABLE rx.ncp_attributes AS
SELECT a.attribute, coalesce(sum(n.ncp * s.size) / sum(s.size), 0) AS ncp
FROM rx.attributes AS a
LEFT JOIN partition_attribute_ncp AS n ON n.attribute = a.attribute
LEFT JOIN rx.partition_sizes AS s ON s.partition_id = n.partition_id
GROUP BY a.attribute, a.position
ORDER BY a.position;

-- Per entity label: NCP_X restricted to the terms of that label (records without such terms
-- excluded), with the counts behind it.
CREATE OR REPLACE TABLE rx.ncp_terms AS
SELECT label, avg(CAST(loss AS DOUBLE) / n_terms) AS ncp_x,
       count(*) AS records, sum(n_terms) AS terms, sum(n_suppressed) AS suppressed, sum(n_generalized) AS generalized
FROM person_label_loss
GROUP BY label
ORDER BY label;

-- The whole dataset: NCP(D*) = (w_A mean NCP_A + w_X mean NCP_X) / (w_A + w_X); NCP_X's mean
-- leaves out records with an empty X', and NCP = NCP_A when no record has a term, NCP_X when
-- there is no quasi-identifier.
CREATE OR REPLACE TABLE rx.ncp AS
WITH m AS (
    SELECT avg(ncp_a) AS ncp_a, avg(ncp_x) AS ncp_x, count(*) AS records,
           count(ncp_x) AS records_with_terms, count(DISTINCT partition_id) AS partitions
    FROM rx.ncp_records
)
SELECT m.ncp_a, m.ncp_x,
       CASE WHEN m.ncp_x IS NULL THEN m.ncp_a WHEN m.ncp_a IS NULL THEN m.ncp_x
            ELSE (p.w_a * m.ncp_a + p.w_x * m.ncp_x) / (p.w_a + p.w_x) END AS ncp,
       m.records, m.records_with_terms, m.partitions, p.k, p.lam, p.strategy
FROM m
CROSS JOIN rx.params AS p;
