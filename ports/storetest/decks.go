package storetest

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testUsers(t *testing.T, f *fixture) {
	users := f.s.Users()
	u := contracts.User{ID: f.id("usr"), Email: "Ada.Lovelace@Example.COM", Name: "Ada", CreatedAt: f.now}
	must(t, users.CreateUser(f.ctx, u))

	want := u
	want.Email = "ada.lovelace@example.com"
	got, err := users.UserByID(f.ctx, u.ID)
	must(t, err)
	if got.ID != want.ID || got.Email != want.Email || got.Name != want.Name || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("UserByID = %+v, want %+v (email stored lower-cased)", got, want)
	}
	for _, email := range []string{"ada.lovelace@example.com", "ADA.LOVELACE@EXAMPLE.COM"} {
		got, err := users.UserByEmail(f.ctx, email)
		must(t, err)
		if got.ID != u.ID {
			t.Errorf("UserByEmail(%q) = %s, want %s", email, got.ID, u.ID)
		}
	}

	err = users.CreateUser(f.ctx, contracts.User{ID: f.id("usr"), Email: "ada.LOVELACE@example.com", CreatedAt: f.now})
	wantKind(t, err, contracts.KindConflict, "CreateUser with a taken email (other case)")
	err = users.CreateUser(f.ctx, contracts.User{ID: u.ID, Email: "other@example.com", CreatedAt: f.now})
	wantKind(t, err, contracts.KindConflict, "CreateUser with a taken id")

	_, err = users.UserByID(f.ctx, "usr-missing")
	wantKind(t, err, contracts.KindNotFound, "UserByID of a missing user")
	_, err = users.UserByEmail(f.ctx, "nobody@example.com")
	wantKind(t, err, contracts.KindNotFound, "UserByEmail of a missing user")
}

