-- Leases spread over the tournaments with queued matches (issue 33): the
-- tournaments that have one, each one's leases, and its oldest queued
-- match, all found by index.
CREATE INDEX matches_by_status_and_tournament ON matches (status, tournament_id, id);
