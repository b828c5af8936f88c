package purge_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/purge"
)

// counts records what the scheduler counted.
type counts struct {
	mu       sync.Mutex
	rows     map[string]int
	failures map[string]int
}

func newCounts() *counts { return &counts{rows: map[string]int{}, failures: map[string]int{}} }

func (c *counts) Purged(job string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rows[job] += n
}

func (c *counts) PurgeFailed(job string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures[job]++
}

// backlog is a job over a pile of n rows that records each limit it was
// called with.
type backlog struct {
	mu     sync.Mutex
	left   int
	limits []int
	calls  int
}

func (b *backlog) run(_ context.Context, limit int) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	b.limits = append(b.limits, limit)
	n := min(limit, b.left)
	b.left -= n
	return n, nil
}

func TestRunNowDrainsInBatches(t *testing.T) {
	c := newCounts()
	s := purge.New(slog.New(slog.DiscardHandler), c, purge.Options{Batch: 10, Pause: time.Millisecond})
	pile := &backlog{left: 25}
	failing := errors.New("database away")
	s.Register(purge.Job{Name: "pile", Run: pile.run})
	s.Register(purge.Job{Name: "broken", Run: func(context.Context, int) (int, error) { return 3, failing }})
	got, err := s.RunNow(context.Background())
	if !errors.Is(err, failing) || !strings.Contains(err.Error(), "broken") {
		t.Errorf("RunNow error = %v, want the broken job's error named", err)
	}
	if got["pile"] != 25 || got["broken"] != 3 {
		t.Errorf("RunNow = %v, want pile 25 and broken 3", got)
	}
	// 10 + 10 + 5: the short batch says the pile is empty.
	if pile.calls != 3 || pile.limits[0] != 10 || pile.limits[2] != 10 {
		t.Errorf("the pile was called %d times with %v, want 3 batches of limit 10", pile.calls, pile.limits)
	}
	if c.rows["pile"] != 25 || c.rows["broken"] != 3 || c.failures["broken"] != 1 || c.failures["pile"] != 0 {
		t.Errorf("counted rows %v failures %v", c.rows, c.failures)
	}
	if again, err := s.RunNow(context.Background()); again["pile"] != 0 || pile.calls != 4 || err == nil {
		t.Errorf("a second run: %v, %d calls", again, pile.calls)
	}
	if names := s.Jobs(); len(names) != 2 || names[0] != "pile" || names[1] != "broken" {
		t.Errorf("Jobs() = %v", names)
	}
}

func TestStartRunsOnScheduleUntilStopped(t *testing.T) {
	c := newCounts()
	s := purge.New(slog.New(slog.DiscardHandler), c, purge.Options{Batch: 5})
	pile := &backlog{left: 12}
	ran := make(chan struct{}, 100)
	s.Register(purge.Job{Name: "pile", Every: 20 * time.Millisecond, Run: func(ctx context.Context, limit int) (int, error) {
		n, err := pile.run(ctx, limit)
		ran <- struct{}{}
		return n, err
	}})
	stop := s.Start(context.Background())
	deadline := time.After(10 * time.Second)
	for calls := 0; calls < 6; calls++ { // 3 calls drain the pile; later runs find it empty
		select {
		case <-ran:
		case <-deadline:
			stop()
			t.Fatalf("the job ran %d times in 10 s, want runs every 20 ms", calls)
		}
	}
	stop()
	pile.mu.Lock()
	calls := pile.calls
	pile.mu.Unlock()
	time.Sleep(60 * time.Millisecond)
	pile.mu.Lock()
	defer pile.mu.Unlock()
	if pile.calls != calls {
		t.Errorf("the job ran after stop (%d calls, then %d)", calls, pile.calls)
	}
	if pile.left != 0 || c.rows["pile"] != 12 {
		t.Errorf("left %d, counted %v; want the pile drained and counted", pile.left, c.rows)
	}
}

func TestRegisterRefusesWiringMistakes(t *testing.T) {
	s := purge.New(slog.New(slog.DiscardHandler), newCounts(), purge.Options{})
	job := purge.Job{Name: "one", Run: func(context.Context, int) (int, error) { return 0, nil }}
	s.Register(job)
	for name, j := range map[string]purge.Job{
		"a taken name": job,
		"no name":      {Run: job.Run},
		"no function":  {Name: "two"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register accepted %s", name)
				}
			}()
			s.Register(j)
		}()
	}
	stop := s.Start(context.Background())
	defer stop()
	defer func() {
		if recover() == nil {
			t.Error("Register accepted a job after Start")
		}
	}()
	s.Register(purge.Job{Name: "late", Run: job.Run})
}
