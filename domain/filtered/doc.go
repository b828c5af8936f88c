// Package filtered owns filtered decks (issue 28 §4): a saved card search
// with a limit and an order that gathers cards from their home decks
// into a deck to study (custom study), rebuilt or emptied on demand; a
// gathered card keeps its home deck (ports.CardRow.HomeDeckID, Anki's
// odid) and goes back when the deck is emptied or deleted. Studying one
// is the study room's: a session of a filtered deck takes all its cards,
// and its ratings keep every schedule (cram) unless the deck reschedules.
//
// It may use the library (decks, presets), the kernel, contracts, ports
// and the pure packages. It must not import study, exchange, identity or
// background, nor the root package domain.
package filtered
