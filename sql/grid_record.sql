-- The run just committed, from the tables it left (rx.runs' last row is its own).
INSERT INTO rx.sweep
SELECT $sweep_id, (SELECT max(run_id) FROM rx.runs), n.k, CASE WHEN n.strategy = 'gdf' THEN NULL ELSE n.lam END,
       n.strategy, TRUE, $reused,
       s.partitions, s.size_mean, s.size_stdev,
       c.relational, c.textual,
       n.ncp_a, n.ncp_x, n.ncp,
       (SELECT map_from_entries(list(struct_pack(k := label, v := ncp_x))) FROM rx.ncp_terms),
       r.highest, r.average, r.share_above,
       $seconds,
       (SELECT share_kept FROM rx.utility WHERE scope = 'all')
FROM rx.ncp AS n
CROSS JOIN (SELECT count(*) AS partitions, avg(size) AS size_mean, coalesce(stddev_pop(size), 0) AS size_stdev
            FROM rx.partition_sizes) AS s
CROSS JOIN (SELECT count(*) FILTER (WHERE kind = 'relational') AS relational,
                   count(*) FILTER (WHERE kind = 'textual') AS textual
            FROM rx.splits) AS c
CROSS JOIN rx.risk AS r;
