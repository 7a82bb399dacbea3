-- Repairs (repair.py): what the check before the commit still reads in the released texts (a
-- replaced surface written out elsewhere in its person's texts, repair_leaks; a direct
-- identifier's value or distinctive word, found here as verify finds it) becomes one more
-- replacement, placed in the original text where the check read it. The next check reads the
-- texts rebuilt with it. A repair is a replacement of reason 'repaired'.
--
-- Where a hit stands in the original text: its released position less the growth of every
-- replacement that ends before it (a replacement "[PERSON]" of "Jo" makes the text 6 characters
-- longer from there on). A hit that overlaps a replacement is not repaired: a second edit of the
-- same characters would garble both, and the check fails the release instead.
CREATE OR REPLACE TEMP TABLE repair_hits AS
SELECT l.row_id, l.attribute, l.start_pos, l.end_pos, l.needle, CAST(NULL AS VARCHAR) AS label
FROM repair_leaks AS l
UNION ALL
SELECT t.row_id, t.attribute, u.m.start_pos, u.m.end_pos, u.m.needle, upper(v.column_name)
FROM rx.audit_texts AS t
CROSS JOIN unnest(rx_find_identifiers(t.text)) AS u(m)
JOIN (SELECT norm, min(column_name) AS column_name FROM rx.identifier_values GROUP BY norm) AS v
    ON v.norm = u.m.needle
WHERE t.text IS NOT NULL;

CREATE OR REPLACE TEMP TABLE repair_edits AS
WITH placed AS (
    SELECT row_id, attribute, start_pos, end_pos, replacement, person, label, norm, operator,
           start_pos + coalesce(sum(length(replacement) - (end_pos - start_pos)) OVER w, 0) AS released_start,
           coalesce(sum(length(replacement) - (end_pos - start_pos)) OVER w, 0)
               + length(replacement) - (end_pos - start_pos) AS growth
    FROM rx.replacements
    WINDOW w AS (PARTITION BY row_id, attribute ORDER BY start_pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
hits AS (
    SELECT DISTINCT h.row_id, h.attribute, h.start_pos, h.end_pos, h.needle, h.label
    FROM repair_hits AS h
    ANTI JOIN placed AS p
        ON p.row_id = h.row_id AND p.attribute = h.attribute
       AND p.released_start < h.end_pos AND h.start_pos < p.released_start + length(p.replacement)
),
mapped AS (
    SELECT h.*, d.person,
           h.start_pos - coalesce((SELECT arg_max(p.growth, p.released_start) FROM placed AS p
                                   WHERE p.row_id = h.row_id AND p.attribute = h.attribute
                                     AND p.released_start + length(p.replacement) <= h.start_pos), 0) AS original_start
    FROM hits AS h
    JOIN rx.dataset AS d ON d.row_id = h.row_id
),
-- The replacement the person's texts already have for the surface (or, for an identifier, for
-- its label), as the sweep replaces a surface the way it was replaced first.
firsts AS (
    SELECT person, norm, arg_min(label, row_id) AS label, arg_min(replacement, row_id) AS replacement,
           arg_min(operator, row_id) AS operator
    FROM rx.replacements
    WHERE reason IN ('suppressed', 'generalized', 'repaired')
    GROUP BY person, norm
)
SELECT m.row_id, m.person, m.attribute, CAST(m.original_start AS INTEGER) AS start_pos,
       CAST(m.original_start + m.end_pos - m.start_pos AS INTEGER) AS end_pos,
       coalesce(f.replacement, '[' || coalesce(m.label, 'REPAIRED') || ']') AS replacement,
       'repaired' AS reason, coalesce(m.label, f.label, 'REPAIRED') AS label, m.needle AS norm,
       coalesce(f.operator, 'label') AS operator
FROM mapped AS m
LEFT JOIN firsts AS f ON f.person = m.person AND f.norm = m.needle AND m.label IS NULL;

INSERT INTO rx.replacements (row_id, person, attribute, start_pos, end_pos, replacement, reason, label, norm, operator)
SELECT row_id, person, attribute, start_pos, end_pos, replacement, reason, label, norm, operator FROM repair_edits;