func testDecks(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	decks := f.s.Decks()
	settings := contracts.DeckSettings{DesiredRetention: 0.85, NewCardsPerDay: 7, ReviewsPerDay: 70, MaximumIntervalDays: 365}
	d := contracts.Deck{ID: f.id("dck"), Name: "Spanish", Description: "verbs", Settings: settings, CreatedAt: f.now, UpdatedAt: f.now,
		Counts: contracts.DeckCounts{Total: 99}}
	must(t, decks.CreateDeck(f.ctx, a, d))

	got, err := decks.GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	want := d
	want.Counts = contracts.DeckCounts{} // counts given to CreateDeck are ignored
	sameDeck(t, got, want, "GetDeck after CreateDeck")

	err = decks.CreateDeck(f.ctx, a, contracts.Deck{ID: f.id("dck"), Name: "Spanish", Settings: settings, CreatedAt: f.now, UpdatedAt: f.now})
	wantKind(t, err, contracts.KindConflict, "CreateDeck with a taken name")
	// Another user may use the same name.
	bsDeck := contracts.Deck{ID: f.id("dck"), Name: "Spanish", Settings: settings, CreatedAt: f.now, UpdatedAt: f.now}
	must(t, decks.CreateDeck(f.ctx, b, bsDeck))
	// The deck a name belongs to, per user.
	if id, err := decks.DeckIDByName(f.ctx, a, "Spanish"); err != nil || id != d.ID {
		t.Errorf("DeckIDByName(a, Spanish) = %q, %v; want %q", id, err, d.ID)
	}
	if id, err := decks.DeckIDByName(f.ctx, b, "Spanish"); err != nil || id != bsDeck.ID {
		t.Errorf("DeckIDByName(b, Spanish) = %q, %v; want %q", id, err, bsDeck.ID)
	}
	_, err = decks.DeckIDByName(f.ctx, a, "spanish")
	wantKind(t, err, contracts.KindNotFound, "DeckIDByName of another spelling")

	_, err = decks.GetDeck(f.ctx, b, d.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of another user's deck")
	// The deck without counts.
	c := f.insert(a, f.card(d.ID, "counted elsewhere", "x"))[0]
	got, err = decks.DeckWithoutCounts(f.ctx, a, d.ID)
	must(t, err)
	sameDeck(t, got, want, "DeckWithoutCounts (zero counts)")
	_, err = f.s.Cards().TrashCards(f.ctx, a, []string{c.ID}, f.now)
	must(t, err)
	_, err = decks.DeckWithoutCounts(f.ctx, b, d.ID)
	wantKind(t, err, contracts.KindNotFound, "DeckWithoutCounts of another user's deck")
	_, err = decks.DeckWithoutCounts(f.ctx, a, "dck-missing")
	wantKind(t, err, contracts.KindNotFound, "DeckWithoutCounts of a missing deck")
	_, err = decks.GetDeck(f.ctx, a, "dck-missing", f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of a missing deck")

	// Update.
	later := f.now.Add(time.Hour)
	upd := d
	upd.Name, upd.Description, upd.UpdatedAt = "Spanish verbs", "irregular ones", later
	upd.Settings.NewCardsPerDay = 11
	must(t, decks.UpdateDeck(f.ctx, a, upd))
	got, err = decks.GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	want = upd
	want.Counts = contracts.DeckCounts{}
	sameDeck(t, got, want, "GetDeck after UpdateDeck")

	hijack := upd
	hijack.Name = "hijacked"
	wantKind(t, decks.UpdateDeck(f.ctx, b, hijack), contracts.KindNotFound, "UpdateDeck of another user's deck")
	got, err = decks.GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	if got.Name != "Spanish verbs" {
		t.Errorf("another user's UpdateDeck changed the deck's name to %q", got.Name)
	}
	missing := upd
	missing.ID = "dck-missing"
	wantKind(t, decks.UpdateDeck(f.ctx, a, missing), contracts.KindNotFound, "UpdateDeck of a missing deck")

	other := f.deck(a, "French")
	dup := other
	dup.Name = "Spanish verbs"
	wantKind(t, decks.UpdateDeck(f.ctx, a, dup), contracts.KindConflict, "UpdateDeck to a taken name")
	got, err = decks.GetDeck(f.ctx, a, other.ID, f.now)
	must(t, err)
	if got.Name != "French" {
		t.Errorf("a failed rename changed the deck's name to %q", got.Name)
	}

	// Delete.
	_, err = decks.TrashDeck(f.ctx, b, d.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "DeleteDeck of another user's deck")
	if _, err := decks.GetDeck(f.ctx, a, d.ID, f.now); err != nil {
		t.Errorf("another user's DeleteDeck removed the deck: %v", err)
	}
	n, err := decks.TrashDeck(f.ctx, a, other.ID, f.now)
	must(t, err)
	if n != 0 {
		t.Errorf("DeleteDeck of an empty deck reported %d cards deleted", n)
	}
	_, err = decks.GetDeck(f.ctx, a, other.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck after DeleteDeck")
	_, err = decks.TrashDeck(f.ctx, a, other.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "DeleteDeck twice")
}

// sameDeck compares decks up to time normalisation.
func sameDeck(t *testing.T, got, want contracts.Deck, what string) {
	t.Helper()
	got.CreatedAt, got.UpdatedAt = ms(got.CreatedAt), ms(got.UpdatedAt)
	want.CreatedAt, want.UpdatedAt = ms(want.CreatedAt), ms(want.UpdatedAt)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testDeckCounts(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Counted")
	e := f.deck(a, "Empty")
	n1, n2 := f.card(d.ID, "new 1", "x"), f.card(d.ID, "new 2", "x")
	sn := f.card(d.ID, "suspended new", "x")
	sn.Suspended = true
	learning := f.reviewCard(d.ID, "learning due", f.now.Add(-time.Minute))
	learning.State.Phase = contracts.PhaseLearning
	relearning := f.reviewCard(d.ID, "relearning later", f.now.Add(time.Hour))
	relearning.State.Phase = contracts.PhaseRelearning
	r1 := f.reviewCard(d.ID, "review due", f.now.Add(-2*day))
	r2 := f.reviewCard(d.ID, "review due exactly now", f.now)
	r3 := f.reviewCard(d.ID, "review tomorrow", f.now.Add(day))
	sr := f.reviewCard(d.ID, "suspended review due", f.now.Add(-day))
	sr.Suspended = true
	f.insert(a, n1, n2, sn, learning, relearning, r1, r2, r3, sr)
	// Another user's cards never count.
	bd := f.deck(b, "Counted")
	f.insert(b, f.reviewCard(bd.ID, "theirs", f.now.Add(-day)))

	want := contracts.DeckCounts{Total: 9, New: 2, Learning: 2, Review: 3, Suspended: 2, DueNow: 3}
	got, err := f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	if got.Counts != want {
		t.Errorf("GetDeck counts = %+v, want %+v", got.Counts, want)
	}
	// Counts move with now.
	got, err = f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now.Add(2*day))
	must(t, err)
	if got.Counts.DueNow != 5 {
		t.Errorf("GetDeck DueNow two days later = %d, want 5", got.Counts.DueNow)
	}
	list, err := f.s.Decks().ListDecks(f.ctx, a, "", 10, f.now)
	must(t, err)
	if len(list) != 2 {
		t.Fatalf("ListDecks returned %d decks, want 2", len(list))
	}
	for _, dk := range list {
		switch dk.ID {
		case d.ID:
			if dk.Counts != want {
				t.Errorf("ListDecks counts of %s = %+v, want %+v", dk.Name, dk.Counts, want)
			}
		case e.ID:
			if dk.Counts != (contracts.DeckCounts{}) {
				t.Errorf("ListDecks counts of the empty deck = %+v, want zero", dk.Counts)
			}
		default:
			t.Errorf("ListDecks returned unexpected deck %s", dk.ID)
		}
	}
}

// testDeckCountsFollowChanges checks deck counts after every kind of card
// change (a store may keep them incrementally), against CountPhases and
// the cards themselves.
func testDeckCountsFollowChanges(t *testing.T, f *fixture) {
	a := f.user()
	d, e := f.deck(a, "From"), f.deck(a, "To")
	cs := f.insert(a, f.card(d.ID, "one", "x"), f.card(d.ID, "two", "x"), f.card(d.ID, "three", "x"),
		f.reviewCard(d.ID, "four", f.now.Add(-day)), f.card(d.ID, "five", "x"))
	check := func(when string, wantD, wantE contracts.DeckCounts) {
		t.Helper()
		for _, c := range []struct {
			id   string
			want contracts.DeckCounts
		}{{d.ID, wantD}, {e.ID, wantE}} {
			got, err := f.s.Decks().GetDeck(f.ctx, a, c.id, f.now)
			must(t, err)
			if got.Counts != c.want {
				t.Errorf("%s: counts of %s = %+v, want %+v", when, got.Name, got.Counts, c.want)
			}
			pc, err := f.s.Cards().CountPhases(f.ctx, a, c.id)
			must(t, err)
			if pc.New != got.Counts.New || pc.Suspended != got.Counts.Suspended || pc.Review != got.Counts.Review {
				t.Errorf("%s: counts of %s = %+v disagree with CountPhases %+v", when, got.Name, got.Counts, pc)
			}
		}
	}
	check("after insert", contracts.DeckCounts{Total: 5, New: 4, Review: 1, DueNow: 1}, contracts.DeckCounts{})
	// Suspend one new card and move another.
	s1 := cs[0]
	s1.Suspended = true
	must(t, f.s.Cards().UpdateCard(f.ctx, a, s1))
	m := cs[1]
	m.DeckID = e.ID
	must(t, f.s.Cards().UpdateCard(f.ctx, a, m))
	check("after suspend and move", contracts.DeckCounts{Total: 4, New: 2, Review: 1, Suspended: 1, DueNow: 1},
		contracts.DeckCounts{Total: 1, New: 1})
	// A review moves a new card to learning.
	st := contracts.CardState{Phase: contracts.PhaseLearning, Due: f.now.Add(time.Hour), Stability: 1, Difficulty: 5, Reps: 1}
	must(t, f.s.Cards().UpdateState(f.ctx, a, cs[2].ID, cs[2].Version, st, f.now))
	check("after a review", contracts.DeckCounts{Total: 4, New: 1, Learning: 1, Review: 1, Suspended: 1, DueNow: 1},
		contracts.DeckCounts{Total: 1, New: 1})
	// Deleting cards, then a deck with its cards.
	_, err := f.s.Cards().TrashCards(f.ctx, a, []string{cs[3].ID, cs[4].ID}, f.now)
	must(t, err)
	check("after delete", contracts.DeckCounts{Total: 2, Learning: 1, Suspended: 1}, contracts.DeckCounts{Total: 1, New: 1})
	_, err = f.s.Decks().TrashDeck(f.ctx, a, e.ID, f.now)
	must(t, err)
	again := f.deck(a, "To")
	f.insert(a, f.card(again.ID, "six", "x"))
	got, err := f.s.Decks().GetDeck(f.ctx, a, again.ID, f.now)
	must(t, err)
	if got.Counts != (contracts.DeckCounts{Total: 1, New: 1}) {
		t.Errorf("a new deck after a deleted one counts %+v", got.Counts)
	}
}

func testListDecksPaging(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	var want []string
	for i := range 7 {
		want = append(want, f.deck(a, "deck "+string(rune('A'+i))).ID)
		f.deck(b, "deck "+string(rune('A'+i)))
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("ListDecks paging does not end")
		}
		page, err := f.s.Decks().ListDecks(f.ctx, a, after, 3, f.now)
		must(t, err)
		if len(page) > 3 {
			t.Fatalf("ListDecks returned %d decks, limit 3", len(page))
		}
		if len(page) == 0 {
			break
		}
		for _, d := range page {
			got = append(got, d.ID)
		}
		after = page[len(page)-1].ID
	}
	sameIDs(t, got, sorted(want), "ListDecks pages, ordered by id, every deck once, only the user's")
	empty, err := f.s.Decks().ListDecks(f.ctx, f.user(), "", 10, f.now)
	must(t, err)
	if len(empty) != 0 {
		t.Errorf("ListDecks of a user without decks returned %d decks", len(empty))
	}
}

func testDeleteDeckCascades(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Doomed")
	keep := f.deck(a, "Kept")
	cards := f.insert(a, f.reviewCard(d.ID, "one", f.now), f.reviewCard(d.ID, "two", f.now), f.card(d.ID, "three", "x"))
	kept := f.insert(a, f.reviewCard(keep.ID, "kept", f.now))
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	must(t, f.s.Sessions().CreateSession(f.ctx, sess, ids(cards)))
	f.review(a, cards[0], "", contracts.RatingGood, f.now, 1000)
	f.review(a, kept[0], "", contracts.RatingGood, f.now, 1000)

	n, err := f.s.Decks().TrashDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	if n != 3 {
		t.Errorf("DeleteDeck reported %d cards deleted, want 3", n)
	}
	left, err := f.s.Cards().GetCards(f.ctx, a, append(ids(cards), kept[0].ID))
	must(t, err)
	sameIDs(t, ids(left), []string{kept[0].ID}, "cards left after DeleteDeck")
	_, err = f.s.Sessions().GetSession(f.ctx, a, sess.ID)
	wantKind(t, err, contracts.KindNotFound, "GetSession of a deleted deck's session")
	days, err := f.s.Reviews().ReviewDays(f.ctx, a, "", f.now.Add(-day))
	must(t, err)
	if len(days) != 1 || days[0].Reviews != 1 {
		t.Errorf("ReviewDays after DeleteDeck = %+v, want the kept deck's one review", days)
	}
	res, err := f.s.Cards().Search(f.ctx, a, contracts.CardFilter{Query: "one"}, "", 10, f.now)
	must(t, err)
	if len(res) != 0 {
		t.Errorf("Search finds %d cards of a deleted deck", len(res))
	}
}

// testDueCountsFollowChanges makes random changes (new, learning and
// review cards with shared and distinct due times, reviews that move
// them, suspensions, moves between decks, deletions of cards and of a
// deck) and after each one compares every count the store keeps
// (GetDeck's and ListDecks' due now, CountDue, DueCounts, DueHistogram,
// CountPhases, for one deck and for all) with a count over the cards, at
// instants that include a millisecond either side of two day boundaries.
func testDueCountsFollowChanges(t *testing.T, f *fixture) {
	a := f.user()
	decks := []string{f.deck(a, "One").ID, f.deck(a, "Two").ID}
	r := rand.New(rand.NewPCG(12, 34))
	var live []ports.CardRow
	// A few shared due times (day starts), exact instants, and instants a
	// millisecond either side of a day boundary (the learner's day here is
	// UTC midnight).
	dayStart := f.now.Truncate(day)
	edges := []time.Time{dayStart.Add(-time.Millisecond), dayStart, dayStart.Add(day - time.Millisecond), dayStart.Add(day)}
	dueAt := func() time.Time {
		if r.IntN(5) == 0 {
			return edges[r.IntN(len(edges))]
		}
		if r.IntN(3) == 0 {
			return f.now.Add(time.Duration(r.IntN(48*60)-24*60) * time.Minute)
		}
		return f.now.Add(time.Duration(r.IntN(7)-3) * day).Truncate(day)
	}
	probes := []time.Time{f.now.Add(-2 * day), edges[0], edges[1], f.now.Add(-time.Minute), f.now, f.now.Add(time.Hour),
		edges[2], edges[3], f.now.Add(3 * day)}
	check := func(step string) {
		t.Helper()
		cards, err := f.s.Cards().GetCards(f.ctx, a, ids(live))
		must(t, err)
		want := func(deckID string, t0 time.Time, inclusive bool) int {
			n := 0
			for _, c := range cards {
				queued := !c.Suspended && c.State.Phase != contracts.PhaseNew
				in := deckID == "" || c.DeckID == deckID
				before := c.State.Due.Before(t0) || (inclusive && c.State.Due.Equal(t0))
				if queued && in && before {
					n++
				}
			}
			return n
		}
		for _, p := range probes {
			listed, err := f.s.Decks().ListDecks(f.ctx, a, "", 10, p)
			must(t, err)
			for _, d := range listed {
				if w := want(d.ID, p, true); d.Counts.DueNow != w {
					t.Fatalf("%s: ListDecks due now at %s of %s = %d, want %d", step, p, d.Name, d.Counts.DueNow, w)
				}
			}
		}
		for _, deckID := range append([]string{""}, decks...) {
			for _, p := range probes {
				if deckID == "" { // GetDeck is of one deck
					break
				}
				if d, err := f.s.Decks().GetDeck(f.ctx, a, deckID, p); err == nil && d.Counts.DueNow != want(deckID, p, true) {
					t.Fatalf("%s: GetDeck due now at %s = %d, want %d", step, p, d.Counts.DueNow, want(deckID, p, true))
				}
			}
			for _, p := range probes {
				n, err := f.s.Cards().CountDue(f.ctx, a, deckID, p)
				must(t, err)
				if w := want(deckID, p, true); n != w {
					t.Fatalf("%s: CountDue(%q, %s) = %d, want %d", step, deckID, p, n, w)
				}
			}
			var wantPhases contracts.PhaseCounts
			for _, c := range cards {
				switch {
				case deckID != "" && c.DeckID != deckID:
				case c.Suspended:
					wantPhases.Suspended++
				case c.State.Phase == contracts.PhaseNew:
					wantPhases.New++
				case c.State.Phase == contracts.PhaseLearning:
					wantPhases.Learning++
				case c.State.Phase == contracts.PhaseReview:
					wantPhases.Review++
				case c.State.Phase == contracts.PhaseRelearning:
					wantPhases.Relearning++
				}
			}
			if pc, err := f.s.Cards().CountPhases(f.ctx, a, deckID); err != nil || pc != wantPhases {
				t.Fatalf("%s: CountPhases(%q) = %+v %v, want %+v", step, deckID, pc, err, wantPhases)
			}
			counts, err := f.s.Cards().DueCounts(f.ctx, a, deckID, probes)
			must(t, err)
			for i := range counts {
				w := want(deckID, probes[i+1], false) - want(deckID, probes[i], false)
				if i == 0 {
					w = want(deckID, probes[1], false)
				}
				if counts[i] != w {
					t.Fatalf("%s: DueCounts(%q) bucket %d = %d, want %d", step, deckID, i, counts[i], w)
				}
			}
			start := f.now.Truncate(day)
			hist, err := f.s.Cards().DueHistogram(f.ctx, a, deckID, start, 4)
			must(t, err)
			for i := range hist {
				w := want(deckID, start.Add(time.Duration(i+1)*day), false) - want(deckID, start.Add(time.Duration(i)*day), false)
				if i == 0 {
					w = want(deckID, start.Add(day), false)
				}
				if hist[i] != w {
					t.Fatalf("%s: DueHistogram(%q) day %d = %d, want %d", step, deckID, i, hist[i], w)
				}
			}
		}
	}
	for i := range 60 {
		switch op := r.IntN(10); {
		case op < 4 || len(live) == 0: // a new card: new, learning or review
			c := f.card(decks[r.IntN(2)], "card "+itoa(i), "x")
			switch r.IntN(3) {
			case 1:
				c.State = contracts.CardState{Phase: contracts.PhaseLearning, Due: dueAt(), Stability: 1, Difficulty: 5, Reps: 1}
			case 2:
				c = f.reviewCard(c.DeckID, "card "+itoa(i), dueAt())
			}
			live = append(live, f.insert(a, c)...)
			check("insert")
		case op < 7: // a review: a new due time, maybe a new phase
			k := r.IntN(len(live))
			c := f.get(a, live[k].ID)
			st := c.State
			st.Due = dueAt()
			st.Phase = []contracts.Phase{contracts.PhaseLearning, contracts.PhaseReview, contracts.PhaseRelearning}[r.IntN(3)]
			must(t, f.s.Cards().UpdateState(f.ctx, a, c.ID, c.Version, st, f.now))
			check("review")
		case op < 9: // suspend or unsuspend, maybe moving decks
			k := r.IntN(len(live))
			c := f.get(a, live[k].ID)
			c.Suspended = !c.Suspended
			if r.IntN(2) == 0 {
				c.DeckID = decks[r.IntN(2)]
			}
			must(t, f.s.Cards().UpdateCard(f.ctx, a, c))
			check("suspend or move")
		default: // delete a card
			k := r.IntN(len(live))
			_, err := f.s.Cards().TrashCards(f.ctx, a, []string{live[k].ID}, f.now)
			must(t, err)
			live = slices.Delete(live, k, k+1)
			check("delete")
		}
	}
	// Deleting a deck takes its cards' counts with it.
	_, err := f.s.Decks().TrashDeck(f.ctx, a, decks[1], f.now)
	must(t, err)
	live = slices.DeleteFunc(live, func(c ports.CardRow) bool { return f.getOrNone(a, c.ID) })
	decks = decks[:1]
	check("deck deleted")
}

// getOrNone reports whether a card is gone.
func (f *fixture) getOrNone(userID, cardID string) bool {
	f.t.Helper()
	got, err := f.s.Cards().GetCards(f.ctx, userID, []string{cardID})
	must(f.t, err)
	return len(got) == 0
}
