-- The partitioner's result as tables (partition.py scores and applies the cuts, on arrays). It
-- hands over partition_candidates, one row per candidate cut of every level, and
-- partition_assignment, each person's final partition, the person by its idx in person_index
-- (which partition.py numbered from 0 in the order of person). A candidate comes with codes: kind 0
-- relational, 1 textual; name, the attribute's position or the label's id; op 0 no cut, 1 lt,
-- 2 le, 3 has; cut_term, the term's id (0: none); and left_id, for a chosen cut the id of its
-- left side (its right side is left_id + 1). A span where has_span is false is none (GDF).
CREATE OR REPLACE TEMP VIEW level_candidates AS
SELECT c.level, c.partition_id, c.size,
       CASE c.kind WHEN 0 THEN 'relational' ELSE 'textual' END AS kind,
       CASE c.kind WHEN 0 THEN a.attribute ELSE l.name END AS name,
       CASE WHEN c.has_span THEN c.span END AS span, c.bias, c.priority,
       CASE c.op WHEN 1 THEN 'lt' WHEN 2 THEN 'le' WHEN 3 THEN 'has' END AS cut_op,
       CASE WHEN c.op IN (1, 2) THEN c.cut_value END AS cut_value, t.norm AS cut_term,
       c."left" AS left_size, c.size - c."left" AS right_size, c.allowable, c.chosen, c.left_id
FROM partition_candidates AS c
LEFT JOIN rx.attributes AS a ON c.kind = 0 AND a.position = c.name
LEFT JOIN rx.domain AS l ON c.kind = 1 AND l.kind = 'textual' AND l.label_id = c.name
LEFT JOIN rx.term_ids AS t ON t.term_id = c.cut_term;

-- (Each table is created from its query: DuckDB 2.0.0 loses a later insert of 122,880 rows or
-- more into a table created empty in the same transaction; see terms_found in terms.sql.)
CREATE OR REPLACE TABLE rx.split_candidates AS
SELECT level, partition_id, kind, name, span, bias, priority, cut_op, cut_value, cut_term,
       left_size, right_size, allowable, chosen
FROM level_candidates;

CREATE OR REPLACE TABLE rx.splits AS
SELECT level, partition_id,
       CASE WHEN kind = 'relational' THEN name END AS attribute,
       CASE WHEN kind = 'textual' THEN name END AS label,
       kind,
       CASE cut_op
           WHEN 'has' THEN 'has ' || cut_term
           WHEN 'lt' THEN '< ' || CAST(cut_value AS VARCHAR)
           ELSE '<= ' || CAST(cut_value AS VARCHAR)
       END AS cut,
       cut_value, cut_term, priority, left_id, left_id + 1 AS right_id, left_size, right_size
FROM level_candidates
WHERE chosen;

-- Every partition ever made, from the one holding every person (id 1, level 0); a leaf is a
-- final partition.
CREATE OR REPLACE TABLE rx.partition_tree AS
SELECT CAST(1 AS BIGINT) AS partition_id, CAST(NULL AS BIGINT) AS parent_id, 0 AS level, count(*) AS size
FROM rx.person_ids
UNION ALL
SELECT left_id, partition_id, level + 1, left_size FROM level_candidates WHERE chosen
UNION ALL
SELECT left_id + 1, partition_id, level + 1, right_size FROM level_candidates WHERE chosen;

CREATE OR REPLACE TABLE rx.partitions AS
SELECT p.person, a.partition_id
FROM partition_assignment AS a
JOIN person_index AS p ON p.idx = a.idx
ORDER BY a.partition_id, p.person;

-- DuckDB plans a join of two tables written in the same transaction (the run's) without their
-- distinct counts, which ANALYZE computes: it then took the person's terms joined to their
-- partitions for a few rows, and hashed all 3 million of them to look up the 20,000 kept terms
-- (replaced_occurrences in operator_suppressed.sql, read twice: 1.5 s each time on the blog
-- corpus shape, 0.2 s with the counts). Analyzing this table takes a millisecond.
ANALYZE rx.partitions;

DROP VIEW level_candidates;
DROP TABLE person_index;
