-- Text (docs/text-operators.md), first step: which terms are kept (rxanon_sql/operators/ runs the
-- operator_*.sql files).

-- A non-redundant term is kept in a partition when every person of the partition has it in X',
-- and so does every other term of the same surface that anyone in the partition has: a surface
-- is kept or replaced as a whole (a kept LANGUAGE "English" would otherwise show the NORP
-- "English" that one person alone wrote).
CREATE OR REPLACE TABLE rx.kept_terms AS
WITH shares AS (
    SELECT p.partition_id, t.label, t.norm, count(*) = s.size AS shared
    FROM rx.person_terms AS t
    JOIN rx.partitions AS p ON p.person = t.person
    JOIN rx.partition_sizes AS s ON s.partition_id = p.partition_id
    GROUP BY p.partition_id, t.label, t.norm, s.size
),
-- A surface with glue characters (udfs/glue.py) is also the surfaces the leak check reads in it,
-- its glue dropped or read as spaces: a kept "i\x92m" beside a person's unshared "im" would show
-- that person's suppressed "im" (the check finds "im" in "I\x92m"), so it is kept only if those
-- readings are no unshared term of the partition either.
glued AS (
    SELECT partition_id, norm, regexp_replace(regexp_replace(norm, $glue || '+', '', 'g'), '\s+', ' ', 'g') AS reading
    FROM shares
    WHERE shared AND regexp_matches(norm, $glue)
    UNION
    SELECT partition_id, norm, trim(regexp_replace(regexp_replace(norm, $glue || '+', ' ', 'g'), '\s+', ' ', 'g'))
    FROM shares
    WHERE shared AND regexp_matches(norm, $glue)
),
unshared_readings AS (
    SELECT DISTINCT g.partition_id, g.norm
    FROM glued AS g
    JOIN shares AS x ON x.partition_id = g.partition_id AND x.norm = g.reading AND NOT x.shared
)
-- (As an anti join against the unshared terms: a window over every term of every partition took
-- twice as long.)
SELECT k.partition_id, k.label, k.norm
FROM shares AS k
ANTI JOIN shares AS x ON x.partition_id = k.partition_id AND x.norm = k.norm AND NOT x.shared
ANTI JOIN unshared_readings AS u ON u.partition_id = k.partition_id AND u.norm = k.norm
WHERE k.shared;
