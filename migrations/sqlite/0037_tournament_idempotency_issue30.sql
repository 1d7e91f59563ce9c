-- A retried CreateTournament returns the tournament the first request
-- created (issue 30, finding 8): the client's key, unique per owner.
ALTER TABLE tournaments ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX tournaments_by_idempotency_key
    ON tournaments (owner_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
