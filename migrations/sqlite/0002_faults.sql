-- Host faults and broken bots (issue 9).
-- A match a runner gave back counts an attempt; after the arena's maximum it
-- is given up: status 'done' with `failure` set (never rated, shown as failed).
ALTER TABLE matches ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN failure TEXT;
-- A version whose build failed on a runner: the tail of its build log.
ALTER TABLE bot_versions ADD COLUMN broken_at INTEGER;
ALTER TABLE bot_versions ADD COLUMN build_log TEXT;
