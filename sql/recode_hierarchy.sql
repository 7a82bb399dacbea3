-- Attributes with a user hierarchy: the node at the lowest level where all the partition's
-- values share one node (level 0, the value itself, when there is one value). covered = the
-- distinct values of D* under that node, the leaves NCP counts; lo and hi = their smallest and
-- largest number (numeric: the values; nominal: ranks; ordinal: positions).
INSERT INTO rx.recoded_values
WITH present AS (
    SELECT DISTINCT p.partition_id, v.attribute, v.num
    FROM rx.qi_values AS v
    JOIN rx.partitions AS p ON p.person = v.person
    JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.hierarchy AND v.num IS NOT NULL
),
shared AS (
    SELECT pr.partition_id, pr.attribute, h.level, min(h.node) AS node
    FROM present AS pr
    JOIN rx.hierarchy_values AS h ON h.attribute = pr.attribute AND h.num = pr.num
    GROUP BY pr.partition_id, pr.attribute, h.level
    HAVING count(DISTINCT h.node) = 1
),
lowest AS (
    SELECT partition_id, attribute, min(level) AS level
    FROM shared
    GROUP BY partition_id, attribute
)
SELECT s.partition_id, s.attribute, s.node, min(u.num), max(u.num), count(DISTINCT u.num)
FROM lowest AS l
JOIN shared AS s ON s.partition_id = l.partition_id AND s.attribute = l.attribute AND s.level = l.level
JOIN rx.hierarchy_values AS u ON u.attribute = s.attribute AND u.level = s.level AND u.node = s.node
GROUP BY s.partition_id, s.attribute, s.node;
