-- Draw the unacceptable keys again (a shifted label: all of that person's terms of the label).
UPDATE surrogate_keys
SET attempt = attempt + 1, drawn = false
WHERE EXISTS (
    SELECT 1 FROM surrogate_bad AS b
    WHERE b.person = surrogate_keys.person AND b.label = surrogate_keys.label
      AND (surrogate_keys.shifted OR b.norm = surrogate_keys.norm)
);
