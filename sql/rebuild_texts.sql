-- Text edits applied: every text of `original_texts` (row_id, attribute, text) that
-- `text_edits` (row_id, attribute, start_pos, end_pos, replacement; non-overlapping spans)
-- edits is rebuilt from the pieces between the edits, in order, into `rebuilt_texts` (row_id,
-- attribute, text). Texts without an edit are left out. Used for the release (edits = the
-- replacements) and by `verify`, which rebuilds the released texts from rx.dataset.
--
-- The pieces are joined by a window over the text's pieces whose frame is the whole text at
-- its last piece and the piece alone elsewhere: a grouped string_agg(... ORDER BY) sorts every
-- text's pieces once more and took half again as long on the blog corpus shape (a running
-- frame would build every prefix of the text).
CREATE OR REPLACE TEMP TABLE rebuilt_texts AS
WITH ordered AS (
    SELECT row_id, attribute, start_pos, end_pos, replacement,
           coalesce(lag(end_pos) OVER w, 0) AS previous_end,
           lead(start_pos) OVER w IS NULL AS is_last,
           row_number() OVER w - 1 AS earlier
    FROM text_edits
    WINDOW w AS (PARTITION BY row_id, attribute ORDER BY start_pos)
),
pieces AS (
    SELECT o.row_id, o.attribute, o.start_pos, o.is_last, o.earlier,
           substring(t.text, o.previous_end + 1, o.start_pos - o.previous_end)
           || o.replacement
           || CASE WHEN o.is_last THEN substring(t.text, o.end_pos + 1) ELSE '' END AS piece
    FROM ordered AS o
    JOIN original_texts AS t ON t.row_id = o.row_id AND t.attribute = o.attribute
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
