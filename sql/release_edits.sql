-- The edits that make the released texts: the replacements (applied by rebuild_texts.sql).
CREATE OR REPLACE TEMP TABLE text_edits AS
SELECT row_id, attribute, start_pos, end_pos, replacement FROM rx.replacements;
