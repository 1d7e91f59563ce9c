-- Issue 32. A version is checked before it is rated, and a tournament can
-- shed a broken bot.
--
-- A version's validation: 'validating' while its validation games are
-- played, then 'ready' (it may join tournaments and ladders) or 'failed'
-- (it joins nothing; `validation_failure` says why, as JSON). Versions
-- stored before validation existed are 'ready'.
ALTER TABLE bot_versions ADD COLUMN validation TEXT NOT NULL DEFAULT 'ready'
    CHECK (validation IN ('validating', 'ready', 'failed'));
ALTER TABLE bot_versions ADD COLUMN validation_failure TEXT;
-- A validation tournament (one per game and table size a version declares)
-- names the version it validates; NULL for every competition. Its games
-- are never rated, never on a leaderboard, never in a fitted rating.
ALTER TABLE tournaments ADD COLUMN validates INTEGER REFERENCES bot_versions(id);
-- The forfeit rate above which a version is suspended from the
-- tournament once it has played enough games; NULL: no such policy.
ALTER TABLE tournaments ADD COLUMN max_forfeit_rate REAL;
-- The versions a tournament suspended: their played games are kept, their
-- unplayed ones dropped.
CREATE TABLE tournament_suspensions (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments(id),
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    games           INTEGER NOT NULL,
    forfeits        INTEGER NOT NULL,
    reason          TEXT NOT NULL,
    suspended_at    INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, bot_version_id)
);
-- Each version's games and forfeits in a tournament with a forfeit rate,
-- kept up to date as each game is recorded: the check after every game
-- reads one row, whatever the history.
CREATE TABLE forfeit_tallies (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments(id),
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    games           INTEGER NOT NULL,
    forfeits        INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, bot_version_id)
);
CREATE INDEX tournaments_by_validated_version ON tournaments(validates);
