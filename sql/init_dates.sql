-- `rxanon-sql init`: per short text column (temp.init_samples: name, value), how many of its
-- distinct values the strptime format $fmt does not read (DuckDB wants the format a constant,
-- so the file runs once per format). A month name in another language is translated as apply
-- translates it (month_translation.sql), so that a format that reads every value here is one
-- that apply accepts for the whole column.
WITH words AS (
    SELECT name, value, regexp_extract(value, '\pL+\.?') AS word
    FROM temp.init_samples
),
english AS (
    SELECT w.name, w.value, coalesce(replace(w.value, w.word, m.english), w.value) AS english
    FROM words AS w
    LEFT JOIN temp.init_month_names AS m ON m.name = rtrim(lower(w.word), '.')
)
SELECT name,
       sum(CASE WHEN coalesce(try_strptime(value, $fmt), try_strptime(english, $fmt)) IS NULL THEN 1 ELSE 0 END)
           AS failures
FROM english
GROUP BY name
ORDER BY name;
