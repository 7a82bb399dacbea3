-- The leak check of `verify`: a suppressed term's surface (whole word, case-insensitive) written
-- out in a released text of the same person. Positions are in the released text. A surface that
-- is part of a replacement (a recoded set such as "(Leo,Pisces)", a surrogate, a generalized
-- place) or of a longer term left as written ("Jo" inside a kept "Jo Ann" that the whole
-- partition shares) is not the suppressed term.
-- A surface the person shows anyway is no leak, whatever label another occurrence of it had:
-- a term the partition keeps, or one generalized to itself in canonical form ("the united
-- states" shown as "United States", so "the " before a generalized "Houston" reads the same).
WITH shown AS (
    SELECT person, norm FROM rx.generalized_terms WHERE level = 0
    UNION
    SELECT p.person, k.norm
    FROM rx.kept_terms AS k
    JOIN rx.partitions AS p ON p.partition_id = k.partition_id
),
leak_needles AS (
    SELECT r.person, list_sort(array_agg(DISTINCT r.norm)) AS needles
    FROM rx.replacements AS r
    WHERE r.reason IN ('suppressed', 'generalized')  -- a generalized term is not kept either
      AND NOT EXISTS (SELECT 1 FROM shown AS s WHERE s.person = r.person AND s.norm = r.norm)
    GROUP BY r.person
),
hits AS (
    SELECT r.row_id, r.person, r.attribute, m.start_pos, m.end_pos, m.needle
    FROM rx.audit_texts AS r
    JOIN leak_needles AS n ON n.person = r.person
    CROSS JOIN unnest(rx_find(r.text, n.needles)) AS u(m)
)
SELECT h.*
FROM hits AS h
WHERE NOT EXISTS (
    SELECT 1 FROM rx.released_spans AS s
    WHERE s.row_id = h.row_id AND s.attribute = h.attribute
      AND s.start_pos <= h.start_pos AND h.end_pos <= s.end_pos
      AND (s.kind = 'replacement' OR s.end_pos - s.start_pos > h.end_pos - h.start_pos)
)
ORDER BY h.row_id, h.attribute, h.start_pos;
