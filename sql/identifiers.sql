-- A direct identifier's value (a name, an e-mail address, ...) written in any text is a term
-- that is always replaced, whoever wrote it and whatever the recognizers made of it: it wins
-- over an overlapping term. Such terms are not part of X' (they never shape a partition).
-- A match takes in the terms it overlaps, so that no part of them stays bare: "Jo Ann" with
-- the identifier "Ann Lee" in "Jo Ann Lee" is replaced as a whole.
CREATE OR REPLACE TEMP TABLE identifier_hits AS
SELECT t.row_id, t.person, t.attribute, t.text, m.start_pos, m.end_pos, m.needle AS norm
-- (without identifier values, no text goes through Python; the same filter outside the
-- subquery is evaluated per match)
FROM (SELECT * FROM rx.texts WHERE EXISTS (SELECT 1 FROM rx.identifier_values)) AS t
CROSS JOIN unnest(rx_find_identifiers(t.text)) AS u(m);

CREATE OR REPLACE TEMP TABLE identifier_matches AS
SELECT h.row_id, h.person, h.attribute,
       CAST(least(h.start_pos, coalesce(min(f.start_pos), h.start_pos)) AS INTEGER) AS start_pos,
       CAST(greatest(h.end_pos, coalesce(max(f.end_pos), h.end_pos)) AS INTEGER) AS end_pos,
       substring(h.text, least(h.start_pos, coalesce(min(f.start_pos), h.start_pos)) + 1,
                 greatest(h.end_pos, coalesce(max(f.end_pos), h.end_pos))
                 - least(h.start_pos, coalesce(min(f.start_pos), h.start_pos))) AS term,
       h.norm
FROM identifier_hits AS h
LEFT JOIN terms_found AS f
  ON f.row_id = h.row_id AND f.attribute = h.attribute AND f.start_pos < h.end_pos AND h.start_pos < f.end_pos
GROUP BY h.row_id, h.person, h.attribute, h.text, h.start_pos, h.end_pos, h.norm;

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
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, upper(v.column_name), 'identifier'
FROM identifier_matches AS m
JOIN (
    SELECT norm, min(column_name) AS column_name FROM rx.identifier_values GROUP BY norm
) AS v ON v.norm = m.norm;
