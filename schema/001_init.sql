-- placeholder, replaced by the real schema
SELECT 1;
