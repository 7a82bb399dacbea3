-- The residual audit of `verify`: what a released text still says that few persons' original
-- texts say, found without rx.terms, so that a term no recognizer tagged shows up too.
--
-- A suspect is a token of a released text (lower case, $token, two characters or more) that can
-- name someone and that the original texts (rx.dataset's text columns, residual_originals) of
-- at least 1 and fewer than $k persons hold, counted over the whole corpus or over the persons
-- of the class of the person whose text shows it: a surname the recognizers missed, a badge
-- number, an address written by k persons in different classes ("olaf dot brekke at gmx dot de"),
-- which within each class singles its writer out. A token can name someone when it is no common
-- word of the language (rx_residual.common_words; a token with a digit never is) and no word of
-- its dictionary (rx_residual.dictionary_words), unless some original text writes it with a
-- capital inside a sentence ($inside: "Olaf") and the released text shows it with a capital;
-- with text.rare_guard = "strict" the dictionary is the common words. A token no original text
-- holds (a surrogate, a mask) identifies no one; one that k or more persons of the class wrote
-- singles none of them out.
-- The class of a person is what the release makes indistinguishable, as the k-anonymity check
-- has it (release.class_members_query: the same released quasi-identifiers and kept terms;
-- residual_classes): where the partitioner's two partitions share both, they are one class.
-- A capitalised sequence ("Hotel Astor", $sequence) is a suspect on the same terms, compared
-- token by token in lower case with the original texts' token runs, but only when none of its
-- tokens is rare in the corpus: a rare token already flags the sequence's rows, and a sequence
-- of common or widely written words ("Grand Canal Dock") can still be rarer than each of them.
-- Not new information, so not suspects: a token directly inside brackets ("[PERSON]",
-- "[PERSON_2]": a label the release writes) and a token of the same row's other released
-- columns (a recoded "(Leo,Pisces)" or "[24-36]" that the text shows too); a sequence is not
-- a suspect when all its tokens are such values of its row.
--
-- What it cannot see: a quasi-identifier spelled in common words only ("my wife's bakery on
-- the corner", "the red house by the lake"), a rare combination of common words that is not
-- capitalised or that runs five capitalised words or more, paraphrases, misspellings that no
-- original text holds in that form, facts that identify together but not alone (a token each of
-- >= k persons wrote), and a bracketed word the author wrote ("[Smith]"), which reads as a
-- label. It sees text only as tokens of letters, digits and underscores: "J.o.h.n" or
-- "4-8-3-9-2-0" split into pieces that are common or widely written and pass, and a token that k
-- persons write in different meanings ("Paris" the town and the name) passes as widely written.
-- The released texts are read from rx.audit (rx.audit_texts), which verify rebuilds from the
-- dataset and checks against rx.release row for row; the audit gives each row its person.

-- The dictionary words that some original text writes with a capital inside a sentence.
-- (each distinct run cut into words once, as corpus_needles.sql does: the corpus shape, 1.9 ->
-- 1.1 CPU s)
CREATE OR REPLACE TEMP TABLE residual_capitalised_inside AS
SELECT DISTINCT lower(word) AS word
FROM (SELECT unnest(regexp_extract_all(capitals, $capitalised)) AS word
      FROM (SELECT DISTINCT unnest(regexp_extract_all(text, $inside)) AS capitals
            FROM residual_originals
            WHERE text IS NOT NULL) AS r) AS w;

-- Every token of the released texts that can name someone, where it stands. The brackets are
-- matched only to tell a label from a word: "[24-36]" gives "24" and "36", "[PERSON]" nothing.
-- The texts are cut at the spaces, which no form holds, and each distinct piece is matched once:
-- a text's forms are its pieces' forms in order (the corpus shape: 4.5 CPU s of matches over the
-- texts against 1.2 for the cut; its pieces repeat, 2,700 distinct ones). Whether a written form
-- can name someone is decided once per form of a distinct piece, not per token (the blog sample:
-- 157,000 of them for 2.6 million tokens; judging each token took half the statement's time);
-- the tokens are then those of the pieces whose forms can. The pieces, their distinct forms and the tokens
-- are three statements: a filter on a form (its length) is otherwise pushed below the DISTINCT
-- and run on every piece (on the corpus shape 7.5 of the 17 CPU s of a statement that did all three).
CREATE OR REPLACE TEMP TABLE residual_released_pieces AS
SELECT row_id, person, attribute, string_split(text, ' ') AS pieces
FROM rx.audit_texts
WHERE text IS NOT NULL;

-- (a piece of no form, "" between two spaces or "--", has no row)
CREATE OR REPLACE TEMP TABLE residual_distinct_forms AS
SELECT piece, unnest(regexp_extract_all(piece, $bracketed_token)) AS bracketed
FROM (SELECT DISTINCT unnest(pieces) AS piece FROM residual_released_pieces) AS p;

-- (unnest in the select list: a lateral join copies each text along with each of its pieces.)
-- (naming_forms materialized: else the optimizer joins every piece to every form first and
-- drops the common and dictionary words after, on each of the blog sample's 2.6 million pieces:
-- 0.74 s against 0.12.)
CREATE OR REPLACE TEMP TABLE residual_released AS
WITH naming_forms AS MATERIALIZED (
    SELECT t.piece, t.token, t.written
    FROM (
        SELECT piece, lower(written) AS token, written
        FROM (
            SELECT piece, trim(bracketed, '[]') AS written
            FROM residual_distinct_forms
            WHERE NOT (bracketed LIKE '[%]')
        ) AS w
    ) AS t
    ANTI JOIN rx_residual.common_words AS c ON c.word = t.token
    LEFT JOIN rx_residual.dictionary_words AS d ON d.word = t.token
    LEFT JOIN residual_capitalised_inside AS i ON i.word = t.token
    -- (a single character names no one, as the rare guard has it: corpus_needles.sql)
    -- (a dictionary word only where it is written with a capital, as the guard takes it)
    WHERE length(t.token) > 1 AND (d.word IS NULL OR i.word IS NOT NULL AND regexp_matches(t.written, '^\p{Lu}'))
)
SELECT o.row_id, o.person, o.attribute, n.token, n.written
FROM (SELECT row_id, person, attribute, unnest(pieces) AS piece FROM residual_released_pieces) AS o
JOIN naming_forms AS n ON n.piece = o.piece;

-- Every capitalised sequence of the released texts. (The pattern's own first letter could start
-- inside a word, "iPhone Pro" giving "Phone Pro"; $sequence matches it after a non-word
-- character and the sequence is its first group.)
CREATE OR REPLACE TEMP TABLE residual_sequences AS
WITH raw AS (
    SELECT row_number() OVER (ORDER BY row_id, attribute, phrase) AS seq_id, row_id, person, attribute, phrase,
           regexp_extract_all(lower(phrase), $token) AS tokens
    FROM (
        SELECT row_id, person, attribute, unnest(regexp_extract_all(text, $sequence, 1)) AS phrase
        FROM rx.audit_texts
        WHERE text IS NOT NULL
    ) AS t
),
-- A sequence is compared without the most frequent words at its ends ("Good English" is the
-- word "English" at a sentence's start), as the rare-token guard takes it (corpus_needles.sql).
inner_bounds AS (
    SELECT r.seq_id, min(u.i) AS first_i, max(u.i) AS last_i
    FROM raw AS r
    CROSS JOIN unnest(range(1, array_length(r.tokens) + 1)) AS u(i)
    WHERE r.tokens[u.i] NOT IN (SELECT word FROM rx_residual.frequent_words)
    GROUP BY r.seq_id
)
-- A run of five or more capitalised words is a title or a shouted sentence ("I CANT EVEN LOOK AT
-- MY OWN BLOG", "If You Had To Eat One Thing"), not a name: rare as a phrase, as most sentences
-- are, it is no suspect (its rare words are, each on its own; the guard takes runs of two to four).
SELECT r.row_id, r.person, r.attribute, r.phrase, list_slice(r.tokens, b.first_i, b.last_i) AS tokens
FROM raw AS r
JOIN inner_bounds AS b ON b.seq_id = r.seq_id
WHERE b.last_i > b.first_i AND array_length(r.tokens) < 5;

-- Where the original texts hold a released token that can name someone or the first token of
-- a capitalised sequence: the person, the token and the next three tokens. The only pass
-- over the original texts' lower-case tokens (32 million on the corpus shape) serves both counts
-- below. (A table of every text's token list, read again by each count: 1.2 CPU s more of the
-- 4.7 the pass took.) The tokens are cut as runs of word characters and spaces ($token_run),
-- then at the spaces, dropping the empty strings that two spaces leave: the same tokens as
-- $token gives, in the same order, for a regular-expression match per run instead of per token
-- (the corpus shape: 4.6 against 32 million matches, 2.7 against 3.9 CPU s).
-- (The tokens looked for are a table of their own: as a subquery, the join was estimated larger
-- than the texts' tokens and built its hash table on those, spilling: 11 CPU s.)
CREATE OR REPLACE TEMP TABLE residual_wanted AS
SELECT token FROM residual_released
UNION
SELECT tokens[1] FROM residual_sequences;

CREATE OR REPLACE TEMP TABLE residual_original_hits AS
SELECT DISTINCT p.person, p.token, [p.token, p.second_token, p.third_token, p.fourth_token] AS run
FROM (SELECT o.person, unnest(o.tokens) AS token, unnest(o.tokens[2:]) AS second_token,
             unnest(o.tokens[3:]) AS third_token, unnest(o.tokens[4:]) AS fourth_token
      FROM (SELECT person, list_filter(flatten(list_transform(regexp_extract_all(lower(text), $token_run),
                                                              lambda r: string_split(r, ' '))), lambda t: t <> '') AS tokens
            FROM residual_originals
            WHERE text IS NOT NULL) AS o) AS p
SEMI JOIN residual_wanted AS w ON w.token = p.token;

-- How many persons' original texts hold each released token that can name someone, in the
-- corpus, and in each class that holds it.
CREATE OR REPLACE TEMP TABLE residual_token_holders AS
SELECT DISTINCT h.person, h.token
FROM residual_original_hits AS h
SEMI JOIN residual_released AS r ON r.token = h.token;

CREATE OR REPLACE TEMP TABLE residual_token_persons AS
SELECT c.token, count(f.person) AS persons
FROM (SELECT DISTINCT token FROM residual_released) AS c
LEFT JOIN residual_token_holders AS f ON f.token = c.token
GROUP BY c.token;

CREATE OR REPLACE TEMP TABLE residual_token_class_persons AS
SELECT f.token, k.class_id, count(*) AS persons
FROM residual_token_holders AS f
JOIN residual_classes AS k ON k.person = f.person
GROUP BY f.token, k.class_id;

-- How many persons' original texts hold each sequence with no suspect token, as a run of
-- consecutive tokens: a text's run is compared with the sequence only where the sequence's first
-- token stands. (Every text position with its next two tokens, joined to the sequences' first
-- three tokens: 32 million rows on three keys, 1.8 CPU s on the corpus shape.)
CREATE OR REPLACE TEMP TABLE residual_sequence_persons AS
WITH sequences AS (
    SELECT DISTINCT tokens FROM residual_sequences
),
with_rare_token AS (
    SELECT DISTINCT s.tokens
    FROM sequences AS s
    CROSS JOIN unnest(s.tokens) AS u(token)
    JOIN residual_token_persons AS p ON p.token = u.token
    WHERE p.persons BETWEEN 1 AND $k - 1
),
candidates AS (
    SELECT tokens, tokens[1] AS first_token, array_length(tokens) AS n
    FROM (SELECT tokens FROM sequences EXCEPT SELECT tokens FROM with_rare_token) AS c
),
found AS (
    SELECT DISTINCT c.tokens, h.person
    FROM residual_original_hits AS h
    JOIN candidates AS c ON c.first_token = h.token
    WHERE h.run[1:c.n] = c.tokens
)
SELECT c.tokens, count(f.person) AS persons, list(f.person) AS holders
FROM candidates AS c
LEFT JOIN found AS f ON f.tokens = c.tokens
GROUP BY c.tokens;

CREATE OR REPLACE TEMP TABLE residual_sequence_class_persons AS
SELECT p.tokens, k.class_id, count(*) AS persons
FROM (SELECT tokens, unnest(holders) AS person FROM residual_sequence_persons) AS p
JOIN residual_classes AS k ON k.person = p.person
GROUP BY p.tokens, k.class_id;

-- Where the released texts show a string that is rare for the person: the corpus or the
-- person's class holds it in 1 to k - 1 persons' texts (never less strict than the corpus
-- alone); original_persons is the lesser of the counts in that range. (A token that the class
-- does not hold at all, a surrogate, counts by the corpus.) `tokens` are the string's tokens,
-- for the comparison with its row's other columns below.
CREATE OR REPLACE TEMP TABLE residual_rare AS
SELECT 'token' AS kind, r.token AS suspect, [r.token] AS tokens,
       CASE WHEN coalesce(q.persons, 0) BETWEEN 1 AND $k - 1 THEN q.persons ELSE p.persons END AS original_persons,
       r.row_id, r.person, r.attribute, r.written AS shown
FROM residual_released AS r
JOIN residual_token_persons AS p ON p.token = r.token
LEFT JOIN residual_classes AS k ON k.person = r.person
LEFT JOIN residual_token_class_persons AS q ON q.token = r.token AND q.class_id = k.class_id
-- (a token that $widely or more persons of the corpus write is a word of the corpus's own,
-- "urllink": the rare guard passes it, corpus_needles.sql, common_words.widely_written)
WHERE p.persons BETWEEN 1 AND $k - 1 OR q.persons BETWEEN 1 AND $k - 1 AND p.persons < $widely
UNION ALL
SELECT 'sequence', array_to_string(s.tokens, ' '), s.tokens,
       CASE WHEN coalesce(q.persons, 0) BETWEEN 1 AND $k - 1 THEN q.persons ELSE p.persons END,
       s.row_id, s.person, s.attribute, s.phrase
FROM residual_sequences AS s
JOIN residual_sequence_persons AS p ON p.tokens = s.tokens
LEFT JOIN residual_classes AS k ON k.person = s.person
LEFT JOIN residual_sequence_class_persons AS q ON q.tokens = s.tokens AND q.class_id = k.class_id
WHERE p.persons BETWEEN 1 AND $k - 1 OR q.persons BETWEEN 1 AND $k - 1;

-- The tokens of the other released columns of those rows only, one a row (the lists of every
-- row's tokens: 3.4 million values grouped by row, 3.4 CPU s on the corpus shape, where 35 % of
-- the rows show a rare string). Each distinct value is cut into tokens once (the corpus shape:
-- 2,223 distinct values).
CREATE OR REPLACE TEMP TABLE residual_row_tokens AS
WITH row_values AS (
    SELECT v.row_id, v.value
    FROM residual_row_values AS v
    SEMI JOIN residual_rare AS r ON r.row_id = v.row_id
    WHERE v.value IS NOT NULL
),
value_tokens AS (
    SELECT value, unnest(regexp_extract_all(lower(value), $token)) AS token
    FROM (SELECT DISTINCT value FROM row_values) AS d
)
SELECT DISTINCT v.row_id, t.token
FROM row_values AS v
JOIN value_tokens AS t ON t.value = v.value;

-- The suspects, one row per suspect and person whose released texts show it: how many
-- persons' original texts hold it, how often the person's released texts show it, and the
-- first such row with a piece of its text around the first place it is written so. A string
-- all of whose tokens are values of its row's other columns is none (a token: when it is one).
WITH strings AS (
    SELECT DISTINCT row_id, tokens FROM residual_rare
),
new_to_row AS (
    SELECT DISTINCT s.row_id, s.tokens
    FROM strings AS s
    CROSS JOIN unnest(s.tokens) AS u(token)
    ANTI JOIN residual_row_tokens AS v ON v.row_id = s.row_id AND v.token = u.token
),
occurrences AS (
    SELECT r.kind, r.suspect, r.original_persons, r.row_id, r.person, r.attribute, r.shown
    FROM residual_rare AS r
    SEMI JOIN new_to_row AS n ON n.row_id = r.row_id AND n.tokens = r.tokens
),
per_person AS (
    SELECT kind, suspect, original_persons, person, count(*) AS occurrences,
           min(struct_pack(row_id := row_id, attribute := attribute, shown := shown)) AS seen
    FROM occurrences
    GROUP BY kind, suspect, original_persons, person
),
examples AS (
    SELECT kind, suspect, original_persons, person, occurrences, struct_extract(seen, 'row_id') AS row_id,
           struct_extract(seen, 'attribute') AS attribute, struct_extract(seen, 'shown') AS shown
    FROM per_person
)
SELECT p.kind, p.suspect, p.original_persons, p.person, p.occurrences, p.row_id, p.attribute,
       substr(t.text, greatest(1, strpos(t.text, p.shown) - 40), length(p.shown) + 80) AS example
FROM examples AS p
JOIN rx.audit_texts AS t ON t.row_id = p.row_id AND t.attribute = p.attribute
ORDER BY p.original_persons, p.kind DESC, p.suspect, p.person;
