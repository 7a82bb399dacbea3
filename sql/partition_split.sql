-- Apply one level: in every open partition take the allowable candidate of highest priority
-- (ties: name, then kind), give the two sides new ids, and move the persons.
CREATE OR REPLACE TEMP TABLE choice AS
SELECT *, row_number() OVER (ORDER BY partition_id) AS r
FROM (
    SELECT *, row_number() OVER (PARTITION BY partition_id ORDER BY priority DESC, name, kind) AS rn
    FROM candidates
    WHERE allowable
) AS ranked
WHERE rn = 1;

INSERT INTO rx.split_candidates
SELECT $level, c.partition_id, c.kind, c.name, c.span, c.bias, c.priority, c.cut_op, c.cut_value, c.cut_term,
       c.left_size, c.size - c.left_size, c.allowable,
       ch.partition_id IS NOT NULL AND ch.kind = c.kind AND ch.name = c.name
FROM candidates AS c
LEFT JOIN choice AS ch ON ch.partition_id = c.partition_id AND ch.kind = c.kind AND ch.name = c.name;

CREATE OR REPLACE TEMP TABLE new_ids AS
SELECT partition_id,
       (SELECT max(partition_id) FROM rx.partition_tree) + 2 * r - 1 AS left_id,
       (SELECT max(partition_id) FROM rx.partition_tree) + 2 * r AS right_id
FROM choice;

CREATE OR REPLACE TEMP TABLE moves AS
SELECT c.person,
       CASE
           WHEN coalesce(CASE ch.cut_op
                    WHEN 'lt' THEN pk.key < ch.cut_value
                    WHEN 'le' THEN pk.key <= ch.cut_value
                    ELSE pt.person IS NOT NULL
                END, false) THEN i.left_id
           ELSE i.right_id
       END AS partition_id
FROM current_persons AS c
JOIN choice AS ch ON ch.partition_id = c.partition_id
JOIN new_ids AS i ON i.partition_id = c.partition_id
LEFT JOIN level_keys AS pk
       ON ch.kind = 'relational' AND pk.person = c.person AND pk.attribute = ch.name
LEFT JOIN rx.person_terms AS pt
       ON ch.kind = 'textual' AND pt.person = c.person AND pt.label = ch.name AND pt.norm = ch.cut_term;

INSERT INTO rx.splits
SELECT $level, ch.partition_id,
       CASE WHEN ch.kind = 'relational' THEN ch.name END,
       CASE WHEN ch.kind = 'textual' THEN ch.name END,
       ch.kind,
       CASE ch.cut_op
           WHEN 'has' THEN 'has ' || ch.cut_term
           WHEN 'lt' THEN '< ' || CAST(ch.cut_value AS VARCHAR)
           ELSE '<= ' || CAST(ch.cut_value AS VARCHAR)
       END,
       ch.cut_value, ch.cut_term, ch.priority, i.left_id, i.right_id, ch.left_size, ch.size - ch.left_size
FROM choice AS ch
JOIN new_ids AS i ON i.partition_id = ch.partition_id;

-- (an equi-join on the child id: a join on "IN (left_id, right_id)" is a nested loop)
INSERT INTO rx.partition_tree
SELECT m.partition_id, i.parent_id, $level + 1, count(*)
FROM moves AS m
JOIN (
    SELECT partition_id AS parent_id, left_id AS child_id FROM new_ids
    UNION ALL
    SELECT partition_id, right_id FROM new_ids
) AS i ON i.child_id = m.partition_id
GROUP BY m.partition_id, i.parent_id;

CREATE OR REPLACE TEMP TABLE assignment AS
SELECT a.person, coalesce(m.partition_id, a.partition_id) AS partition_id
FROM assignment AS a
LEFT JOIN moves AS m ON m.person = a.person;

CREATE OR REPLACE TEMP TABLE open_partitions AS
SELECT partition_id, size FROM rx.partition_tree
WHERE level = $level + 1 AND size >= 2 * (SELECT k FROM rx.params);
