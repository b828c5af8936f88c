package study

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// The deck tree (issue 27 §4), one rule for sessions, the snapshot, the
// plan's day 0 and the check of each rating, as Anki's v3 scheduler
// (23.10 and later) has it:
//
//   - Names make the tree: "P::C" is below "P" (contracts.DeckSeparator);
//     a deck whose parent name is no deck hangs from the nearest deck
//     above it that exists. Filtered decks are not part of a tree.
//   - Studying a deck studies it and every deck below it.
//   - A deck's daily limits count what was studied today in it and in
//     every deck below it, whichever deck was studied.
//   - A card is served while its own deck's limits and those of every
//     deck between it and the studied deck, the studied deck's included,
//     leave room; serving it uses a slot of each. The limits of the decks
//     above the studied deck do not apply (studying a child directly
//     ignores its parent's limits, as in Anki 23.10+), but what was
//     studied counts against them.
//   - The account-wide caps apply on top of all.
//   - The order, the new-card mix and the sibling options are the studied
//     deck's; new cards are gathered deck by deck in the tree's order
//     (Anki's "deck" gather order), review cards across the tree in the
//     review order.

// deckTree is a studied deck and the decks below it.
type deckTree struct {
	// decks holds the studied deck first, then the decks below it in the
	// tree's order (each deck before its children, siblings by name).
	decks []contracts.Deck
	// up is each deck's parent in the tree, by id (the root has none).
	up map[string]string
}

// loadTree reads the deck deckID of uid and the decks below it, in one
// read. Not found when absent.
func loadTree(ctx context.Context, st ports.Stores, uid, deckID string) (deckTree, error) {
	if !kernel.PlausibleID(deckID) {
		return deckTree{}, kernel.DeckNotFound(deckID)
	}
	decks, err := st.Decks().DeckTree(ctx, uid, deckID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return deckTree{}, kernel.DeckNotFound(deckID)
	}
	if err != nil {
		return deckTree{}, kernel.Fail(err)
	}
	return newTree(decks[0], decks[1:]), nil
}

// newTree builds the tree of root from decks, which holds the decks
// below it (others are ignored).
func newTree(root contracts.Deck, decks []contracts.Deck) deckTree {
	t := deckTree{decks: []contracts.Deck{root}, up: map[string]string{}}
	byName := map[string]string{root.Name: root.ID}
	prefix := root.Name + contracts.DeckSeparator
	var below []contracts.Deck
	for _, d := range decks {
		if d.ID != root.ID && strings.HasPrefix(d.Name, prefix) {
			below = append(below, d)
			byName[d.Name] = d.ID
		}
	}
	slices.SortFunc(below, func(a, b contracts.Deck) int {
		return slices.Compare(strings.Split(a.Name, contracts.DeckSeparator), strings.Split(b.Name, contracts.DeckSeparator))
	})
	for _, d := range below {
		name := d.Name
		for {
			i := strings.LastIndex(name, contracts.DeckSeparator)
			name = name[:i]
			if id, ok := byName[name]; ok {
				t.up[d.ID] = id
				break
			}
		}
		t.decks = append(t.decks, d)
	}
	return t
}

// root is the studied deck.
func (t deckTree) root() contracts.Deck { return t.decks[0] }

// nested reports whether decks lie below the studied deck.
func (t deckTree) nested() bool { return len(t.decks) > 1 }

// ids lists the tree's deck ids, the studied deck first.
func (t deckTree) ids() []string {
	out := make([]string, len(t.decks))
	for i, d := range t.decks {
		out[i] = d.ID
	}
	return out
}

// rank is each deck's place in the tree's order, by id.
func (t deckTree) rank() map[string]int {
	out := make(map[string]int, len(t.decks))
	for i, d := range t.decks {
		out[d.ID] = i
	}
	return out
}

// roots lists the decks of decks that lie below no other of them.
func roots(decks []contracts.Deck) []contracts.Deck {
	names := make(map[string]bool, len(decks))
	for _, d := range decks {
		names[d.Name] = true
	}
	var out []contracts.Deck
	for _, d := range decks {
		top := true
		for name := d.Name; top; {
			i := strings.LastIndex(name, contracts.DeckSeparator)
			if i < 0 {
				break
			}
			name = name[:i]
			top = !names[name]
		}
		if top {
			out = append(out, d)
		}
	}
	return out
}

// room reports whether the limits leave room for a card of deckID in
// phase p (new or review; other phases always): the studied deck's (with
// the account caps) and those of each deck from deckID up to it.
func (l *left) room(deckID string, p contracts.Phase) bool {
	switch p {
	case contracts.PhaseNew:
		if l.New <= 0 {
			return false
		}
	case contracts.PhaseReview:
		if l.Review <= 0 {
			return false
		}
	default:
		return true
	}
	for d := deckID; l.below[d] != nil; d = l.up[d] {
		n := l.below[d]
		if n[1] <= 0 || (p == contracts.PhaseNew && n[0] <= 0) {
			return false
		}
	}
	return true
}

