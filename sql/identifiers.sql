-- A direct identifier's value (a name, an e-mail address, ...) written in any text is a term
-- that is always replaced, whoever wrote it and whatever the recognizers made of it: it wins
-- over an overlapping term. Such terms are not part of X' (they never shape a partition).
CREATE OR REPLACE TEMP TABLE identifier_matches AS
SELECT t.row_id, t.person, t.attribute, m.start_pos, m.end_pos,
       substring(t.text, m.start_pos + 1, m.end_pos - m.start_pos) AS term, m.needle AS norm
FROM rx.texts AS t
CROSS JOIN unnest(rx_find_identifiers(t.text)) AS u(m);

DELETE FROM rx.terms_found AS f
WHERE EXISTS (
    SELECT 1 FROM identifier_matches AS m
    WHERE m.row_id = f.row_id AND m.attribute = f.attribute
      AND m.start_pos < f.end_pos AND f.start_pos < m.end_pos
);

INSERT INTO rx.terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, upper(v.column_name), 'identifier'
FROM identifier_matches AS m
JOIN (
    SELECT norm, min(column_name) AS column_name FROM rx.identifier_values GROUP BY norm
) AS v ON v.norm = m.norm;
