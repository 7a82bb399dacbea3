-- Surrogates (operator pseudonymize): one key per replaced term of a person, drawn by
-- rx_surrogate(person, label, norm, surface, attempt) until it is acceptable (operator_surrogates.sql).
-- Dates and times are shifted by one offset per person and label: a redraw moves all of them.
CREATE OR REPLACE TEMP TABLE surrogate_keys AS
SELECT person, label, norm, CAST(person AS VARCHAR) AS person_key, 0 AS attempt,
       CAST(NULL AS VARCHAR) AS canon, false AS drawn, CAST(NULL AS BOOLEAN) AS own_bad,
       label IN ('DATE', 'TIME') AS shifted
FROM rx.operator_terms
WHERE operator = 'pseudonymize';

-- Each person's replaced terms, which no surrogate may contain as a word.
CREATE OR REPLACE TEMP TABLE surrogate_needles AS
SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
FROM rx.operator_terms
GROUP BY person;

-- Every original value of the dataset, which no surrogate may equal.
CREATE OR REPLACE TEMP TABLE original_norms AS
SELECT DISTINCT person, label, norm FROM rx.terms;
