-- `rxanon-sql init`: what the values of each short text column look like, from its distinct
-- values (temp.init_samples: name, value). One row per sampled column:
--   list_share: values written as a list ("[' Leisure trip ', ' Couple ']");
--   name_share: values that are two to four capitalised words, each a first or last name of
--     temp.init_name_words ("Mary Jones"), with no digit;
--   email_share: values that are an e-mail address.
WITH tokens AS (
    SELECT name, value, unnest(regexp_extract_all(value, '[\pL''-]+')) AS token
    FROM temp.init_samples
    WHERE NOT regexp_matches(value, '\d')
),
name_values AS (
    SELECT t.name, t.value
    FROM tokens AS t
    LEFT JOIN temp.init_name_words AS n ON n.word = lower(t.token)
    GROUP BY t.name, t.value
    HAVING count(*) BETWEEN 2 AND 4
       AND count(n.word) = count(*)
       AND bool_and(regexp_matches(t.token, '^\p{Lu}'))
),
shares AS (
    SELECT s.name,
           avg(CASE WHEN regexp_full_match(trim(s.value), '\[.*\]') THEN 1.0 ELSE 0.0 END) AS list_share,
           avg(CASE WHEN nv.value IS NOT NULL THEN 1.0 ELSE 0.0 END) AS name_share,
           avg(CASE WHEN regexp_full_match(trim(s.value), '[^@\s]+@[^@\s]+\.\pL{2,}') THEN 1.0 ELSE 0.0 END)
               AS email_share
    FROM temp.init_samples AS s
    LEFT JOIN name_values AS nv ON nv.name = s.name AND nv.value = s.value
    GROUP BY s.name
)
SELECT name, list_share, name_share, email_share
FROM shares
ORDER BY name;
