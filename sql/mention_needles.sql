-- The needles of linking's value mentions (linking.sql, 1.): a tuple's own nominal or ordinal
-- values, which its texts are searched for in the same pass as propagation's surfaces
-- (propagate.sql), so that the texts are read once for both searches.
--
-- A row's needles are its distinct lowercased values, sorted; rows that share them form a set
-- (set_id), which each text carries to the search instead of its values. The sets are built
-- from a string of needle numbers per row: a list aggregate per row (681,288 lists on the blog
-- corpus) cost four times a string aggregate.
CREATE OR REPLACE TEMP TABLE mention_values AS
SELECT v.row_id, lower(v.txt) AS needle
FROM rx.qi_values AS v
JOIN rx.attributes AS a ON a.attribute = v.attribute
WHERE a.kind IN ('nominal', 'ordinal') AND a.match_values AND v.txt IS NOT NULL AND v.txt <> '(missing)';

CREATE OR REPLACE TEMP TABLE needle_numbers AS
SELECT needle, row_number() OVER (ORDER BY needle) AS nid
FROM (SELECT DISTINCT needle FROM mention_values) AS d;

-- (a row's numbers in any order, repeats included: the key only groups rows, the set is made
-- from it below)
CREATE OR REPLACE TEMP TABLE row_keys AS
SELECT v.row_id, string_agg(CAST(n.nid AS VARCHAR), ',') AS key
FROM mention_values AS v
JOIN needle_numbers AS n ON n.needle = v.needle
GROUP BY v.row_id;

CREATE OR REPLACE TEMP TABLE key_needles AS
SELECT k.key, list_sort(list_distinct(array_agg(n.needle))) AS needles
FROM (SELECT key, CAST(unnest(string_split(key, ',')) AS BIGINT) AS nid
      FROM (SELECT DISTINCT key FROM row_keys) AS d) AS k
JOIN needle_numbers AS n ON n.nid = k.nid
GROUP BY k.key;

CREATE OR REPLACE TEMP TABLE needle_sets AS
SELECT row_number() OVER () AS set_id, needles
FROM (SELECT DISTINCT needles FROM key_needles) AS d;

CREATE OR REPLACE TEMP TABLE mention_needles AS
SELECT r.row_id, s.set_id
FROM row_keys AS r
JOIN key_needles AS k ON k.key = r.key
JOIN needle_sets AS s ON s.needles = k.needles;
