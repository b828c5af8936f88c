package contracts

import (
	"errors"
	"fmt"
	"time"
)

// The limits that refuse requests, the Limit of a Refusal (and the label
// of the refusal metrics).
const (
	LimitRate               = "rate"                // requests per second of one credential
	LimitConcurrency        = "concurrency"         // requests in flight of one credential
	LimitAccountRate        = "account_rate"        // requests per second of all of one account's credentials
	LimitAccountConcurrency = "account_concurrency" // requests in flight of all of one account's credentials
	LimitDailyWrites        = "daily_writes"        // cards added, reviews and uploads in the account's day
	LimitCards              = "cards"               // cards one account holds
	LimitDecks              = "decks"               // decks one account holds
	LimitKeys               = "keys"                // live API keys one account holds
	LimitQueuedJobs         = "queued_jobs"         // jobs one account has waiting to run
)

// MaxQueuedJobs is how many jobs one account may have waiting to run
// (issue 29 §3): one account's jobs run one at a time, taking turns with
// other accounts', so a queue longer than this only makes the account
// wait; the next create_job-like call is refused naming the cap.
const MaxQueuedJobs = 20

// Refusal is the cause carried by a rate_limited error: the limit that
// refused, and how long until a retry may succeed (zero when waiting does
// not help, as for a cap).
type Refusal struct {
	Limit      string
	RetryAfter time.Duration
}

func (r *Refusal) Error() string { return "refused by the " + r.Limit + " limit" }

// Refused returns a rate_limited error from the limit named limit, whose
// message (format, args) tells the caller what to do.
func Refused(limit string, retryAfter time.Duration, format string, args ...any) error {
	return &Error{Kind: KindRateLimited, Message: fmt.Sprintf(format, args...), Err: &Refusal{Limit: limit, RetryAfter: retryAfter}}
}

// RefusalOf returns the refusal err carries, if any.
func RefusalOf(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}
