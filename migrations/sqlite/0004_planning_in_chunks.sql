-- Tournaments are planned in chunks of short write transactions (issue 9),
-- resumable after a restart: `planning_done` is 0 until the last chunk.
-- A match whose games are still being written is 'leased' to nobody
-- (lease_holder and lease_expires_at NULL): no runner can take it, and the
-- chunk that writes its last game queues it.
ALTER TABLE tournaments ADD COLUMN planned_matches INTEGER;
ALTER TABLE tournaments ADD COLUMN planning_done INTEGER NOT NULL DEFAULT 1;
