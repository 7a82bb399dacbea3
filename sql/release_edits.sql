-- The edits that make the released texts: the replacements (applied by rebuild_texts.sql). A
-- view: rebuild_texts.sql reads them once, and a copy took 0.2 s and 100 MB on the blog corpus shape.
CREATE OR REPLACE TEMP VIEW text_edits AS
SELECT row_id, attribute, start_pos, end_pos, replacement FROM rx.replacements;
