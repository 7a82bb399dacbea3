-- Propagation, continued after resolve_matches.sql: the resolved matches are the chosen
-- occurrences. None of them cuts through a tagged span or lies inside one (resolve_matches.sql);
-- one that covers tagged spans whole, and is longer, replaces them ("Dena how" of another post
-- over "Dena" here). (A second search of the texts with their tagged spans blanked out once found
-- what a match cutting through a span hid; such a match is no candidate any more, and the
-- automaton's key form read a blanked word as a space, so "New ░░░ York" matched "new york".)
CREATE OR REPLACE TEMP TABLE chosen AS
SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos,
       substring(t.text, f.start_pos + 1, f.end_pos - f.start_pos) AS term, f.needle AS norm
FROM resolved_matches AS f
JOIN rx.texts AS t ON t.text_id = f.text_id;

-- The label each chosen surface takes (see propagate.sql), counted before the replacements.
CREATE OR REPLACE TEMP TABLE surface_labels AS
WITH own AS (
    SELECT person, norm, label
    FROM (
        SELECT person, norm, label,
               row_number() OVER (PARTITION BY person, norm
                                  ORDER BY label IN (SELECT label FROM rx.labels) DESC, count(*) DESC, label) AS rn
        FROM terms_found
        WHERE (person, norm) IN (SELECT person, norm FROM chosen)
        GROUP BY person, norm, label
    ) AS ranked
    WHERE rn = 1
)
-- (the person's own label if it is sensitive; a CARDINAL "4,000" of theirs is another person's
-- MONEY, and as a CARDINAL that states nothing it would be dropped, leaving the "4" of a MONEY
-- "4" readable)
SELECT c.person, c.norm,
       coalesce(CASE WHEN o.label IN (SELECT label FROM rx.labels) THEN o.label END, n.label, o.label) AS label
FROM (SELECT DISTINCT person, norm FROM chosen) AS c
LEFT JOIN own AS o ON o.person = c.person AND o.norm = c.norm
LEFT JOIN corpus_needles AS n ON n.norm = c.norm;

-- The chosen occurrences replace every span they overlap (the tagged spans they cover, and
-- spans of labels that only may state an attribute).
DELETE FROM terms_found AS f
WHERE f.row_id IN (SELECT row_id FROM chosen)
  AND EXISTS (
    SELECT 1 FROM chosen AS m
    WHERE m.row_id = f.row_id AND m.attribute = f.attribute AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);

INSERT INTO terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, l.label, 'match'
FROM chosen AS m
JOIN surface_labels AS l ON l.person = m.person AND l.norm = m.norm;
