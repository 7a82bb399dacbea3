-- Every occurrence of a sensitive surface in any text is a term, not only the occurrences the
-- recognizer tagged, and not only in the texts of the persons it was found for: otherwise a
-- suppressed term could survive in a sentence where the model missed it, or tagged only a part
-- ("Friday" of "Friday night"), and a name tagged in one person's text would stay readable in
-- everyone else's. The needles are corpus_needles.sql's. An occurrence takes the label the
-- person's tagged occurrences carry most often (a sensitive label before one that only may
-- state an attribute; ties: label name), or, for a person who never had it, the needle's.
-- A span of a label that only may state an attribute (CARDINAL "4:3", kept by terms.sql for
-- linking and dropped there unless it states a value) never hides a sensitive surface: where
-- they overlap, the sensitive surface wins. Below, "tagged spans" are the others.
CREATE OR REPLACE TEMP TABLE blocking AS
SELECT f.row_id, f.attribute, t.text_id, f.start_pos, f.end_pos, f.source
FROM terms_found AS f
JOIN rx.texts AS t ON t.row_id = f.row_id AND t.attribute = f.attribute
WHERE f.label IN (SELECT label FROM rx.labels) OR f.source = 'identifier';

-- The batches of the search below: runs of persons in their order, each with about a $batches-th
-- of the text. rx.texts lies in person order (rx.dataset's row_id; text column after text
-- column), so a batch's scan skips the row groups of the other batches: with hash(person) %
-- $batches for the batch, every batch would read all the texts.
CREATE OR REPLACE TEMP TABLE person_batches AS
WITH sizes AS (
    SELECT person, sum(octet_length(encode(text))) AS size
    FROM rx.texts
    GROUP BY person
),
running AS (
    SELECT person, sum(size) OVER (ORDER BY person) - size AS before, sum(size) OVER () AS total
    FROM sizes
)
SELECT least(coalesce(CAST(floor(before * $batches / nullif(total, 0)) AS INTEGER), 0), $batches - 1) AS batch,
       min(person) AS first_person, max(person) AS last_person
FROM running
GROUP BY ALL;

-- Linking's value mentions: each text is searched for its tuple's own values (the numbered
-- needle sets of mention_needles.sql), in calls of one person's texts each; the matches are
-- `own` (linking.sql reads them). (The matches are stored before
-- they meet another table: the optimizer cannot know how many a function returns, and would hash
-- all of them, each with its text, to join them.) The persons go in batches (sqlrun.run_file):
-- grouping all texts at once would hold them all in memory.
CREATE OR REPLACE TEMP TABLE found_matches (text_id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR,
                                            own BOOLEAN);

-- (see terms_found in terms.sql)
INSERT INTO found_matches (text_id) VALUES (NULL);
DELETE FROM found_matches WHERE text_id IS NULL;

INSERT INTO found_matches
WITH person_texts AS (
    SELECT t.person, array_agg(struct_pack(id := t.text_id, text := t.text, own := CAST(n.set_id AS INTEGER))) AS items
    FROM rx.texts AS t
    LEFT JOIN mention_needles AS n ON n.row_id = t.row_id
    WHERE t.person BETWEEN $first_person AND $last_person
      AND n.set_id IS NOT NULL
    GROUP BY t.person
)
SELECT m.id AS text_id, m.start_pos, m.end_pos, m.needle, m.own
FROM person_texts AS p
CROSS JOIN unnest(rx_find_texts_own(p.items, CAST([] AS VARCHAR[]))) AS u(m);

-- The corpus-wide search: every text, every needle (one automaton, rx_find_corpus).
-- (unnest in the select list: as a lateral join, each text was copied along with each match)
CREATE OR REPLACE TEMP TABLE corpus_matches AS
SELECT text_id, person, m.start_pos, m.end_pos, m.needle, m.capital
FROM (SELECT text_id, person, unnest(rx_find_corpus(text)) AS m FROM rx.texts) AS u;

-- (A capitalised run of the rare guard stays a needle however many persons write it: it is kept
-- where the partition shares it, corpus_needles.sql.)

-- A cased needle is a person's where that person writes it with a capital or had it tagged.
CREATE OR REPLACE TEMP TABLE person_needles AS
SELECT DISTINCT m.person, m.needle AS norm
FROM corpus_matches AS m
JOIN corpus_needles AS n ON n.norm = m.needle
WHERE n.corpus AND (m.capital OR NOT n.cased)
UNION
SELECT person, norm FROM own_surfaces;

