-- A run whose release failed its check: rolled back, so there is nothing of it to measure.
INSERT INTO rx.sweep (sweep_id, k, lam, strategy, ok, seconds)
VALUES ($sweep_id, $k, CASE WHEN $strategy = 'gdf' THEN NULL ELSE $lam END, $strategy, FALSE, $seconds);
