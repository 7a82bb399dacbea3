-- Of the corpus search's matches that count for their person (counted_matches: text_id,
-- start_pos, end_pos, needle), overlapping ones are resolved as terms.sql resolves tagged spans:
-- the longer stays, then the earlier ("new york city" over "york", "George and Mervat" over
-- "George"). rx_find_corpus returns all of them because which ones count is only known here: a
-- longer match that does not count for this person must not hide a shorter one that does.

-- A rare number inside a span that only may state an attribute ("36" of a CARDINAL "36 years
-- old") is left to linking: linked, the span's stating part is recoded; not linked, the span
-- becomes a RARE term (linking.sql). Not where a match of another surface takes the span apart
-- ("50" of the CARDINAL "224 50", a MONEY elsewhere): the span is gone then, and "224" with it.
-- A rare word that is no number ("30ish" of "5.30ish") stays a match: the span may yet give way
-- to another match ("5" of a MONEY elsewhere), and the word with it.
-- (Paired within buckets of 256 characters, as terms.sql pairs overlapping spans. A match is
-- told apart by its values, not by a rowid, which Spark has not: what decides on a match reads
-- only its values, so its duplicates go with it either way.)
DELETE FROM counted_matches
WHERE (text_id, start_pos, end_pos, needle) IN (
    WITH matches AS (
        SELECT m.text_id, m.needle, t.row_id, t.attribute, m.start_pos, m.end_pos,
               n.label = 'RARE' AND regexp_matches(m.needle, '^[0-9]+$') AS rare_number,
               unnest(range(m.start_pos // 256, greatest(m.end_pos - 1, m.start_pos) // 256 + 1)) AS bucket
        FROM counted_matches AS m
        JOIN corpus_needles AS n ON n.norm = m.needle
        JOIN rx.texts AS t ON t.text_id = m.text_id
    ),
    f AS (
        SELECT row_id, attribute, start_pos, end_pos, source, label,
               unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
        FROM terms_found
        WHERE source <> 'identifier' AND label NOT IN (SELECT label FROM rx.labels)
    ),
    paired AS (
        SELECT m.text_id, m.needle, m.start_pos AS match_start, m.end_pos AS match_end, m.rare_number,
               f.row_id, f.attribute, f.start_pos, f.end_pos
        FROM matches AS m
        JOIN f ON f.row_id = m.row_id AND f.attribute = m.attribute AND f.bucket = m.bucket
              AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
    )
    SELECT p.text_id, p.match_start, p.match_end, p.needle
    FROM paired AS p
    ANTI JOIN (SELECT row_id, attribute, start_pos, end_pos FROM paired WHERE NOT rare_number) AS apart
        ON apart.row_id = p.row_id AND apart.attribute = p.attribute
       AND apart.start_pos = p.start_pos AND apart.end_pos = p.end_pos
    -- (inside the span: a rare number longer than a span it overlaps stays a match, as below. The
    -- model cut a 20,000-digit run into spans of a few hundred digits, and each dropped the run's
    -- match: the run stayed readable, and only the audit saw it)
    WHERE p.rare_number AND p.start_pos <= p.match_start AND p.match_end <= p.end_pos
);

-- A rare match (label RARE: a rare word or capitalised run) that cuts through a tagged span takes
-- the span in: "York Musicians" of "New York Musicians", written by one blogger, over the GPE
-- "New York" that the partition shares. Dropped, as below, it left "Musicians" readable beside a
-- kept "New York", and the run singled its writer out whatever the model tagged (privacy wins:
-- docs/privacy.md, "Where two rules meet"). Widened, it covers the span whole and wins over it.
INSERT INTO counted_matches
SELECT m.text_id, CAST(least(m.start_pos, min(b.start_pos)) AS INTEGER) AS start_pos,
       CAST(greatest(m.end_pos, max(b.end_pos)) AS INTEGER) AS end_pos, m.needle
FROM counted_matches AS m
JOIN corpus_needles AS n ON n.norm = m.needle AND n.label = 'RARE'
JOIN blocking AS b ON b.text_id = m.text_id AND b.start_pos < m.end_pos AND m.start_pos < b.end_pos
WHERE b.source <> 'identifier'
  AND NOT (m.start_pos <= b.start_pos AND b.end_pos <= m.end_pos)
  AND NOT (b.start_pos <= m.start_pos AND m.end_pos <= b.end_pos)
GROUP BY m.text_id, m.start_pos, m.end_pos, m.needle;

-- A match that cuts through a tagged span, or lies inside one, is no candidate: the span is the
-- term there. Left in, it could win over a shorter match beside the span and then lose to the
-- span (propagate_terms.sql), and the shorter one's text stayed bare. A match that covers
-- tagged spans whole and is longer stays a candidate ("Dena how" over "Dena"; not over an
-- identifier).
-- (Paired within buckets of 256 characters, as terms.sql pairs overlapping spans: paired
-- within the whole text, a dense text's matches met all its spans. Most matches are the tagged
-- spans themselves, found again: 4.8 of the corpus shape's 4.9 million matches go, 3.3 million
-- of them at a span's very place. Those go by a join on the place alone, the others through the
-- buckets, and the table is made again of what stays: a DELETE of 4.8 million matches by their
-- values took 4.8 CPU s, this 1.5.)
CREATE OR REPLACE TEMP TABLE counted_matches AS
WITH apart AS (
    SELECT m.text_id, m.start_pos, m.end_pos, m.needle
    FROM counted_matches AS m
    ANTI JOIN blocking AS b
        ON b.text_id = m.text_id AND b.start_pos = m.start_pos AND b.end_pos = m.end_pos AND b.start_pos < b.end_pos
),
m AS (
    SELECT text_id, needle, start_pos, end_pos,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM apart
),
b AS (
    SELECT text_id, start_pos, end_pos, source,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM blocking
    WHERE text_id IN (SELECT text_id FROM apart)
),
cut AS (
    SELECT m.text_id, m.start_pos, m.end_pos, m.needle
    FROM m
    JOIN b ON b.text_id = m.text_id AND b.bucket = m.bucket AND b.start_pos < m.end_pos AND m.start_pos < b.end_pos
    WHERE NOT (m.start_pos <= b.start_pos AND b.end_pos <= m.end_pos
               AND m.end_pos - m.start_pos > b.end_pos - b.start_pos AND b.source <> 'identifier')
)
SELECT a.text_id, a.start_pos, a.end_pos, a.needle
FROM apart AS a
ANTI JOIN cut AS c
    ON c.text_id = a.text_id AND c.start_pos = a.start_pos AND c.end_pos = a.end_pos AND c.needle = a.needle;

-- Matches that overlap no other (the most, found by a running reach over each text's matches in
-- order) stay as they are; a text's clusters of overlapping ones go to rx_resolve
-- (udfs/corpus.py) with the text: the longest first, then each that overlaps none kept before it,
-- and one that would leave a word of its own bare is widened over the kept ones. (A self-join of
-- each text's matches compares every pair, in the square of their number.)
CREATE OR REPLACE TEMP TABLE resolved_matches AS
WITH distinct_matches AS (
    SELECT DISTINCT text_id, start_pos, end_pos, needle FROM counted_matches
),
reaching AS (
    SELECT *, max(end_pos) OVER (PARTITION BY text_id ORDER BY start_pos, end_pos DESC, needle
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM distinct_matches
),
clustered AS (
    SELECT *, sum(CASE WHEN reach IS NULL OR start_pos >= reach THEN 1 ELSE 0 END)
                  OVER (PARTITION BY text_id ORDER BY start_pos, end_pos DESC, needle ROWS UNBOUNDED PRECEDING) AS cluster
    FROM reaching
),
sized AS (
    SELECT *, count(*) OVER (PARTITION BY text_id, cluster) AS n FROM clustered
),
clusters AS (
    SELECT text_id, array_agg(struct_pack(start_pos := start_pos, end_pos := end_pos, needle := needle)) AS matches
    FROM sized
    WHERE n > 1
    GROUP BY text_id, cluster
),
chosen_in_clusters AS (
    SELECT c.text_id, unnest(rx_resolve(c.clusters, t.text)) AS m
    FROM (SELECT text_id, list(matches) AS clusters FROM clusters GROUP BY text_id) AS c
    JOIN rx.texts AS t ON t.text_id = c.text_id
)
SELECT text_id, start_pos, end_pos, needle FROM sized WHERE n = 1
UNION ALL
SELECT text_id, m.start_pos, m.end_pos, m.needle FROM chosen_in_clusters;
