-- The leak check of `verify`: a suppressed term's surface (whole word, case-insensitive) written
-- out in a released text of the same person. Positions are in the released text. A surface that
-- is part of a replacement (a recoded set such as "(Leo,Pisces)", a surrogate, a generalized
-- place) or of a longer term left as written ("Jo" inside a kept "Jo Ann" that the whole
-- partition shares) is not the suppressed term.
WITH leak_needles AS (
    SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
    FROM rx.replacements
    WHERE reason IN ('suppressed', 'generalized')  -- a generalized term is not kept either
    GROUP BY person
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
