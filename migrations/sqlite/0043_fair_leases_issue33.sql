-- Leases spread over the tournaments with queued matches (issue 33): each
-- tournament's oldest queued match, and the tournaments that have one,
-- found by index.
CREATE INDEX matches_queued_by_tournament ON matches (tournament_id, id) WHERE status = 'queued';
