-- The surfaces a person shows in the release, whatever label another occurrence of them had: a
-- term their partition keeps, or one generalized to itself in canonical form ("the united
-- states" shown as "United States"). The sweep (sweep.sql) does not replace them, and verify's
-- leak check (leaks.sql) does not count them.
CREATE OR REPLACE TEMP VIEW shown_terms AS
SELECT person, norm FROM rx.generalized_terms WHERE level = 0
UNION
SELECT p.person, k.norm
FROM rx.kept_terms AS k
JOIN rx.partitions AS p ON p.partition_id = k.partition_id;
