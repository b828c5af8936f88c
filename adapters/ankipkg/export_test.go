package ankipkg

import (
	"cmp"
	"context"
	"io"
	"slices"

	"github.com/takhtabush/takhtabush/ports"
)

// ReadPackage reads a whole package through OpenPackage and its chunks,
// for the tests: notes, cards and reviews in key order, as a package
// writer takes them.
func (rd Reader) ReadPackage(ctx context.Context, r io.ReaderAt, size int64) (ports.AnkiPackage, error) {
	src, err := rd.OpenPackage(ctx, r, size)
	if err != nil {
		return ports.AnkiPackage{}, err
	}
	defer src.Close()
	h := src.Head()
	p := ports.AnkiPackage{Created: h.Created, Decks: h.Decks, NoteTypes: h.NoteTypes, Media: h.Media}
	err = src.Chunks(ctx, 97, func(ch ports.AnkiChunk) error {
		p.Notes = append(p.Notes, ch.Notes...)
		p.Cards = append(p.Cards, ch.Cards...)
		p.Reviews = append(p.Reviews, ch.Reviews...)
		return nil
	})
	if err != nil {
		return ports.AnkiPackage{}, err
	}
	slices.SortFunc(p.Cards, func(a, b ports.AnkiCard) int { return cmp.Compare(a.Key, b.Key) })
	slices.SortFunc(p.Reviews, func(a, b ports.AnkiReview) int { return cmp.Compare(a.Key, b.Key) })
	return p, nil
}
