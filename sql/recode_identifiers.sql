-- A released value of a quasi-identifier that holds a direct identifier's value ("/home/bak1139"
-- as the location of user bak1139, "Hotel Astor" among a partition's venues) shows it with the
-- identifier's column label in its place ("/home/[DISPLAY_NAME]"): no direct identifier is
-- released in any column (docs/privacy.md, "Where two rules meet"). Numbers and dates are
-- computed from their own column and name no one.
UPDATE rx.recoded_values
SET value = rx_mask_identifiers(value)
WHERE attribute IN (SELECT attribute FROM rx.attributes WHERE kind NOT IN ('numeric', 'date'))
  AND EXISTS (SELECT 1 FROM rx.identifier_values);
