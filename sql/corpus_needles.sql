-- The needles of the corpus-wide search (propagate.sql, udfs/corpus.py): what, once recognized
-- or found rare anywhere, is a term wherever it is written. Each needle has one label, and
-- `cased`: a needle made of common words only ("George", "New York") is a term in a text of a
-- person who never had it only where it is written with capitals.
--
-- A single common word that is no name goes no further than the texts of the persons who had it
-- tagged (`corpus` false): on real blogs the model tags "I" as an
-- ORG and "A" as a PERSON here and there, and a corpus-wide search would make every "I" a term.
--
-- 1. Every sensitive surface found for anyone (and every direct identifier's), with the label it
--    was found with most often, a sensitive label first.
-- 2. The name-like words of a multi-word name: a capitalised word of a PERSON, ORG, GPE, FAC or
--    LOC term that is no common word ("Astor" of "Hotel Astor", "Mervat" of "George and
--    Mervat"), or, in a PERSON, a first or last name ("George"). The model tagged "George and
--    Mervat" as one span, so a bare "George" elsewhere was never a term.
-- 3. With the rare-string guard ($rare_guard), label RARE: a word that can name someone (no common
--    word, and no word of the language's dictionary, rx.dictionary_words, unless someone writes it
--    with a capital inside a sentence: "brekke", "f0r", "Olaf"; every word that is no common word
--    with text.rare_guard = "strict"), and every run of two to four words of a capitalised
--    sequence ("Grand Central Palace"). Whoever writes them, however many: such a string is a term
--    like any other and is kept only where every person of the partition has it (recode_text.sql's
--    kept terms). Written by k persons in different partitions ("olaf dot brekke at gmx dot de"),
--    it would single out its writer within each one; written by fewer than k, no partition can
--    share it and it is always replaced.
-- 4. The rest of a name whose other part is replaced: a first or last name (not one of the most
--    frequent words) beside, in a capitalised sequence, a rare word, a word of a PERSON term, or,
--    in a sequence fewer than k persons write, another name. "Ana" of "Ana Sousa" (in text, JSON
--    or markup) stayed where only the rare "Sousa" was a term, and "JOHN" of "TELL JOHN SMITH THE
--    MEETING MOVED" where the longer rare run "SMITH THE MEETING MOVED" won over "JOHN SMITH".
-- 0. The words that this corpus writes as everyday words. A first or last name of Faker's lists
--    that is one of the language's everyday words ("hope", "guy", "friend", "true", "story"), or
--    a dictionary word that is no name and no place ("hella", "anyhow": rx.everyday_candidates,
--    common_words.py), is an everyday word of the corpus too when most of its writers, and most
--    of its occurrences, are in lower case: at least 10 persons and three quarters of those who
--    write it, and three quarters of its occurrences (on the blog sample "hope" 98 % / 92 %,
--    "guy" 98 % / 94 %; "mark" 78 % / 30 %, "alex" 27 % / 65 %, "george" 7 % / 5 % stay names;
--    "kyle" or "paris" are never candidates). Written in lower case, such a word is then the
--    everyday word, not the name: propagation, the leak check and the sweep read
--    rx.everyday_words (propagate.sql), and one "Hope" of a sentence's start no longer made
--    every "hope" of its writer a term. With fewer writers the language's list alone decides.
--
-- Every person's words as written, with how often: the texts are cut into words once, here, for
-- step 0 and for the guard's words (3.). (Each cut reads every text: 8 s on the corpus shape.)
-- The texts are cut at the spaces, which no word holds, and each distinct piece into words once:
-- a person's words are those of their pieces, as often as the pieces (the corpus shape: 5.5 ->
-- 3.5 CPU s, its 32 million words being far fewer distinct pieces).
CREATE OR REPLACE TEMP TABLE person_tokens AS
WITH person_pieces AS (
    SELECT person, piece, count(*) AS n
    FROM (SELECT person, unnest(string_split(text, ' ')) AS piece FROM rx.texts) AS u
    GROUP BY ALL
),
piece_words AS (
    SELECT piece, unnest(regexp_extract_all(piece, $token)) AS written
    FROM (SELECT DISTINCT piece FROM person_pieces) AS d
)
SELECT p.person, w.written, CAST(sum(p.n) AS BIGINT) AS n
FROM person_pieces AS p
JOIN piece_words AS w ON w.piece = p.piece
GROUP BY ALL;

-- The number of words of the texts, the base of the words kept (utility.sql): counted from this
-- cut, where the measures stage cut every text once more for it (2.2 s on the corpus shape). (A
-- table: a run that only retunes measures again without cutting the texts.)
CREATE OR REPLACE TABLE rx.text_words AS
SELECT CAST(coalesce(sum(n), 0) AS BIGINT) AS words FROM person_tokens;

INSERT INTO rx.everyday_words
SELECT word
FROM (
    SELECT u.person, u.written, lower(u.written) AS word, u.n
    FROM person_tokens AS u
    SEMI JOIN rx.everyday_candidates AS n ON n.word = lower(u.written)
) AS uses
GROUP BY word
HAVING count(DISTINCT person) FILTER (WHERE written = word) >= 10
   AND count(DISTINCT person) FILTER (WHERE written = word) >= 0.75 * count(DISTINCT person)
   AND sum(n) FILTER (WHERE written = word) >= 0.75 * sum(n);

-- A span the model tagged as a name that is written in lower case and made only of such words
-- ("guy" as a PERSON, "friend" as an ORG) is no term: the form that identifies is the name's
-- (udfs/ner.py drops the lower-case spans of the language's everyday words the same way).
DELETE FROM terms_found AS f
WHERE f.source = 'ner' AND f.term = lower(f.term)
  AND f.label IN ('PERSON', 'NORP', 'ORG', 'PRODUCT', 'FAC', 'LOC', 'GPE', 'WORK_OF_ART', 'EVENT', 'MISC')
  AND NOT EXISTS (SELECT 1 FROM unnest(regexp_extract_all(f.norm, '[\pL\pN_]+')) AS w(word)
                  WHERE w.word NOT IN (SELECT word FROM rx.everyday_words));

-- A span of the model that, read as its mis-decoded text says (rx_repaired, udfs/mojibake.py),
-- is only the language's most frequent words and single Latin letters names no one (one
-- character of another script, a Chinese surname "李", may name someone): "Itâ\x80\x99s"
-- is "It's"; on the blog sample the trimmed span "Itâ\x80\x99s" of a PERSON "¦Itâ\x80\x99s" became
-- 426 replacements of "It's" in 40 persons' texts. (udfs/ner.py reads the spans it keeps the same
-- way, as they stand in their text; this reads each term as terms.sql trimmed it.) Only a span
-- beyond ASCII can read otherwise than it is written, and only one that does is read so: a
-- French "Côté", a surname and one of the language's most frequent words, is written as it reads
-- and stays, as an ASCII "Will" does.
DELETE FROM terms_found AS f
WHERE f.source = 'ner' AND NOT regexp_matches(f.term, '^[\x{00}-\x{7F}]*$') AND rx_repaired(f.term) <> f.term
  AND NOT EXISTS (SELECT 1 FROM unnest(regexp_extract_all(lower(rx_repaired(f.term)), '[\pL\pN_]+')) AS w(word)
                  WHERE NOT regexp_matches(w.word, '^[a-z0-9]$') AND w.word NOT IN (SELECT word FROM rx.frequent_words)
                    -- (the piece of a contraction, "ll" of "I'll", is a common word and no name)
                    AND NOT (length(w.word) = 2 AND w.word IN (SELECT word FROM rx.common_words)
                             AND w.word NOT IN (SELECT word FROM rx.name_words)));

