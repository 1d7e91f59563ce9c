-- The deal secret: see migrations/sqlite/0009_deal_secret.sql. Every arena
-- process on this database reads the one row the first of them wrote.
CREATE TABLE deal_secret (
    id      BIGINT PRIMARY KEY CHECK (id = 1),
    secret  TEXT NOT NULL
);
