package domain_test

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/takhtabush/takhtabush/ports"
)

// memSource serves an in-memory package as the package reader's sources
// do: the head whole, then the notes in key order a chunk at a time with
// their cards and those cards' reviews, the reviews of cards no note of
// the package has last.
type memSource struct{ p ports.AnkiPackage }

// sourceOf wraps a package built in a test as a ports.PackageSource.
func sourceOf(p ports.AnkiPackage) ports.PackageSource { return memSource{p} }

func (m memSource) Head() ports.AnkiPackageHead {
	h := ports.AnkiPackageHead{Created: m.p.Created, Decks: m.p.Decks, NoteTypes: m.p.NoteTypes, Media: m.p.Media,
		Notes: len(m.p.Notes), Cards: len(m.p.Cards), Reviews: len(m.p.Reviews), DeckCards: map[int64]int{}}
	for _, c := range m.p.Cards {
		h.DeckCards[c.DeckKey]++
		h.MaxPosition = max(h.MaxPosition, min(c.Position, math.MaxInt32))
	}
	return h
}

func (m memSource) Chunks(ctx context.Context, n int, fn func(ports.AnkiChunk) error) error {
	notes := slices.Clone(m.p.Notes)
	slices.SortStableFunc(notes, func(a, b ports.AnkiNote) int { return cmp.Compare(a.Key, b.Key) })
	cardsOf := map[int64][]ports.AnkiCard{}
	for _, c := range m.p.Cards {
		cardsOf[c.NoteKey] = append(cardsOf[c.NoteKey], c)
	}
	reviewsOf := map[int64][]ports.AnkiReview{}
	for _, r := range m.p.Reviews {
		reviewsOf[r.CardKey] = append(reviewsOf[r.CardKey], r)
	}
	sent := map[int64]bool{}
	for i := 0; i < len(notes); i += n {
		if err := ctx.Err(); err != nil {
			return err
		}
		var ch ports.AnkiChunk
		ch.Notes = notes[i:min(i+n, len(notes))]
		for _, note := range ch.Notes {
			for _, c := range cardsOf[note.Key] {
				if !sent[c.Key] {
					sent[c.Key] = true
					ch.Cards = append(ch.Cards, c)
					ch.Reviews = append(ch.Reviews, reviewsOf[c.Key]...)
				}
			}
		}
		if err := fn(ch); err != nil {
			return err
		}
	}
	var rest ports.AnkiChunk
	for _, r := range m.p.Reviews {
		if !sent[r.CardKey] {
			rest.Reviews = append(rest.Reviews, r)
		}
	}
	if len(rest.Reviews) == 0 {
		return nil
	}
	return fn(rest)
}

func (memSource) Close() error { return nil }
