-- Text edits applied: every text of `original_texts` (row_id, attribute, text) that
-- `text_edits` (row_id, attribute, start_pos, end_pos, replacement; non-overlapping spans)
-- edits is rebuilt from the pieces between the edits, in order, into `rebuilt_texts` (row_id,
-- attribute, text). Texts without an edit are left out. Used for the release (edits = the
-- replacements) and by `verify`, which rebuilds the released texts from rx.dataset.
--
-- The pieces are joined by a window over the text's pieces whose frame is the whole text at
-- its last piece and the piece alone elsewhere: a grouped string_agg(... ORDER BY) sorts every
-- text's pieces once more (a running frame would build every prefix of the text).
CREATE OR REPLACE TEMP TABLE rebuilt_texts AS
WITH ordered AS (
    SELECT row_id, attribute, start_pos, end_pos, replacement,
           coalesce(lag(end_pos) OVER w, 0) AS previous_end,
           lead(start_pos) OVER w IS NULL AS is_last,
           row_number() OVER w - 1 AS earlier
    FROM text_edits
    WINDOW w AS (PARTITION BY row_id, attribute ORDER BY start_pos)
),
-- The text before each edit, and after the last: a substring of the text joined to the edit,
-- but for texts of more than 4,096 characters, which rx_cut (udfs/find.py) cuts once each.
-- DuckDB copies the whole text joined to each edit: in the square of the text's length for one
-- dense text, while on short texts the copies cost less than rx_cut's trip through Python.
-- (The lists go unsorted: rx_cut keeps their order, and `earlier` tells the edits apart.)
cut AS (
    SELECT g.row_id, g.attribute, unnest(g.edits) AS earlier,
           unnest(rx_cut(t.text, g.gap_starts, g.gap_ends)) AS gap,
           unnest(rx_cut(t.text, g.tail_starts, g.tail_ends)) AS tail
    FROM (SELECT o.row_id, o.attribute, list(o.earlier) AS edits, list(o.previous_end) AS gap_starts,
                 list(o.start_pos) AS gap_ends, list(CASE WHEN o.is_last THEN o.end_pos ELSE 0 END) AS tail_starts,
                 list(CASE WHEN o.is_last THEN 2147483647 ELSE 0 END) AS tail_ends
          FROM ordered AS o
          SEMI JOIN original_texts AS l ON l.row_id = o.row_id AND l.attribute = o.attribute AND octet_length(encode(l.text)) > 4096
          GROUP BY o.row_id, o.attribute) AS g
    JOIN original_texts AS t ON t.row_id = g.row_id AND t.attribute = g.attribute
),
pieces AS (
    SELECT o.row_id, o.attribute, o.start_pos, o.is_last, o.earlier,
           substring(t.text, o.previous_end + 1, o.start_pos - o.previous_end)
           || o.replacement
           || CASE WHEN o.is_last THEN substring(t.text, o.end_pos + 1) ELSE '' END AS piece
    FROM ordered AS o
    JOIN original_texts AS t ON t.row_id = o.row_id AND t.attribute = o.attribute
    WHERE octet_length(encode(t.text)) <= 4096
    UNION ALL
    SELECT o.row_id, o.attribute, o.start_pos, o.is_last, o.earlier, c.gap || o.replacement || c.tail
    FROM ordered AS o
    JOIN cut AS c ON c.row_id = o.row_id AND c.attribute = o.attribute AND c.earlier = o.earlier
),
joined AS (
    SELECT row_id, attribute, is_last,
           string_agg(piece, '' ORDER BY start_pos) OVER (
               PARTITION BY row_id, attribute ORDER BY start_pos
               ROWS BETWEEN (CASE WHEN is_last THEN earlier ELSE 0 END) PRECEDING AND CURRENT ROW) AS text
    FROM pieces
)
SELECT row_id, attribute, text
FROM joined
WHERE is_last;
