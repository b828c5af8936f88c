-- Reviews belong to their card's home deck: a review in a filtered deck is
-- logged under the card's home, and a card moved to another deck takes
-- its reviews with it. An edit of a card a filtered deck held (its tags,
-- its text, a leech marking) moved its reviews to the filtered deck, and
-- reschedule_cards logged its entry for a held card under the filtered deck
-- (fixed in the store's UpdateCard and in reschedule_cards); this puts such reviews back under
-- their card's home (its deck, or the home it keeps while a filtered deck
-- holds it). No review is logged under a filtered deck otherwise, so the
-- Down has nothing to undo.

-- +goose Up
UPDATE review_logs SET deck_id = (
    SELECT COALESCE(c.home_deck_id, c.deck_id) FROM cards c
    WHERE c.user_id = review_logs.user_id AND c.id = review_logs.card_id)
WHERE deck_id IN (SELECT deck_id FROM filtered_decks)
  AND EXISTS (SELECT 1 FROM cards c WHERE c.user_id = review_logs.user_id AND c.id = review_logs.card_id);

-- +goose Down
SELECT 1;
