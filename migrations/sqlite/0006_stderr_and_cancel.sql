-- Issue 10. The last bytes (at most 8 KiB) each seat's bot wrote on stderr
-- during the game, as its runner reported them (invalid UTF-8 replaced).
ALTER TABLE result_seats ADD COLUMN stderr_tail TEXT;
-- A tournament its owner cancelled: its unplayed matches are given up
-- (status 'done', failure 'cancelled'), its played games kept and rated.
ALTER TABLE tournaments ADD COLUMN cancelled_at INTEGER;
