package harness

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// phase bounds one load phase in requests and in time; it stops at whichever
// limit comes first.
type phase struct {
	requests int
	duration time.Duration
}

// loadResult is the outcome of one load phase.
type loadResult struct {
	ok        int
	elapsed   time.Duration
	latencies []time.Duration // one per successful request, unsorted
}

// target is what the load generator sends to one server for one scenario.
type target struct {
	client *http.Client
	url    string
	header http.Header
	body   scenario.BodyFunc
	// seq numbers the calls: each request takes the next number and sends
	// body(number). It is shared by every phase of the run, so a scenario
	// that makes each request different never repeats one.
	seq *atomic.Int64
	// capacity is the most calls the server prepared (0: unlimited).
	capacity int
}

// nextBody returns the body of the next call.
func (t target) nextBody() []byte { return t.body(int(t.seq.Add(1) - 1)) }

// calls reports how many requests t has sent.
func (t target) calls() int { return int(t.seq.Load()) }

// runLoad drives t with workers keep-alive workers until the phase limit is
// reached. The first failed request (transport error, non-2xx status,
// JSON-RPC or tool error) stops the phase and is returned.
func runLoad(ctx context.Context, t target, workers int, p phase) (loadResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		issued   atomic.Int64
		wg       sync.WaitGroup
		perWork  = make([][]time.Duration, workers)
		start    = time.Now()
		deadline = start.Add(p.duration)
		quota    = int64(p.requests)
	)
	for w := range workers {
		wg.Go(func() {
			lat := make([]time.Duration, 0, p.requests/workers+1)
			var buf bytes.Buffer
			for ctx.Err() == nil && issued.Add(1) <= quota && time.Now().Before(deadline) {
				t0 := time.Now()
				if err := doRequest(ctx, t, &buf); err != nil {
					cancel(err)
					break
				}
				lat = append(lat, time.Since(t0))
			}
			perWork[w] = lat
		})
	}
	wg.Wait()
	res := loadResult{elapsed: time.Since(start)}
	if err := context.Cause(ctx); err != nil {
		return res, err
	}
	for _, l := range perWork {
		res.ok += len(l)
		res.latencies = append(res.latencies, l...)
	}
	return res, nil
}

// doRequest sends one request and checks the response cheaply.
func doRequest(ctx context.Context, t target, buf *bytes.Buffer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(t.nextBody()))
	if err != nil {
		return err
	}
	req.Header = t.header // shared and read-only: RoundTrip does not modify requests
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("reading response: %w", err)
	}
	return scenario.FastCheck(resp.StatusCode, buf.Bytes())
}

// fetch sends one request and returns the complete response, for the sanity check.
func fetch(ctx context.Context, t target) (*scenario.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(t.nextBody()))
	if err != nil {
		return nil, err
	}
	req.Header = t.header
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	return &scenario.Response{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: buf.Bytes()}, nil
}
