-- Every occurrence of a person's sensitive surface in any of the person's texts is a term, not
-- only the occurrences the recognizer tagged: otherwise a suppressed term could survive in a
-- sentence where the model missed it. The occurrence takes the label the person's tagged
-- occurrences carry most often (ties: label name); it never overlaps a tagged span.
CREATE OR REPLACE TEMP TABLE surfaces AS
SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
FROM rx.terms_found
GROUP BY person;

CREATE OR REPLACE TEMP TABLE surface_labels AS
SELECT person, norm, label
FROM (
    SELECT person, norm, label,
           row_number() OVER (PARTITION BY person, norm ORDER BY count(*) DESC, label) AS rn
    FROM rx.terms_found
    GROUP BY person, norm, label
) AS ranked
WHERE rn = 1;

CREATE OR REPLACE TEMP TABLE surface_matches AS
SELECT t.row_id, t.person, t.attribute, m.start_pos, m.end_pos,
       substring(t.text, m.start_pos + 1, m.end_pos - m.start_pos) AS term, m.needle AS norm
FROM rx.texts AS t
JOIN surfaces AS s ON s.person = t.person
CROSS JOIN unnest(rx_find(t.text, s.needles)) AS u(m);

INSERT INTO rx.terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, l.label, 'match'
FROM surface_matches AS m
JOIN surface_labels AS l ON l.person = m.person AND l.norm = m.norm
WHERE NOT EXISTS (
    SELECT 1 FROM rx.terms_found AS f
    WHERE f.row_id = m.row_id AND f.attribute = m.attribute
      AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);
