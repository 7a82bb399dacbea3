-- The person-centric view D* in long form, which the partitioner reads (rx.persons, the wide
-- view with one list per quasi-identifier, is built from these in persons.py).

-- X': a person's distinct non-redundant terms, a term being (label, norm). The partitioner counts
-- the terms of every open partition at every level; it groups by label_id and term_id, numbered
-- in the order of label and of (label, norm) (rx.term_ids), which spares hashing and comparing
-- the strings at every level.
CREATE OR REPLACE TEMP TABLE distinct_person_terms AS
SELECT DISTINCT person, label, norm
FROM rx.terms
WHERE linked_attribute IS NULL AND source <> 'identifier';

CREATE OR REPLACE TABLE rx.term_ids AS
SELECT dense_rank() OVER (ORDER BY label) AS label_id, row_number() OVER (ORDER BY label, norm) AS term_id, label, norm
FROM (SELECT DISTINCT label, norm FROM distinct_person_terms) AS d;

CREATE OR REPLACE TABLE rx.person_terms AS
SELECT d.person, d.label, d.norm, i.label_id, i.term_id
FROM distinct_person_terms AS d
JOIN rx.term_ids AS i ON i.label = d.label AND i.norm = d.norm;

-- A person's distinct values per quasi-identifier (aggregation `set`).
CREATE OR REPLACE TABLE rx.person_values AS
SELECT DISTINCT person, attribute, num
FROM rx.qi_values
WHERE num IS NOT NULL;

-- The key a numeric or date cut compares: the median of the person's values. (A nominal or
-- ordinal key depends on the partition's order of values: partition.py ranks them per level.)
CREATE OR REPLACE TABLE rx.person_keys AS
SELECT pv.person, pv.attribute, median(pv.num) AS key
FROM rx.person_values AS pv
JOIN rx.attributes AS a ON a.attribute = pv.attribute
WHERE a.kind IN ('numeric', 'date')
GROUP BY pv.person, pv.attribute;

CREATE OR REPLACE TABLE rx.person_ids AS
SELECT DISTINCT person FROM rx.dataset;

-- The normalizers of span(a, P): the same measure over all of D*.
CREATE OR REPLACE TABLE rx.domain AS
SELECT 'relational' AS kind, attribute AS name,
       max(num) - min(num) AS width, count(DISTINCT num) AS n_distinct, CAST(NULL AS BIGINT) AS label_id
FROM rx.person_values
GROUP BY attribute
UNION ALL
SELECT 'textual', label, NULL, count(*), min(label_id)
FROM rx.term_ids
GROUP BY label;
