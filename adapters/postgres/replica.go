package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Read replicas. Routed sends the reads that tolerate a little lag
// (deck lists, card search, card counts and due forecasts, review
// statistics and review lists: what stats, plans, search and list pages
// read) outside transactions (InTx and call transactions alike) to a
// streaming replica, and everything else
// (every write, every transaction, every other read) to the primary.
//
// Read-your-writes across stateless instances: a principal that wrote
// within the read-your-writes window reads from the primary. This
// instance remembers whom it saw write (a transaction or an audit row in
// the principal's context); for the writes other instances made, it asks
// the primary for the principal's latest audit event (every agent
// mutation writes one), at most once per principal every
// auditCheckEvery. The window is MinFreshWindow plus twice the largest
// replica lag measured.
//
// Lag is measured every LagEvery: the primary's current WAL position is
// read, then the replica is polled until it has replayed past it. A
// replica that does not answer, is not replaying, or lags more than
// MaxReplicaLag is left out until it catches up; a read that fails on a
// replica is retried on the primary. So when every replica goes away,
// reads fall back to the primary.
const (
	LagEvery        = time.Second
	MaxReplicaLag   = 5 * time.Second
	MinFreshWindow  = 3 * time.Second
	auditCheckEvery = 250 * time.Millisecond
)

// Routed is a primary store with read replicas (see above). It is a
// ports.Database.
type Routed struct {
	*Store // the primary: every method not routed below
	reps   []*replica
	next   atomic.Uint64
	log    *slog.Logger

	mu      sync.Mutex
	wrote   map[string]time.Time // principal user id → its latest write seen here
	checked map[string]auditSeen // principal user id → the primary's answer

	stop chan struct{}
	done sync.WaitGroup
	// replicaReads counts the reads a replica answered.
	replicaReads atomic.Int64
}

type auditSeen struct {
	at, checked time.Time
}

// replica is one read replica and what the monitor knows of it.
type replica struct {
	s       *Store
	lag     atomic.Int64 // nanoseconds, the last measurement
	healthy atomic.Bool
}

var _ ports.Database = (*Routed)(nil)

// OpenRouted opens the primary at url (applying the migrations, as Open
// does) and a store on each replica URL (no migrations: a replica is
// read-only), and starts measuring the replicas' lag. A replica that does
// not answer at start is not an error: it is left out until it answers.
// log may be nil.
func OpenRouted(ctx context.Context, url string, replicaURLs []string, log *slog.Logger, opts ...Option) (*Routed, error) {
	primary, err := Open(ctx, url, opts...)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Routed{Store: primary, log: log, wrote: map[string]time.Time{}, checked: map[string]auditSeen{}, stop: make(chan struct{})}
	for i, u := range replicaURLs {
		s, err := Open(ctx, u, append(opts, WithoutMigrate())...)
		if err != nil && contracts.KindOf(err) != contracts.KindUnavailable {
			_ = r.Close()
			return nil, fmt.Errorf("replica %d: %w", i+1, err)
		}
		if err != nil { // away at start: the monitor keeps trying
			s, err = openLazy(u, opts...)
			if err != nil {
				_ = r.Close()
				return nil, fmt.Errorf("replica %d: %w", i+1, err)
			}
		}
		rep := &replica{s: s}
		r.reps = append(r.reps, rep)
		r.measure(ctx, rep)
		r.done.Add(1)
		go r.monitor(rep)
	}
	return r, nil
}

// openLazy opens a store without checking that the database answers.
func openLazy(url string, opts ...Option) (*Store, error) {
	return Open(context.Background(), url, append(opts, WithoutMigrate(), withoutPing())...)
}

// Close stops the monitors and closes every store.
func (r *Routed) Close() error {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	r.done.Wait()
	errs := []error{r.Store.Close()}
	for _, rep := range r.reps {
		errs = append(errs, rep.s.Close())
	}
	return errors.Join(errs...)
}

// ReplicaReads reports how many reads the replicas answered.
func (r *Routed) ReplicaReads() int64 { return r.replicaReads.Load() }

// monitor measures a replica's lag every LagEvery until Close.
func (r *Routed) monitor(rep *replica) {
	defer r.done.Done()
	t := time.NewTicker(LagEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), MaxReplicaLag+time.Second)
			r.measure(ctx, rep)
			cancel()
		}
	}
}

// measure reads the primary's WAL position and waits for the replica to
// replay past it: the time that takes is the replica's lag.
func (r *Routed) measure(ctx context.Context, rep *replica) {
	was := rep.healthy.Load()
	ok, lag := r.lagOf(ctx, rep)
	rep.lag.Store(int64(lag))
	rep.healthy.Store(ok)
	if was != ok {
		if ok {
			r.log.Info("read replica serving", "lag_ms", lag.Milliseconds())
		} else {
			r.log.Warn("read replica left out: unreachable, not replaying, or lagging", "lag_ms", lag.Milliseconds())
		}
	}
}

