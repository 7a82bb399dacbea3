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

-- The texts with every tagged span blanked out (same length, no word character), so that a
-- surface found below can neither overlap a tagged span nor be swallowed by a longer surface
-- that does ("Jo" before an identifier "Ann Lee" that took the "Jo Ann" span).
CREATE OR REPLACE TEMP TABLE blanked_texts AS
WITH ordered AS (
    SELECT row_id, attribute, start_pos, end_pos,
           coalesce(lag(end_pos) OVER w, 0) AS previous_end,
           lead(start_pos) OVER w IS NULL AS is_last
    FROM rx.terms_found
    WINDOW w AS (PARTITION BY row_id, attribute ORDER BY start_pos)
),
pieces AS (
    SELECT o.row_id, o.attribute, o.start_pos,
           substring(t.text, o.previous_end + 1, o.start_pos - o.previous_end)
           || repeat(chr(1), o.end_pos - o.start_pos)
           || CASE WHEN o.is_last THEN substring(t.text, o.end_pos + 1) ELSE '' END AS piece
    FROM ordered AS o
    JOIN rx.texts AS t ON t.row_id = o.row_id AND t.attribute = o.attribute
)
SELECT t.row_id, t.person, t.attribute, t.text, coalesce(b.text, t.text) AS blanked
FROM rx.texts AS t
LEFT JOIN (
    SELECT row_id, attribute, string_agg(piece, '' ORDER BY start_pos) AS text
    FROM pieces
    GROUP BY row_id, attribute
) AS b ON b.row_id = t.row_id AND b.attribute = t.attribute;

CREATE OR REPLACE TEMP TABLE surface_matches AS
SELECT t.row_id, t.person, t.attribute, m.start_pos, m.end_pos,
       substring(t.text, m.start_pos + 1, m.end_pos - m.start_pos) AS term, m.needle AS norm
FROM blanked_texts AS t
JOIN surfaces AS s ON s.person = t.person
CROSS JOIN unnest(rx_find(t.blanked, s.needles)) AS u(m);

INSERT INTO rx.terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, l.label, 'match'
FROM surface_matches AS m
JOIN surface_labels AS l ON l.person = m.person AND l.norm = m.norm
WHERE NOT EXISTS (
    SELECT 1 FROM rx.terms_found AS f
    WHERE f.row_id = m.row_id AND f.attribute = m.attribute
      AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);
