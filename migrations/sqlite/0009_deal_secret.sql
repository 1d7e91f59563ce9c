-- The deal secret (arena/src/deal.rs): 32 random bytes as lowercase hex,
-- made by the first arena to open the database. Runners deal every game
-- from a keyed hash of its planned seed under it, so the seeds that
-- listings show tell nobody the deal. One row; never sent, never logged.
-- (0009: 0008 is left to the store's write-path migration.)
CREATE TABLE deal_secret (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    secret  TEXT NOT NULL
);
