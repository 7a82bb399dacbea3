-- Apply one level: in every open partition take the allowable candidate of highest priority
-- (ties: name, then kind), give the two sides new ids, and move the persons.
CREATE OR REPLACE TEMP TABLE choice AS
WITH chosen AS (
    SELECT *, row_number() OVER (ORDER BY partition_id) AS r
    FROM (
        SELECT *, row_number() OVER (PARTITION BY partition_id ORDER BY priority DESC, name, kind) AS rn
        FROM candidates
        WHERE allowable
    ) AS ranked
    WHERE rn = 1
)
SELECT c.*, t.top + 2 * c.r - 1 AS left_id, t.top + 2 * c.r AS right_id
FROM chosen AS c
CROSS JOIN (SELECT max(partition_id) AS top FROM rx.partition_tree) AS t;

INSERT INTO rx.split_candidates
SELECT $level, c.partition_id, c.kind, c.name, c.span, c.bias, c.priority, c.cut_op, c.cut_value, c.cut_term,
       c.left_size, c.size - c.left_size, c.allowable,
       ch.partition_id IS NOT NULL AND ch.kind = c.kind AND ch.name = c.name
FROM candidates AS c
LEFT JOIN choice AS ch ON ch.partition_id = c.partition_id AND ch.kind = c.kind AND ch.name = c.name;

INSERT INTO rx.splits
SELECT $level, partition_id,
       CASE WHEN kind = 'relational' THEN name END,
       CASE WHEN kind = 'textual' THEN name END,
       kind,
       CASE cut_op
           WHEN 'has' THEN 'has ' || cut_term
           WHEN 'lt' THEN '< ' || CAST(cut_value AS VARCHAR)
           ELSE '<= ' || CAST(cut_value AS VARCHAR)
       END,
       cut_value, cut_term, priority, left_id, right_id, left_size, size - left_size
FROM choice;

-- A side's size is its candidate's count: both strategies count the persons a cut puts left by
-- the test the move below makes. A chosen cut is allowable, so no side is empty.
INSERT INTO rx.partition_tree
SELECT left_id, partition_id, $level + 1, left_size FROM choice
UNION ALL
SELECT right_id, partition_id, $level + 1, size - left_size FROM choice;

-- The persons of a cut partition move to its left side when their key passes the cut (a missing
-- key does not) or when they hold the cut term; the others stay where they are.
CREATE OR REPLACE TEMP TABLE assignment AS
SELECT a.person,
       CASE
           WHEN ch.partition_id IS NULL THEN a.partition_id
           WHEN coalesce(CASE ch.cut_op
                    WHEN 'lt' THEN pk.key < ch.cut_value
                    WHEN 'le' THEN pk.key <= ch.cut_value
                    ELSE pt.person IS NOT NULL
                END, false) THEN ch.left_id
           ELSE ch.right_id
       END AS partition_id
FROM assignment AS a
LEFT JOIN choice AS ch ON ch.partition_id = a.partition_id
LEFT JOIN level_keys AS pk
       ON ch.kind = 'relational' AND pk.person = a.person AND pk.attribute = ch.name
LEFT JOIN rx.person_terms AS pt
       ON ch.kind = 'textual' AND pt.person = a.person AND pt.label = ch.name AND pt.norm = ch.cut_term;

CREATE OR REPLACE TEMP TABLE open_partitions AS
SELECT partition_id, size FROM rx.partition_tree
WHERE level = $level + 1 AND size >= 2 * (SELECT k FROM rx.params);
