-- The leak check of `verify`: an occurrence (whole word, case-insensitive) of a suppressed
-- term's surface in a text of the same person that no replacement covers. An occurrence inside
-- a longer term is part of that term, not the suppressed one ("Jo" inside a kept "Jo Ann" that
-- the whole partition shares).
WITH leak_needles AS (
    SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
    FROM rx.replacements
    WHERE reason IN ('suppressed', 'generalized')  -- a generalized term is not kept either
    GROUP BY person
),
hits AS (
    SELECT t.row_id, t.person, t.attribute, m.start_pos, m.end_pos, m.needle
    FROM rx.texts AS t
    JOIN leak_needles AS n ON n.person = t.person
    CROSS JOIN unnest(rx_find(t.text, n.needles)) AS u(m)
)
SELECT h.*
FROM hits AS h
WHERE NOT EXISTS (
    SELECT 1 FROM rx.replacements AS r
    WHERE r.row_id = h.row_id AND r.attribute = h.attribute
      AND r.start_pos <= h.start_pos AND h.end_pos <= r.end_pos
)
AND NOT EXISTS (
    SELECT 1 FROM rx.terms AS t
    WHERE t.row_id = h.row_id AND t.attribute = h.attribute
      AND t.start_pos <= h.start_pos AND h.end_pos <= t.end_pos AND t.end_pos - t.start_pos > h.end_pos - h.start_pos
)
ORDER BY h.row_id, h.attribute, h.start_pos;