-- Propagation follows the form that identifies: a surface of everyday words (every word of
-- Zipf 4.5 or more: "Hope", "US", "Love", "Summer"; not "Ben" or "Kyle", which a lower-case
-- writer may mean as names) counts only where it is written as a name (every word
-- capitalised, rx_written_as_name; a sentence's first word too, which may be a name), except
-- for a person who had it tagged, or as a direct identifier's value, in another form
-- (rx.any_case): a writer whose tagged "paris" or "kyle" is lower case writes names that way,
-- and each of their "paris" is the term. On the blog sample one tagged "Hope" or "Love" (a
-- title) made every "hope" and "love" of its writer a term: 51,000 everyday words of 2.7
-- million. The leak check (leaks.sql) and the sweep (sweep.sql) read an occurrence of such a
-- surface by the same test. Surfaces go by their key (rx_key: udfs/corpus.py): the automaton
-- finds all norms of a key at once ("Web Page" is the needle "web-page" too). (A table: verify
-- reads it.) The Python functions run once per distinct term and norm, not on every term found
-- (3.3 million rows on the corpus shape: 5.5 s). (`as_name` materialized: else the optimizer
-- pushes the filter on `written` below the DISTINCT, and the function ran on every term found
-- again: 8.2 of the statement's 9.8 thread-seconds on the corpus shape.)
CREATE OR REPLACE TABLE rx.any_case AS
WITH tagged AS (
    SELECT person, norm, term
    FROM terms_found
    WHERE label IN (SELECT label FROM rx.labels)
), as_name AS MATERIALIZED (
    SELECT term, rx_written_as_name(term) AS written
    FROM (SELECT DISTINCT term FROM tagged) AS d
), pairs AS (
    SELECT DISTINCT person, norm
    FROM (SELECT person, norm FROM terms_found WHERE source = 'identifier'
          UNION ALL
          SELECT t.person, t.norm FROM tagged AS t JOIN as_name AS n ON n.term = t.term WHERE NOT n.written) AS u
), keyed AS (
    SELECT norm, rx_key(norm) AS key
    FROM (SELECT DISTINCT norm FROM pairs WHERE norm IS NOT NULL) AS d
)
SELECT DISTINCT p.person, k.key
FROM pairs AS p
LEFT JOIN keyed AS k ON k.norm = p.norm;

-- (every needle of everyday words, whether or not its words are common in the language: the
-- corpus's own everyday words, "hella", are no common words, corpus_needles.sql; the leak check
-- reads every surface of everyday words so)
-- (rx_key, a Python function, only on those needles: on every needle it cost 1.5 s)
CREATE OR REPLACE TEMP TABLE cased_keys AS
SELECT norm, rx_key(norm) AS key
FROM (
    SELECT n.norm
    FROM corpus_needles AS n
    CROSS JOIN unnest(regexp_extract_all(n.norm, '[\pL\pN_]+')) AS w(word)
    GROUP BY n.norm
    HAVING bool_and(w.word IN (SELECT word FROM rx.everyday_words))
) AS e;

-- The matches that count; the overlaps among them are resolved next (resolve_matches.sql).
CREATE OR REPLACE TEMP TABLE counted_matches AS
SELECT m.text_id, m.start_pos, m.end_pos, m.needle
FROM corpus_matches AS m
SEMI JOIN person_needles AS p ON p.person = m.person AND p.norm = m.needle
LEFT JOIN cased_keys AS k ON k.norm = m.needle
-- (a left join, not `(m.person, k.key) IN (...)`: DuckDB's mark join for that took 1.3 s of 353,000
-- matches on the blog sample, the join 0.1 s; rx.any_case is distinct)
LEFT JOIN rx.any_case AS a ON a.person = m.person AND a.key = k.key
WHERE m.capital OR k.key IS NULL OR a.key IS NOT NULL;

-- Every occurrence of a person's surfaces, before the choices among overlapping ones: those no
-- term holds in the end are the sweep's (linking.sql, sweep.sql).
CREATE OR REPLACE TEMP TABLE surface_occurrences AS
SELECT text_id, start_pos, end_pos, needle FROM counted_matches;

-- (resolve_matches.sql, then propagate_terms.sql continue from here: recognize.build_terms)
