package domain_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// BenchmarkSubmitReview measures reviews per second through the domain on
// SQLite: each op is one SubmitReview of a new card (session lookup, queue
// item, schedule, optimistic update, review log, next card) in one
// transaction.
func BenchmarkSubmitReview(b *testing.B) {
	e := newEnv(b, onSQLite)
	ctx := e.user("bench@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "bench", NewCardsPerDay: ptr(1000)})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i += contracts.MaxBulkItems {
		n := min(contracts.MaxBulkItems, b.N-i)
		cards := make([]contracts.NewCard, n)
		for j := range cards {
			cards[j] = card(fmt.Sprintf("front %d", i+j), "back")
		}
		e.add(ctx, d.ID, cards...)
	}
	var s contracts.StudySession
	var next *contracts.StudyCard
	b.ResetTimer()
	for range b.N {
		if next == nil {
			b.StopTimer()
			e.clock.Advance(24 * time.Hour) // a new day: new cards are allowed again
			s = e.start(ctx, d.ID, ptr(contracts.MaxSessionNewCards), nil)
			next = s.Current
			b.StartTimer()
		}
		r, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: next.CardID, Rating: contracts.RatingEasy, DurationMs: 3000})
		if err != nil {
			b.Fatal(err)
		}
		next = r.Next
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reviews/s")
}

// BenchmarkAddCards10k adds 10,000 cards to a fresh deck per op, as ten
// AddCards calls of 1000 (the per-call limit).
func BenchmarkAddCards10k(b *testing.B) {
	const total = 10_000
	cards := make([]contracts.NewCard, total)
	for i := range cards {
		cards[i] = card(fmt.Sprintf("Question number %d about something", i), fmt.Sprintf("Answer %d", i), "bench", fmt.Sprintf("t%d", i%7))
	}
	b.Run("calls=10x1000", func(b *testing.B) {
		e := newEnv(b, onSQLite)
		ctx := e.user("bench@example.com")
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			d := e.deck(ctx, fmt.Sprintf("deck %d", i))
			b.StartTimer()
			for j := 0; j < total; j += contracts.MaxBulkItems {
				r, err := e.svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: d.ID, Cards: cards[j : j+contracts.MaxBulkItems]})
				if err != nil || r.Counts["created"] != contracts.MaxBulkItems {
					b.Fatalf("add: %v %v", err, r.Counts)
				}
			}
		}
		b.ReportMetric(float64(b.N*total)/b.Elapsed().Seconds(), "cards/s")
	})
}

// BenchmarkUpdateCards measures update_cards through the domain on
// SQLite: each op edits the backs and tags of 100 cards in one call (with
// its change records, one more statement, since issue 26).
func BenchmarkUpdateCards(b *testing.B) {
	e := newEnv(b, onSQLite)
	ctx := e.user("bench@example.com")
	d := e.deck(ctx, "bench")
	cards := make([]contracts.NewCard, 100)
	for i := range cards {
		cards[i] = card(fmt.Sprintf("front %d", i), "back", "t")
	}
	var ids []string
	for _, it := range e.add(ctx, d.ID, cards...).Items {
		ids = append(ids, it.ID)
	}
	b.ResetTimer()
	for n := range b.N {
		updates := make([]contracts.CardPatch, len(ids))
		for i, id := range ids {
			updates[i] = contracts.CardPatch{ID: id, Back: ptr(fmt.Sprintf("back %d/%d", n, i)), Tags: &[]string{fmt.Sprintf("r%d", n%3)}}
		}
		if _, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: updates}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(ids))/b.Elapsed().Seconds(), "cards/s")
}
