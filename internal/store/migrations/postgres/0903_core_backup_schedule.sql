-- New installations back up daily (service core-backup: enabled, cron
-- "0 1 * * *", the built-in default). An installation that existed before
-- this default (it has an install id) keeps its backup schedule switched
-- off unless it was saved: the row written here pins the former default.
INSERT INTO services (key, is_enabled, cron_enabled, cron_expression, config, updated_at)
SELECT 'core-backup', false, false, '0 1 * * *', '{}'::jsonb, now()
WHERE EXISTS (SELECT 1 FROM settings WHERE key = 'install_id')
ON CONFLICT (key) DO NOTHING;