func (r *Routed) lagOf(ctx context.Context, rep *replica) (bool, time.Duration) {
	var lsn string
	if err := r.DB().QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return false, 0
	}
	start := time.Now()
	for {
		var caught sql.NullBool
		err := rep.s.DB().QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, lsn).Scan(&caught)
		lag := time.Since(start)
		switch {
		case err != nil, !caught.Valid: // away, or not a replica at all
			return false, lag
		case caught.Bool:
			return true, lag
		case lag > MaxReplicaLag:
			return false, lag
		}
		select {
		case <-ctx.Done():
			return false, lag
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// freshWindow is how long after a write a principal reads from the primary.
func (r *Routed) freshWindow() time.Duration {
	var worst int64
	for _, rep := range r.reps {
		worst = max(worst, rep.lag.Load())
	}
	return MinFreshWindow + 2*time.Duration(worst)
}

// noteWrite remembers that the principal of ctx (or userID) wrote now.
func (r *Routed) noteWrite(ctx context.Context, userID string) {
	if userID == "" {
		p, ok := contracts.PrincipalFrom(ctx)
		if !ok || p.UserID == "" {
			return
		}
		userID = p.UserID
	}
	now := time.Now()
	r.mu.Lock()
	r.wrote[userID] = now
	if len(r.wrote) > 10_000 { // forget the writes older than any window
		for id, at := range r.wrote {
			if now.Sub(at) > MinFreshWindow+2*MaxReplicaLag {
				delete(r.wrote, id)
			}
		}
	}
	r.mu.Unlock()
}

// reader picks the store a lag-tolerant read of ctx's principal goes to:
// a healthy replica, unless the principal wrote within the window (here
// or, by its audit trail, on another instance) or no replica is healthy.
func (r *Routed) reader(ctx context.Context) *Store {
	if r.InCall(ctx) {
		return r.Store // the read belongs to a call transaction on the primary
	}
	var rep *replica
	for range r.reps {
		c := r.reps[r.next.Add(1)%uint64(len(r.reps))]
		if c.healthy.Load() {
			rep = c
			break
		}
	}
	if rep == nil {
		return r.Store
	}
	if p, ok := contracts.PrincipalFrom(ctx); ok && p.UserID != "" && r.wroteRecently(ctx, p.UserID) {
		return r.Store
	}
	return rep.s
}

// wroteRecently reports whether userID wrote within the window: seen
// here, or in the primary's audit trail (checked at most once per
// auditCheckEvery per principal). When the primary cannot say, it
// answers true: the read goes to the primary, which is always fresh.
func (r *Routed) wroteRecently(ctx context.Context, userID string) bool {
	now, window := time.Now(), r.freshWindow()
	r.mu.Lock()
	at, seen := r.wrote[userID]
	c, hasCheck := r.checked[userID]
	r.mu.Unlock()
	if seen && now.Sub(at) < window {
		return true
	}
	if !hasCheck || now.Sub(c.checked) > auditCheckEvery {
		var ms sql.NullInt64
		err := r.DB().QueryRowContext(ctx, `SELECT at FROM mcp_audit_events WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, userID).Scan(&ms)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return true
		}
		c = auditSeen{checked: now}
		if ms.Valid {
			c.at = time.UnixMilli(ms.Int64)
		}
		r.mu.Lock()
		if len(r.checked) > 10_000 {
			clear(r.checked)
		}
		r.checked[userID] = c
		r.mu.Unlock()
	}
	return !c.at.IsZero() && now.Sub(c.at) < window
}

// read runs a lag-tolerant read on the store reader picks, and on the
// primary when a replica fails it as unavailable (the replica is left out
// until the monitor sees it again).
func read[T any](r *Routed, ctx context.Context, f func(s *Store) (T, error)) (T, error) {
	s := r.reader(ctx)
	v, err := f(s)
	if s == r.Store {
		return v, err
	}
	if err != nil && contracts.KindOf(err) == contracts.KindUnavailable && ctx.Err() == nil {
		for _, rep := range r.reps {
			if rep.s == s {
				rep.healthy.Store(false)
			}
		}
		r.log.Warn("read replica failed a read; reading from the primary", "err", err)
		return f(r.Store)
	}
	if err == nil {
		r.replicaReads.Add(1)
	}
	return v, err
}

// InTx runs fn on the primary and remembers the principal wrote.
func (r *Routed) InTx(ctx context.Context, fn func(tx ports.Stores) error) error {
	err := r.Store.InTx(ctx, fn)
	r.noteWrite(ctx, "")
	return err
}

// InCallTx runs fn in a call transaction on the primary and remembers the
// principal wrote.
func (r *Routed) InCallTx(ctx context.Context, fn func(ctx context.Context) error) error {
	err := r.Store.InCallTx(ctx, fn)
	r.noteWrite(ctx, "")
	return err
}

// Decks routes ListDecks.
func (r *Routed) Decks() ports.DeckStore { return routedDecks{DeckStore: r.Store.Decks(), r: r} }

// Cards routes Search, CountPhases, DueCounts and DueHistogram.
func (r *Routed) Cards() ports.CardStore { return routedCards{CardStore: r.Store.Cards(), r: r} }

// Reviews routes the review statistics and ListReviews.
func (r *Routed) Reviews() ports.ReviewStore {
	return routedReviews{ReviewStore: r.Store.Reviews(), r: r}
}

// Audit remembers who wrote: every agent mutation appends an event.
func (r *Routed) Audit() ports.AuditStore { return routedAudit{AuditStore: r.Store.Audit(), r: r} }

type routedDecks struct {
	ports.DeckStore
	r *Routed
}

func (d routedDecks) ListDecks(ctx context.Context, userID, afterID string, limit int, now time.Time) ([]contracts.Deck, error) {
	return read(d.r, ctx, func(s *Store) ([]contracts.Deck, error) {
		return s.Store.Decks().ListDecks(ctx, userID, afterID, limit, now)
	})
}

type routedCards struct {
	ports.CardStore
	r *Routed
}

func (c routedCards) Search(ctx context.Context, userID string, f contracts.CardFilter, afterID string, limit int, now time.Time) ([]ports.CardRow, error) {
	return read(c.r, ctx, func(s *Store) ([]ports.CardRow, error) {
		return s.Store.Cards().Search(ctx, userID, f, afterID, limit, now)
	})
}

func (c routedCards) CountPhases(ctx context.Context, userID, deckID string) (contracts.PhaseCounts, error) {
	return read(c.r, ctx, func(s *Store) (contracts.PhaseCounts, error) {
		return s.Store.Cards().CountPhases(ctx, userID, deckID)
	})
}

func (c routedCards) DueCounts(ctx context.Context, userID, deckID string, bounds []time.Time) ([]int, error) {
	return read(c.r, ctx, func(s *Store) ([]int, error) { return s.Store.Cards().DueCounts(ctx, userID, deckID, bounds) })
}

func (c routedCards) DueHistogram(ctx context.Context, userID, deckID string, start time.Time, days int) ([]int, error) {
	return read(c.r, ctx, func(s *Store) ([]int, error) {
		return s.Store.Cards().DueHistogram(ctx, userID, deckID, start, days)
	})
}

type routedReviews struct {
	ports.ReviewStore
	r *Routed
}

func (v routedReviews) ReviewDays(ctx context.Context, userID, deckID string, since time.Time) ([]ports.ReviewDay, error) {
	return read(v.r, ctx, func(s *Store) ([]ports.ReviewDay, error) {
		return s.Store.Reviews().ReviewDays(ctx, userID, deckID, since)
	})
}

func (v routedReviews) Retention(ctx context.Context, userID, deckID string, since time.Time) (int, int, error) {
	type pair struct{ total, passed int }
	p, err := read(v.r, ctx, func(s *Store) (pair, error) {
		t, ok, err := s.Store.Reviews().Retention(ctx, userID, deckID, since)
		return pair{t, ok}, err
	})
	return p.total, p.passed, err
}

func (v routedReviews) RetentionSplit(ctx context.Context, userID, deckID string, since time.Time, matureDays int) (ports.RetentionCounts, error) {
	return read(v.r, ctx, func(s *Store) (ports.RetentionCounts, error) {
		return s.Store.Reviews().RetentionSplit(ctx, userID, deckID, since, matureDays)
	})
}

func (v routedReviews) AverageDuration(ctx context.Context, userID string, since time.Time) (float64, int, error) {
	type pair struct {
		mean float64
		n    int
	}
	p, err := read(v.r, ctx, func(s *Store) (pair, error) {
		m, n, err := s.Store.Reviews().AverageDuration(ctx, userID, since)
		return pair{m, n}, err
	})
	return p.mean, p.n, err
}

func (v routedReviews) ListReviews(ctx context.Context, userID, afterID string, limit int) ([]ports.ReviewLog, error) {
	return read(v.r, ctx, func(s *Store) ([]ports.ReviewLog, error) {
		return s.Store.Reviews().ListReviews(ctx, userID, afterID, limit)
	})
}

type routedAudit struct {
	ports.AuditStore
	r *Routed
}

func (a routedAudit) AppendAudit(ctx context.Context, e contracts.AuditEvent) error {
	err := a.AuditStore.AppendAudit(ctx, e)
	a.r.noteWrite(ctx, e.UserID)
	return err
}
