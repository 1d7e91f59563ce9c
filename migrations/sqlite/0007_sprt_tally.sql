-- Issue 11, where formats meet at scale. An SPRT gauntlet's deal pairs as a
-- JSON array of five counts (pairs by the challenger's half points over the
-- pair: 0 to 4), kept up to date as each game is recorded so the check after
-- every match reads five numbers whatever the history; NULL until the first
-- check counts them all.
ALTER TABLE tournaments ADD COLUMN sprt_pairs TEXT;
