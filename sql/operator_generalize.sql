-- One pass of generalization. Each term takes its lowest candidate node; a candidate that some
-- person of the partition does not end up showing (the person's terms all took lower nodes) is
-- dropped, and the pass is repeated until no candidate is dropped. Then every node shown in a
-- partition is shown by every person of it, so it counts as kept there.
CREATE OR REPLACE TEMP TABLE gen_choice AS
SELECT partition_id, person, label, norm, kept, level, node, display, share
FROM (
    SELECT o.partition_id, o.person, o.label, o.norm, o.kept, o.level, o.node, o.display, o.share,
           row_number() OVER (PARTITION BY o.person, o.label, o.norm ORDER BY o.level) AS rn
    FROM gen_options AS o
    JOIN gen_candidates AS c ON c.partition_id = o.partition_id AND c.label = o.label AND c.node = o.node
) AS ranked
WHERE rn = 1;

CREATE OR REPLACE TEMP TABLE gen_shown AS
SELECT c.partition_id, c.label, c.node
FROM gen_choice AS c
JOIN rx.partition_sizes AS s ON s.partition_id = c.partition_id
GROUP BY c.partition_id, c.label, c.node, s.size
HAVING count(DISTINCT c.person) = s.size;
