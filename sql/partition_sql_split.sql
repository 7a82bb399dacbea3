-- One level of the SQL partitioner, second part: in every open partition the allowable
-- candidate of highest priority (ties: name, then kind) is cut, its sides get new ids, and its
-- persons move to them.

-- A cut is allowable when both its sides keep k persons.
CREATE OR REPLACE TEMP TABLE level_ranked AS
SELECT s.*,
       s.left_size >= p.k AND s.size - s.left_size >= p.k AS allowable,
       row_number() OVER (PARTITION BY s.partition_id
                          ORDER BY s.left_size >= p.k AND s.size - s.left_size >= p.k DESC,
                                   s.priority DESC, s.name_text, s.kind) AS preference
FROM level_scored AS s
CROSS JOIN rx.params AS p;

-- The sides of the r-th cut partition (in id order) get ids top + 2r - 1 and top + 2r, top
-- being the highest id so far.
CREATE OR REPLACE TEMP TABLE level_cuts AS
SELECT c.partition_id, c.size, c.kind, c.name_text, c.op, c.cut_value, c.cut_term, c.left_size,
       t.top + 2 * row_number() OVER (ORDER BY c.partition_id) - 1 AS left_id
FROM level_ranked AS c
CROSS JOIN (SELECT 1 + 2 * count(*) AS top FROM partition_candidates WHERE chosen) AS t
WHERE c.allowable AND c.preference = 1;

CREATE OR REPLACE TEMP TABLE partition_candidates AS
SELECT * FROM partition_candidates
UNION ALL
SELECT CAST($level AS INTEGER), c.partition_id, c.size, CAST(c.kind AS TINYINT), CAST(c.name AS INTEGER), c.has_span,
       c.span, c.bias, c.priority, CAST(c.op AS TINYINT), c.cut_value, CAST(c.cut_term AS BIGINT),
       CAST(c.left_size AS BIGINT), c.allowable, cut.left_id IS NOT NULL, coalesce(cut.left_id, 0)
FROM level_ranked AS c
LEFT JOIN level_cuts AS cut ON cut.partition_id = c.partition_id AND c.allowable AND c.preference = 1;

-- Who goes left, by the tests that counted the left sides: a key below the median, a value
-- among the first ranks, the cut term held.
CREATE OR REPLACE TEMP TABLE partition_assignment AS
WITH goes_left AS (
    SELECT c.person
    FROM level_persons AS c
    JOIN level_cuts AS cut ON cut.partition_id = c.partition_id AND cut.op = 1
    JOIN rx.person_keys AS k ON k.person = c.person AND k.attribute = cut.name_text AND k.key < cut.cut_value
    UNION
    SELECT c.person
    FROM level_persons AS c
    JOIN level_cuts AS cut ON cut.partition_id = c.partition_id AND cut.op = 2
    JOIN rx.person_values AS v ON v.person = c.person AND v.attribute = cut.name_text
    JOIN level_ranks AS r ON r.partition_id = c.partition_id AND r.attribute = v.attribute AND r.num = v.num
    WHERE r.rank < cut.cut_value
    UNION
    SELECT c.person
    FROM level_persons AS c
    JOIN level_cuts AS cut ON cut.partition_id = c.partition_id AND cut.op = 3
    JOIN rx.person_terms AS t ON t.person = c.person AND t.term_id = cut.cut_term
)
SELECT a.person, a.idx,
       CASE
           WHEN cut.partition_id IS NULL THEN a.partition_id
           WHEN g.person IS NOT NULL THEN cut.left_id
           ELSE cut.left_id + 1
       END AS partition_id
FROM partition_assignment AS a
LEFT JOIN level_cuts AS cut ON cut.partition_id = a.partition_id
LEFT JOIN goes_left AS g ON g.person = a.person;

-- The sides of at least 2k persons stay open.
CREATE OR REPLACE TEMP TABLE open_partitions AS
SELECT sides.partition_id, sides.size
FROM (
    SELECT left_id AS partition_id, left_size AS size FROM level_cuts
    UNION ALL
    SELECT left_id + 1, size - left_size FROM level_cuts
) AS sides
CROSS JOIN rx.params AS p
WHERE sides.size >= 2 * p.k;