// take uses a slot for a card of deckID in phase p when the limits leave
// room (see room), reporting whether they did; a new card takes a slot of
// the new-card and of the review limit, as Anki's v3 scheduler counts.
func (l *left) take(deckID string, p contracts.Phase) bool {
	if !l.room(deckID, p) {
		return false
	}
	use := func(n *[2]int) {
		if p == contracts.PhaseNew {
			n[0]--
		}
		n[1]--
		n[0] = min(n[0], n[1])
	}
	if p == contracts.PhaseNew || p == contracts.PhaseReview {
		root := [2]int{l.New, l.Review}
		use(&root)
		l.New, l.Review = root[0], root[1]
		for d := deckID; l.below[d] != nil; d = l.up[d] {
			use(l.below[d])
		}
	}
	return true
}

// clone returns a copy of l that takes slots on its own.
func (l left) clone() left {
	if l.below != nil {
		b := make(map[string]*[2]int, len(l.below))
		for id, n := range l.below {
			c := *n
			b[id] = &c
		}
		l.below = b
	}
	return l
}

// blocking names the deck whose own limit leaves no room for a card of
// deckID in phase p, the studied deck's or one between; "" when the
// decks' limits leave room (the account caps then do not).
func (l *left) blocking(tree deckTree, deckID string, p contracts.Phase) string {
	names := make(map[string]string, len(tree.decks))
	for _, d := range tree.decks {
		names[d.ID] = d.Name
	}
	for d := deckID; l.below[d] != nil; d = l.up[d] {
		if n := l.below[d]; n[1] <= 0 || (p == contracts.PhaseNew && n[0] <= 0) {
			return names[d]
		}
	}
	if (p == contracts.PhaseNew && l.Deck.New <= 0) || l.Deck.Review <= 0 {
		return tree.root().Name
	}
	return ""
}

// OwnNewCards returns, by deck id, the new cards of each deck of decks
// (every deck of the user, as AllDecks lists them) without those of the
// decks below it: a deck's counts hold its tree's (ports.DeckStore), so a
// deck's own are its counts less those of the decks right below it.
func OwnNewCards(decks []contracts.Deck) map[string]int {
	byName := make(map[string]string, len(decks))
	out := make(map[string]int, len(decks))
	for _, d := range decks {
		byName[d.Name] = d.ID
		out[d.ID] += d.Counts.New
	}
	for _, d := range decks {
		for name := d.Name; ; {
			i := strings.LastIndex(name, contracts.DeckSeparator)
			if i < 0 {
				break
			}
			name = name[:i]
			if id, ok := byName[name]; ok {
				out[id] -= d.Counts.New
				break
			}
		}
	}
	return out
}

// DeckTree reads the deck deckID of uid and the decks below it (tree.go's
// rule: filtered decks aside), the deck first, in one read. Not found
// when absent; otherwise errors are the store's.
func DeckTree(ctx context.Context, st ports.Stores, uid, deckID string) ([]contracts.Deck, error) {
	t, err := loadTree(ctx, st, uid, deckID)
	return t.decks, err
}

// treeDraw is the random new-card order (random_new.go) over the decks of
// a tree: the ids of all their new cards in the day's order, and each
// card's deck, so the decks' limits choose which to read.
type treeDraw struct {
	ids  []string
	deck map[string]string
}

// drawTree orders the new cards of decks not buried at now by seed (the
// user and the learner's date), in one read.
func drawTree(ctx context.Context, tx ports.Stores, uid string, decks []string, now time.Time, seed string) (*treeDraw, error) {
	byCard, err := tx.Cards().FreshCardDecks(ctx, uid, decks, now)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	d := &treeDraw{ids: make([]string, 0, len(byCard)), deck: byCard}
	keys := make(map[string]uint64, len(byCard))
	for id := range byCard {
		d.ids = append(d.ids, id)
		keys[id] = tieKey(seed, id)
	}
	slices.SortFunc(d.ids, func(a, b string) int {
		if c := cmp.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return d, nil
}

// pick reads, in the order, up to n cards of decks the limits l leave
// new cards: at most k times what they leave each deck (a deck's own
// and those up to the studied deck), so a deck that is full does not take
// the reads, and the cards siblings bury can be made up for (k doubles
// with n).
func (d *treeDraw) pick(ctx context.Context, tx ports.Stores, uid string, l *left, n, k int) ([]ports.CardRow, error) {
	allow := map[string]int{}
	var ids []string
	for _, id := range d.ids {
		if len(ids) >= n {
			break
		}
		deck := d.deck[id]
		a, ok := allow[deck]
		if !ok {
			a = k * l.newRoom(deck)
		}
		if a > 0 {
			ids = append(ids, id)
		}
		allow[deck] = a - 1
	}
	return (&randomNew{ids: ids}).first(ctx, tx, uid, len(ids))
}

// newRoom is how many new cards of deckID the limits leave: the studied
// deck's and each deck's up to it.
func (l *left) newRoom(deckID string) int {
	n := l.New
	for d := deckID; l.below[d] != nil; d = l.up[d] {
		n = min(n, l.below[d][0])
	}
	return max(n, 0)
}
