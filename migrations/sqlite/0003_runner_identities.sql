-- Named runners, each with its own token (issue 9): a revoked runner's token
-- is refused from the next call on.
ALTER TABLE runners ADD COLUMN revoked_at INTEGER;
