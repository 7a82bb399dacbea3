-- The direct identifiers' values to search for (identifiers.py): from identifier_candidates
-- (person, column_name, norm: each value lower-cased and trimmed), the whole values and their
-- words that are no common words ("astor" of "hotel astor").
CREATE OR REPLACE TEMP TABLE identifier_norms AS
SELECT person, column_name, norm FROM identifier_candidates
UNION
SELECT c.person, c.column_name, u.word
FROM (SELECT DISTINCT * FROM identifier_candidates) AS c
CROSS JOIN unnest(regexp_extract_all(c.norm, $token)) AS u(word)
WHERE u.word NOT IN (SELECT word FROM rx.common_words);

-- Searched in every text: a value with a letter and three characters or more, or with four
-- digits or more. A shorter one ("lw", "48") would match everyday words and numbers of others.
CREATE OR REPLACE TABLE rx.identifier_values AS
SELECT DISTINCT column_name, norm
FROM identifier_norms
WHERE length(norm) >= 3 AND regexp_matches(norm, '\pL') OR length(regexp_replace(norm, '\D', '', 'g')) >= 4;

-- Searched in the texts of its own person only: every other value of two characters or more
-- with a letter or digit (a single character would take every "a" and "I" of the person's texts).
CREATE OR REPLACE TABLE rx.person_identifier_values AS
SELECT DISTINCT person, column_name, norm
FROM identifier_norms
WHERE length(norm) >= 2 AND regexp_matches(norm, '[\pL\pN]')
  AND NOT (length(norm) >= 3 AND regexp_matches(norm, '\pL') OR length(regexp_replace(norm, '\D', '', 'g')) >= 4);
