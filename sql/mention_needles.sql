-- The needles of linking's value mentions (linking.sql, 1. and 1b.): a tuple's own nominal or
-- ordinal values and its whole numbers written out (below), which its texts are searched for by
-- propagate.sql's per-person pass (the surfaces go to the corpus-wide automaton).
--
-- A row's needles are its distinct lowercased values, sorted; rows that share them form a set
-- (set_id), which each text carries to the search instead of its values. The sets are built
-- from a string of needle numbers per row: a list aggregate, one list for every row of the
-- dataset, is the slower of the two.
CREATE OR REPLACE TEMP TABLE mention_values AS
SELECT v.row_id, lower(v.txt) AS needle
FROM rx.qi_values AS v
JOIN rx.attributes AS a ON a.attribute = v.attribute
WHERE a.kind IN ('nominal', 'ordinal') AND a.match_values AND v.txt IS NOT NULL AND v.txt <> '(missing)';

-- A tuple's own whole number (an age) in the forms no recognizer tags: in words ("thirty-six",
-- "thirty six", "trente-six"; rx.number_words) and in the compact forms of an age ("36yo",
-- "36 y/o", "36-yr-old"). Linking (1b.) makes each occurrence a term linked to the attribute, or
-- links the term it lies in. A bare "36" is no needle: spaCy tags it (CARDINAL, DATE), and
-- linking reads it there (term_numbers); nor is "one", a pronoun far more often than a number.
-- The forms depend on the number only, so a row carries its numbers (a negative entry in its
-- key below), which are spelled out once per distinct key, not once per row. (TRY_CAST: a number
-- beyond INTEGER, 1e12, has no spelled-out form and no link.)
CREATE OR REPLACE TEMP TABLE number_values AS
SELECT DISTINCT v.row_id, TRY_CAST(v.num AS INTEGER) AS value
FROM rx.qi_values AS v
JOIN rx.attributes AS a ON a.attribute = v.attribute
WHERE a.kind = 'numeric' AND a.match_values AND v.num = round(v.num)
  AND TRY_CAST(v.num AS INTEGER) IN (SELECT value FROM rx.number_words WHERE NOT ordinal AND value > 1);

CREATE OR REPLACE TEMP TABLE number_forms AS
SELECT value, word AS needle
FROM rx.number_words
WHERE NOT ordinal AND value > 1
UNION
SELECT d.value, CAST(d.value AS VARCHAR) || f.suffix
FROM (SELECT DISTINCT value FROM rx.number_words WHERE NOT ordinal AND value > 1) AS d
CROSS JOIN (VALUES ('yo'), (' yo'), ('y/o'), (' y/o'), ('yrs'), (' yrs'), ('yr'), ('-year-old'), ('-years-old'),
                   ('-yr-old'), (' yrs old')) AS f(suffix);

CREATE OR REPLACE TEMP TABLE needle_numbers AS
SELECT needle, row_number() OVER (ORDER BY needle) AS nid
FROM (SELECT DISTINCT needle FROM mention_values) AS d;

-- (a row's numbers in any order, repeats included: the key only groups rows, the set is made
-- from it below; a row's own number n is the entry -n)
CREATE OR REPLACE TEMP TABLE row_keys AS
SELECT row_id, string_agg(CAST(nid AS VARCHAR), ',') AS key
FROM (
    SELECT v.row_id, n.nid
    FROM mention_values AS v
    JOIN needle_numbers AS n ON n.needle = v.needle
    UNION ALL
    SELECT row_id, -value FROM number_values
) AS r
GROUP BY row_id;

CREATE OR REPLACE TEMP TABLE key_needles AS
SELECT k.key, list_sort(list_distinct(array_agg(coalesce(n.needle, f.needle)))) AS needles
FROM (SELECT key, unnest(list_transform(string_split(key, ','), lambda n: CAST(n AS BIGINT))) AS nid
      FROM (SELECT DISTINCT key FROM row_keys) AS d) AS k
LEFT JOIN needle_numbers AS n ON n.nid = k.nid
LEFT JOIN number_forms AS f ON f.value = -k.nid
WHERE n.needle IS NOT NULL OR f.needle IS NOT NULL
GROUP BY k.key;

CREATE OR REPLACE TEMP TABLE needle_sets AS
SELECT row_number() OVER (ORDER BY needles) AS set_id, needles
FROM (SELECT DISTINCT needles FROM key_needles) AS d;

CREATE OR REPLACE TEMP TABLE mention_needles AS
SELECT r.row_id, s.set_id
FROM row_keys AS r
JOIN key_needles AS k ON k.key = r.key
JOIN needle_sets AS s ON s.needles = k.needles;
