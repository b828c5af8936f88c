-- The maintained counts' keys take the "C" collation of the ids they hold
-- (decks.id, users.id). They had the database's default collation, so
-- the reads that join them to decks (list_decks, get_deck, the plan's
-- and the snapshot's counts) compared them under "C", which their
-- primary keys (built under the default) cannot answer: every read
-- scanned both tables whole. On 100,000 cards in five decks that was
-- 60,000 deck_due rows and, after a bulk import had updated each
-- deck_counts row 20,000 times, 1,300 pages of deck_counts per
-- list_decks (34 ms of database CPU; issue 12 §3). Now they are index
-- lookups.
--
-- deck_due's key also carries n, so adding up a deck's due times is an
-- index-only scan (a deck whose cards are due at many distinct instants
-- has a row for each: 2,500 rows read from 2,500 table pages per deck
-- became 40 index pages). An update of n then writes an index entry too
-- (two per review).
--
-- SQLite compares text bytewise everywhere and its primary keys hold
-- the row: it needs no change.

-- +goose Up
ALTER TABLE deck_counts ALTER COLUMN deck_id TYPE TEXT COLLATE "C";
ALTER TABLE deck_due ALTER COLUMN user_id TYPE TEXT COLLATE "C", ALTER COLUMN deck_id TYPE TEXT COLLATE "C",
    DROP CONSTRAINT deck_due_pkey, ADD PRIMARY KEY (user_id, deck_id, due) INCLUDE (n);

-- +goose Down
ALTER TABLE deck_due DROP CONSTRAINT deck_due_pkey, ADD PRIMARY KEY (user_id, deck_id, due),
    ALTER COLUMN user_id TYPE TEXT COLLATE "default", ALTER COLUMN deck_id TYPE TEXT COLLATE "default";
ALTER TABLE deck_counts ALTER COLUMN deck_id TYPE TEXT COLLATE "default";