CREATE OR REPLACE TEMP TABLE needle_labels AS
WITH found AS (
    SELECT norm, term, label, source, count(*) AS n
    FROM terms_found
    -- (a bare number of one or two digits, the "2" of a MONEY "$2" or the "15" of a DATE, is a
    -- term where it was recognized and nowhere else: elsewhere "2" and "15" are the number, which
    -- every writer writes, not the amount or the day; on the blog sample the model's "$2" made
    -- each "2" of its writer's texts a term, 7,900 numbers in all. leaks.sql reads it so. A
    -- number the rare guard takes is a needle as any rare word.)
    WHERE label IN (SELECT label FROM rx.labels) AND NOT regexp_matches(norm, '^[0-9]{1,2}$')
       -- (a value searched in its own person's texts only: "lw" must not take others' words)
       OR source = 'identifier' AND norm NOT IN (SELECT norm FROM rx.person_identifier_values)
    GROUP BY ALL
),
parts AS (
    SELECT lower(u.word) AS norm, f.label, f.n
    FROM (SELECT *, regexp_extract_all(term, '[\pL\pN_]+') AS words
          FROM found
          WHERE label IN ('PERSON', 'ORG', 'GPE', 'FAC', 'LOC') AND source <> 'identifier') AS f
    CROSS JOIN unnest(f.words) AS u(word)
    WHERE array_length(f.words) > 1 AND length(u.word) > 1 AND regexp_matches(u.word, '^\p{Lu}')
      -- (a piece of mis-decoded text is no word of the name: "Iâ" of "Iâ€™m Princeton", which
      -- says "I'm Princeton")
      AND (regexp_matches(f.term, '^[\x{00}-\x{7F}]*$')
           OR list_contains(regexp_extract_all(rx_repaired(f.term), '[\pL\pN_]+'), u.word))
      AND (lower(u.word) NOT IN (SELECT word FROM rx.common_words)
           OR f.label = 'PERSON' AND lower(u.word) IN (SELECT word FROM rx.name_words))
),
-- (unnest in the select list: a lateral join copies each text along with each of its words)
person_words AS (
    SELECT DISTINCT w.person, w.word
    -- (a single character names no one: "å", "æ" of mis-decoded text, a digit; the audit,
    -- residual.sql, passes them too. Left out by the pattern: filtered anywhere after it, the
    -- filter went down to the texts' words and DuckDB held every word of every text at once,
    -- 9.7 GB on the blog sample instead of 0.5 GB.)
    -- (DuckDB's lower maps each character to one, a letter or digit to a letter or digit: the
    -- lower-case form of a written word is a word of the lower-case text)
    FROM (SELECT person, lower(written) AS word FROM person_tokens WHERE $rare_guard AND length(written) > 1) AS w
    -- (the common words left out before the persons' words are made distinct, so that DISTINCT
    -- hashes only the rarer words, not the common ones that make up most of a text)
    ANTI JOIN rx.common_words AS c ON c.word = w.word
),
-- The dictionary words that someone writes with a capital inside a sentence: a name ("Olaf"),
-- a term of those who write it with a capital (corpus_needles below: cased).
-- (each distinct run cut into words once: the same few recur, on the corpus shape 2.9 million
-- runs are 8,902 distinct ones)
capitalised_inside AS (
    SELECT DISTINCT lower(word) AS word
    FROM (SELECT unnest(regexp_extract_all(capitals, $capitalised)) AS word
          FROM (SELECT DISTINCT unnest(regexp_extract_all(text, $inside)) AS capitals
                FROM rx.texts WHERE $rare_guard) AS r) AS w
),
guard_words AS (
    SELECT w.word, count(*) AS persons
    FROM person_words AS w
    LEFT JOIN rx.dictionary_words AS d ON d.word = w.word
    LEFT JOIN capitalised_inside AS c ON c.word = w.word
    WHERE d.word IS NULL OR c.word IS NOT NULL
    GROUP BY w.word
),
-- (a word that many persons of the corpus write, $widely or more, is a word of the corpus's own:
-- "urllink", "4th", "donâ" of "donâ€™t". common_words.widely_written; residual.sql passes it too)
rare_words AS (
    SELECT word AS norm, 'RARE' AS label, 1 AS n FROM guard_words WHERE persons < $widely
),
-- (the guard words that fewer than k persons write: no partition can share them)
few_words AS (
    SELECT word FROM guard_words WHERE persons < (SELECT k FROM rx.params)
),
-- (every person's, with or without the guard: a name beside a PERSON word counts without it)
-- (each distinct sequence cut into words once: on the corpus shape 1.2 million sequences are
-- 450,054 distinct ones of a person, 2,997 distinct ones)
person_sequences_written AS (
    SELECT DISTINCT person, seq
    FROM (SELECT person, unnest(regexp_extract_all(text, $sequence)) AS seq FROM rx.texts) AS w
),
sequence_words AS (
    SELECT seq, string_split(lower(regexp_replace(seq, $gap || '+', ' ', 'g')), ' ') AS words
    FROM (SELECT DISTINCT seq FROM person_sequences_written) AS w
),
written_sequences AS (
    SELECT DISTINCT p.person, w.words
    FROM person_sequences_written AS p
    JOIN sequence_words AS w ON w.seq = p.seq
    WHERE $rare_guard
),
-- Every run of two to four words of a sequence is a needle: where a recognizer tagged part of
-- "American Red Cross", what is left around its replacement ("American Red") must not single out
-- its writer either, nor must a run of a sequence that k persons write in other partitions. (Each
-- distinct sequence cut once: most are written by one person.)
person_sequences AS (
    SELECT DISTINCT array_to_string(list_slice(w.words, a.i, a.i + b.n - 1), ' ') AS seq
    FROM (SELECT DISTINCT words FROM written_sequences) AS w
    CROSS JOIN unnest(range(1, array_length(w.words))) AS a(i)
    CROSS JOIN unnest(range(2, 5)) AS b(n)
    WHERE a.i + b.n - 1 <= array_length(w.words)
      -- ("From Lyon", "Good English", "London Would": a run that begins or ends with one of the
      -- most frequent words is the capital of a sentence's start or of a name beside it)
      AND w.words[a.i] NOT IN (SELECT word FROM rx.frequent_words)
      AND w.words[a.i + b.n - 1] NOT IN (SELECT word FROM rx.frequent_words)
),
rare_sequences AS (
    SELECT p.seq AS norm, 'RARE' AS label, 1 AS n
    FROM person_sequences AS p
    CROSS JOIN unnest(string_split(p.seq, ' ')) AS u(word)
    LEFT JOIN few_words AS f ON f.word = u.word
    GROUP BY p.seq
    -- (a run with a word that fewer than k persons write is covered by that word, always
    -- replaced: "Hotel [RARE]" rather than "[RARE]" for "Hotel Brekke". The audit passes such a
    -- run too, residual.sql.)
    HAVING count(f.word) = 0
),
-- The sequences that fewer than k persons write: a name beside another name in one of them is
-- taken (4.) as a name of its own.
rare_wholes AS (
    SELECT words
    FROM written_sequences
    GROUP BY words
    HAVING count(*) < (SELECT k FROM rx.params)
),
-- The words whose neighbours 4. takes. (A name found beside one is a name needle like any other:
-- corpus_needles below makes it a term of everyone who writes it with a capital, as it makes a
-- part of a PERSON term.)
replaced_words AS (
    SELECT word FROM few_words
    UNION
    SELECT lower(u.word)
    FROM found CROSS JOIN unnest(regexp_extract_all(term, '[\pL\pN_]+')) AS u(word)
    WHERE label = 'PERSON' AND source <> 'identifier'
),
-- (the names that are none of the most frequent words, looked up by joins: an IN subquery for
-- each test was a hash table of its own, and under `apply --memory-limit 64MB` the demo's
-- statement ran out of memory now and then)
lone_names AS (
    SELECT n.word FROM rx.name_words AS n ANTI JOIN rx.frequent_words AS f ON f.word = n.word
),
name_neighbours AS (
    -- (PERSON where it is a sensitive label, else RARE where the guard is on; with neither, a
    -- needle of a label that is not sensitive would only disturb linking)
    SELECT DISTINCT p.word AS norm, l.label, 1 AS n
    FROM (SELECT min(label) AS label FROM rx.labels WHERE label IN ('PERSON', 'RARE')) AS l
    CROSS JOIN (
        SELECT d.words[a.i] AS word, d.words[a.i + b.step] AS beside, r.words IS NOT NULL AS rare
        -- (each distinct sequence once: most recur in many texts)
        FROM (SELECT DISTINCT words FROM sequence_words) AS d
        LEFT JOIN rare_wholes AS r ON r.words = d.words
        CROSS JOIN unnest(range(1, array_length(d.words) + 1)) AS a(i)
        CROSS JOIN unnest([-1, 1]) AS b(step)
        WHERE a.i + b.step BETWEEN 1 AND array_length(d.words)
    ) AS p
    SEMI JOIN lone_names AS w ON w.word = p.word
    LEFT JOIN lone_names AS nb ON nb.word = p.beside
    LEFT JOIN replaced_words AS rw ON rw.word = p.beside
    WHERE l.label IS NOT NULL AND length(p.word) > 1
      AND (rw.word IS NOT NULL OR p.rare AND nb.word IS NOT NULL)
),
candidates AS (
    SELECT norm, label, sum(n) AS n
    FROM (SELECT norm, label, n FROM found UNION ALL SELECT * FROM parts
          UNION ALL SELECT * FROM rare_words UNION ALL SELECT * FROM rare_sequences
          UNION ALL SELECT * FROM name_neighbours) AS c
    GROUP BY ALL
)
SELECT norm, label
FROM (
    SELECT norm, label,
           row_number() OVER (PARTITION BY norm
                              ORDER BY label IN (SELECT label FROM rx.labels) DESC, n DESC, label) AS rn
    FROM candidates
) AS ranked
-- (text.allow: never a term, nor a rare word)
WHERE rn = 1 AND NOT list_contains(CAST($allow AS VARCHAR[]), norm);

-- `corpus`: the needle counts for everyone who writes it (for a cased one, with capitals); the
-- others count only for the persons who had them tagged (own_surfaces). All are searched in
-- one pass, so that overlapping matches of both kinds are resolved together (resolve_matches.sql).
DROP TABLE person_tokens;

CREATE OR REPLACE TEMP TABLE corpus_needles AS
-- (a surface of several common words, "New York", "Red Cross", goes to everyone as well: cased,
-- it counts only where each of its words is capitalised. A single Latin letter or digit names
-- no one: the "3" that the model took for a MONEY here and there stays a term of those it was
-- tagged for, as a single common word does, instead of taking every bare "3" of the corpus. One
-- character of another script, a Chinese surname "李", goes to everyone.)
SELECT norm, label, cased,
       identifier OR (NOT cased OR name OR words > 1 OR label = 'RARE') AND NOT regexp_matches(norm, '^[0-9a-z]$')
           AS corpus
FROM (
    SELECT l.norm, l.label, count(*) AS words,
           l.label IN (SELECT upper(column_name) FROM rx.identifier_values) AS identifier,
           -- (a rare guard's dictionary word, "Olaf", names someone only where written with a
           -- capital: one who writes "hehe" in lower case only keeps it, though another writes
           -- "Hehe" inside a sentence)
           bool_and(w.word IN (SELECT word FROM rx.common_words))
               OR l.label = 'RARE' AND bool_and(w.word IN (SELECT word FROM rx.dictionary_words)) AS cased,
           -- (a name, but not one of the most frequent words: "George" goes, "Will" stays)
           bool_and(w.word IN (SELECT word FROM rx.name_words) AND w.word NOT IN (SELECT word FROM rx.frequent_words))
               AS name
    FROM needle_labels AS l
    CROSS JOIN unnest(regexp_extract_all(l.norm, '[\pL\pN_]+')) AS w(word)
    GROUP BY l.norm, l.label
) AS n;

-- The surfaces each person had themselves: found in that person's texts in any case.
CREATE OR REPLACE TEMP TABLE own_surfaces AS
SELECT DISTINCT person, norm
FROM terms_found
WHERE label IN (SELECT label FROM rx.labels) OR source = 'identifier';
