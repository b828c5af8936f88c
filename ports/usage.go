package ports

import "context"

// UsageStore counts what an account uses, for its quota and caps. Every
// call is one statement.
type UsageStore interface {
	// ChargeWrites adds writes to the user's count of writes on day (the
	// learner's date, YYYY-MM-DD) when the new count stays at or under
	// max, and returns the new count with ok set, and the number of cards
	// the user holds (before the write being charged). When the count would
	// pass max, nothing changes and ok is false. Not found for an unknown
	// user.
	ChargeWrites(ctx context.Context, userID, day string, writes, max int) (count, cards int, ok bool, err error)
	// Holdings returns how many decks and cards the user holds.
	Holdings(ctx context.Context, userID string) (decks, cards int, err error)
}
