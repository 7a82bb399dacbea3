-- A direct identifier's value (a name, an e-mail address, ...) written in any text is a term
-- that is always replaced, whoever wrote it and whatever the recognizers made of it: it wins
-- over an overlapping term. Such terms are not part of X' (they never shape a partition).
-- A match takes in the terms it overlaps, so that no part of them stays bare: "Jo Ann" with
-- the identifier "Ann Lee" in "Jo Ann Lee" is replaced as a whole.
CREATE OR REPLACE TEMP TABLE identifier_hits AS
SELECT t.row_id, t.person, t.attribute, t.text, m.start_pos, m.end_pos, m.needle AS norm, v.column_name
-- (without identifier values, no text goes through Python; the same filter outside the
-- subquery is evaluated per match)
FROM (SELECT * FROM rx.texts WHERE EXISTS (SELECT 1 FROM rx.identifier_values)) AS t
CROSS JOIN unnest(rx_find_identifiers(t.text)) AS u(m)
JOIN (
    SELECT norm, min(column_name) AS column_name FROM rx.identifier_values GROUP BY norm
) AS v ON v.norm = u.m.needle;

-- A value too short to search in every text is searched in the texts of its own person, one
-- search call per person; where it overlaps a match of the whole corpus's values, that one stays.
INSERT INTO identifier_hits
WITH own AS (
    SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
    FROM rx.person_identifier_values
    GROUP BY person
),
found AS (
    SELECT u.m.id AS text_id, u.m.start_pos, u.m.end_pos, u.m.needle
    FROM (
        SELECT t.person, array_agg(struct_pack(id := t.text_id, text := t.text)) AS items
        FROM rx.texts AS t
        SEMI JOIN own AS o ON o.person = t.person
        GROUP BY t.person
    ) AS p
    JOIN own AS o ON o.person = p.person
    CROSS JOIN unnest(rx_find_texts(p.items, o.needles)) AS u(m)
)
SELECT t.row_id, t.person, t.attribute, t.text, f.start_pos, f.end_pos, f.needle, v.column_name
FROM found AS f
JOIN rx.texts AS t ON t.text_id = f.text_id
JOIN (
    SELECT person, norm, min(column_name) AS column_name FROM rx.person_identifier_values GROUP BY person, norm
) AS v ON v.person = t.person AND v.norm = f.needle
ANTI JOIN identifier_hits AS h
    ON h.row_id = t.row_id AND h.attribute = t.attribute AND h.start_pos < f.end_pos AND f.start_pos < h.end_pos;

CREATE OR REPLACE TEMP TABLE identifier_widened AS
SELECT h.row_id, h.person, h.attribute, h.text,
       CAST(least(h.start_pos, coalesce(min(f.start_pos), h.start_pos)) AS INTEGER) AS start_pos,
       CAST(greatest(h.end_pos, coalesce(max(f.end_pos), h.end_pos)) AS INTEGER) AS end_pos,
       h.norm, h.column_name
FROM identifier_hits AS h
LEFT JOIN terms_found AS f
  ON f.row_id = h.row_id AND f.attribute = h.attribute AND f.start_pos < h.end_pos AND h.start_pos < f.end_pos
GROUP BY h.row_id, h.person, h.attribute, h.text, h.start_pos, h.end_pos, h.norm, h.column_name;

-- Widened matches that overlap are one match: "sagrada" and "familia" of a hotel's name both
-- take in the term "the Sagrada Familia", and two replacements of one span would be written
-- one after the other, leaving the span between them readable. (Islands of overlapping spans:
-- a match starts a new one where it begins at or after the end of every match before it.)
CREATE OR REPLACE TEMP TABLE identifier_matches AS
WITH ordered AS (
    SELECT *, max(end_pos) OVER (PARTITION BY row_id, attribute ORDER BY start_pos, end_pos, norm
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM identifier_widened
),
islands AS (
    SELECT *, sum(CASE WHEN reach IS NULL OR start_pos >= reach THEN 1 ELSE 0 END)
                  OVER (PARTITION BY row_id, attribute ORDER BY start_pos, end_pos, norm) AS island
    FROM ordered
)
SELECT row_id, person, attribute, CAST(min(start_pos) AS INTEGER) AS start_pos, CAST(max(end_pos) AS INTEGER) AS end_pos,
       substring(any_value(text), min(start_pos) + 1, max(end_pos) - min(start_pos)) AS term,
       arg_min(norm, (start_pos, norm)) AS norm, arg_min(column_name, (start_pos, norm)) AS column_name
FROM islands
GROUP BY row_id, person, attribute, island;

-- (a join, not a correlated EXISTS: DuckDB decorrelated that by grouping every term on the
-- columns it compares, even with no identifier in any text)
DELETE FROM terms_found
WHERE (row_id, attribute, start_pos, end_pos) IN (
    SELECT f.row_id, f.attribute, f.start_pos, f.end_pos
    FROM terms_found AS f
    JOIN identifier_matches AS m ON m.row_id = f.row_id AND m.attribute = f.attribute
    WHERE m.start_pos < f.end_pos AND f.start_pos < m.end_pos
);

INSERT INTO terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, upper(m.column_name), 'identifier'
FROM identifier_matches AS m;
