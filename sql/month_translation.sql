-- Date strings whose month word is a known month name in another language ("14,mayo,2004",
-- "3,Juni,2004"), with that word replaced by the English name, so that strptime's %B parses them.
CREATE OR REPLACE TABLE rx.month_translation AS
WITH words AS (
    SELECT attribute, raw, regexp_extract(raw, '\pL+\.?') AS word
    FROM rx.date_strings
)
SELECT w.attribute, w.raw, replace(w.raw, w.word, m.english) AS english
FROM words AS w
JOIN rx.month_names AS m ON m.name = rtrim(lower(w.word), '.');
