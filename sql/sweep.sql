-- The sweep, the last pass before the texts are rebuilt: a surface that is replaced somewhere in
-- a person's texts, and that the person does not show anywhere, is replaced wherever else it
-- stands in their texts, the same way (its first replacement there). Propagation and linking
-- choose among overlapping spans, and a choice can leave a surface bare:
-- - a rare number beside a chosen match inside a span that only may state an attribute ("224"
--   of the CARDINAL "224 50", whose "50" is a MONEY elsewhere);
-- - the rest of a term whose linked part alone is recoded ("German" of "German Law", Law a
--   topic);
-- - a word that a longer match covered, where the longer match gave way to a linked value
--   ("Students" of "Female Weapon Hammer Students").
-- This is verify's leak check (leaks.sql) turned into replacements, on the original texts. It is
-- kept apart from leaks.sql on purpose: verify recomputes the check from the release, so a fault
-- here is still caught there.
INSERT INTO rx.replacements
WITH shown AS (
    SELECT person, norm FROM rx.generalized_terms WHERE level = 0
    UNION
    SELECT p.person, k.norm
    FROM rx.kept_terms AS k
    JOIN rx.partitions AS p ON p.partition_id = k.partition_id
),
swept AS (
    SELECT r.person, r.norm, min_by(struct_pack(r.replacement, r.reason, r.label, r.operator), r.start_pos) AS how
    FROM rx.replacements AS r
    ANTI JOIN shown AS s ON s.person = r.person AND s.norm = r.norm
    WHERE r.reason IN ('suppressed', 'generalized')
    GROUP BY r.person, r.norm
),
blanks AS (
    SELECT row_id, attribute, list(struct_pack(start_pos := start_pos, end_pos := end_pos)) AS blanks
    FROM rx.replacements
    GROUP BY row_id, attribute
),
found AS (
    SELECT u.m.id AS text_id, u.m.start_pos, u.m.end_pos, u.m.needle
    FROM (
        SELECT t.person, array_agg(struct_pack(id := t.text_id, text := t.text, blanks := b.blanks)) AS items
        FROM rx.texts AS t
        LEFT JOIN blanks AS b ON b.row_id = t.row_id AND b.attribute = t.attribute
        WHERE t.person IN (SELECT person FROM swept) AND t.text IS NOT NULL
        GROUP BY t.person
    ) AS p
    JOIN (SELECT person, list_sort(array_agg(norm)) AS needles FROM swept GROUP BY person) AS n
      ON n.person = p.person
    CROSS JOIN unnest(rx_find_bare(p.items, n.needles)) AS u(m)
),
-- (a hit inside a longer term left as written is part of what the partition shares: "Jo" of a
-- kept "Jo Ann")
bare AS (
    SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos, f.needle AS norm
    FROM found AS f
    JOIN rx.texts AS t ON t.text_id = f.text_id
    ANTI JOIN rx.terms AS k
        ON k.row_id = t.row_id AND k.attribute = t.attribute AND k.start_pos <= f.start_pos AND f.end_pos <= k.end_pos
       AND k.end_pos - k.start_pos > f.end_pos - f.start_pos
),
-- (of overlapping hits, the longest, then the earliest: "new york" over "york"; a text with glue
-- characters may match two needles at one place)
chosen AS (
    SELECT b.*
    FROM bare AS b
    ANTI JOIN bare AS o
        ON o.row_id = b.row_id AND o.attribute = b.attribute AND o.start_pos < b.end_pos AND b.start_pos < o.end_pos
       AND (o.end_pos - o.start_pos > b.end_pos - b.start_pos
            OR (o.end_pos - o.start_pos = b.end_pos - b.start_pos
                AND (o.start_pos < b.start_pos OR (o.start_pos = b.start_pos AND o.norm < b.norm))))
)
SELECT c.row_id, c.person, c.attribute, c.start_pos, c.end_pos, s.how.replacement, s.how.reason, s.how.label, c.norm,
       s.how.operator
FROM chosen AS c
JOIN swept AS s ON s.person = c.person AND s.norm = c.norm;
