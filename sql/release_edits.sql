-- The edits that make the released texts: the replacements (applied by rebuild_texts.sql). A
-- view: rebuild_texts.sql reads them once, so a copy would only write them once more.
CREATE OR REPLACE TEMP VIEW text_edits AS
SELECT row_id, attribute, start_pos, end_pos, replacement FROM rx.replacements;
