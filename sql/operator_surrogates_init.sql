-- Surrogates (operator pseudonymize): one key per replaced term of a person, drawn by
-- rx_surrogate(person, label, norm, surface, attempt) until it is acceptable (operator_surrogates.sql).
-- Dates and times are shifted by one offset per person and label: a redraw moves all of them.
CREATE OR REPLACE TEMP TABLE surrogate_keys AS
SELECT person, label, norm, CAST(person AS VARCHAR) AS person_key, 0 AS attempt,
       CAST(NULL AS VARCHAR) AS canon, false AS drawn, CAST(NULL AS BOOLEAN) AS own_bad,
       label IN ('DATE', 'TIME') AS shifted
FROM rx.operator_terms
WHERE operator = 'pseudonymize';

-- Each person's replaced terms, which no surrogate may contain as a word. Only the persons
-- with a key are looked up (operator_surrogates.sql), and with no key (no label is
-- pseudonymized) these tables are empty: built for everyone they took 1 s on the blog corpus shape.
CREATE OR REPLACE TEMP TABLE surrogate_needles AS
SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
FROM rx.operator_terms
WHERE person IN (SELECT person FROM surrogate_keys)
GROUP BY person;

-- Every original value of the dataset, which no surrogate may equal: those of a person with a
-- key (any label), and those of a label with a key that is not shifted.
CREATE OR REPLACE TEMP TABLE original_norms AS
SELECT DISTINCT person, label, norm
FROM rx.terms
WHERE person IN (SELECT person FROM surrogate_keys)
   OR label IN (SELECT label FROM surrogate_keys WHERE NOT shifted);
