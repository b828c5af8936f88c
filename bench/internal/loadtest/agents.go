package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Tools the agents call.
const (
	toolStart  = "start_study_session"
	toolReview = "submit_review"
)

// loadOutcome is what the agents saw.
type loadOutcome struct {
	elapsed   time.Duration
	latencies []time.Duration // every answered call
	acked     map[string]int  // acknowledged mutations per tool (replays not counted)
	replays   int             // submit_review answered as a replay
	toolErrs  map[string]int  // isError results, by message start
	status    map[int]int     // HTTP status of every answered call
	transport int             // calls with no HTTP answer
	rpcErrs   int             // JSON-RPC errors
	samples   []string        // the first few failures, for the report
}

// drive runs the agents against env until the duration or the call
// budget is spent. Calls in flight at the end finish: a call cut off
// after the server committed it would be applied but not acknowledged,
// which the checks would count as a loss that is not one.
func drive(ctx context.Context, cfg Config, e *env) loadOutcome {
	var (
		issued  atomic.Int64
		mu      sync.Mutex
		total   = loadOutcome{acked: map[string]int{}, toolErrs: map[string]int{}, status: map[int]int{}}
		wg      sync.WaitGroup
		started = time.Now()
		end     = started.Add(cfg.Duration)
	)
	for i, acct := range e.agents {
		wg.Go(func() {
			a := agent{acct: acct, e: e, rng: rand.New(rand.NewPCG(uint64(i), 42)), out: loadOutcome{acked: map[string]int{}, toolErrs: map[string]int{}, status: map[int]int{}}}
			for ctx.Err() == nil && time.Now().Before(end) && issued.Add(1) <= int64(cfg.MaxCalls) {
				a.step(ctx)
			}
			mu.Lock()
			total.merge(a.out)
			mu.Unlock()
		})
	}
	wg.Wait()
	total.elapsed = time.Since(started)
	return total
}

func (o *loadOutcome) merge(a loadOutcome) {
	o.latencies = append(o.latencies, a.latencies...)
	for k, v := range a.acked {
		o.acked[k] += v
	}
	for k, v := range a.toolErrs {
		o.toolErrs[k] += v
	}
	for k, v := range a.status {
		o.status[k] += v
	}
	o.replays += a.replays
	o.transport += a.transport
	o.rpcErrs += a.rpcErrs
	for _, s := range a.samples {
		if len(o.samples) < 5 {
			o.samples = append(o.samples, s)
		}
	}
}

// agent is one simulated agent: it starts a session on its deck and
// rates the card shown until the session ends, then starts another (a
// cram session once its new cards are studied).
type agent struct {
	acct    agentAccount
	e       *env
	rng     *rand.Rand
	session string
	card    string
	pos     int
	cram    bool
	id      int
	out     loadOutcome
	buf     bytes.Buffer
}

// studyCard is the part of a session's current card the agent needs.
type studyCard struct {
	CardID   string `json:"cardId"`
	Position int    `json:"position"`
}

// toolAnswer is the part of start_study_session's and submit_review's
// structured results the agent needs.
type toolAnswer struct {
	SessionID string     `json:"sessionId"`
	Current   *studyCard `json:"current"` // start_study_session
	Next      *studyCard `json:"next"`    // submit_review
	Replayed  bool       `json:"replayed"`
}

// step makes one call.
func (a *agent) step(ctx context.Context) {
	var tool string
	var args any
	if a.card == "" {
		tool = toolStart
		if a.cram {
			args = map[string]any{"deckId": a.acct.deckID, "cram": true, "reviewLimit": 50}
		} else {
			args = map[string]any{"deckId": a.acct.deckID, "newLimit": 100}
		}
	} else {
		tool = toolReview
		args = map[string]any{"sessionId": a.session, "cardId": a.card, "position": a.pos, "rating": a.rating(), "durationMs": 1500}
	}
	res, ok := a.call(ctx, tool, args)
	if !ok {
		if tool == toolReview {
			a.card = "" // start afresh
		}
		return
	}
	if tool == toolReview && res.Replayed {
		a.out.replays++
	} else {
		a.out.acked[tool]++
	}
	cur := res.Current
	if tool == toolReview {
		cur = res.Next
	} else {
		a.session = res.SessionID
		if cur == nil {
			a.cram = true // every new card studied: cram from now on
		}
	}
	if cur == nil {
		a.card = ""
		return
	}
	a.card, a.pos = cur.CardID, cur.Position
}

// rating is mostly "good" and "easy", sometimes "hard" or "again", as a
// learner's answers are.
func (a *agent) rating() string {
	switch r := a.rng.IntN(100); {
	case r < 5:
		return "again"
	case r < 15:
		return "hard"
	case r < 70:
		return "good"
	default:
		return "easy"
	}
}

// call sends one tools/call and reports whether it was acknowledged:
// HTTP 200 with a result that is not an error.
func (a *agent) call(ctx context.Context, tool string, args any) (toolAnswer, bool) {
	a.id++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.e.endpoint, bytes.NewReader(body))
	if err != nil {
		a.fail("request: " + err.Error())
		return toolAnswer{}, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+a.acct.key)
	t0 := time.Now()
	resp, err := a.e.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			a.out.transport++
			a.fail(tool + ": " + err.Error())
		}
		return toolAnswer{}, false
	}
	a.buf.Reset()
	_, err = io.Copy(&a.buf, resp.Body)
	resp.Body.Close()
	if err != nil {
		if ctx.Err() == nil {
			a.out.transport++
			a.fail(tool + ": reading the answer: " + err.Error())
		}
		return toolAnswer{}, false
	}
	took := time.Since(t0)
	a.out.latencies = append(a.out.latencies, took)
	a.e.window.add(took)
	a.out.status[resp.StatusCode]++
	var msg struct {
		Result *struct {
			IsError    bool            `json:"isError"`
			Structured toolAnswer      `json:"structuredContent"`
			Content    json.RawMessage `json:"content"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.buf.Bytes(), &msg); err != nil || resp.StatusCode != http.StatusOK {
		a.fail(fmt.Sprintf("%s: HTTP %d %.300s", tool, resp.StatusCode, a.buf.Bytes()))
		if msg.Error != nil {
			a.out.rpcErrs++
		}
		return toolAnswer{}, false
	}
	switch {
	case msg.Error != nil:
		a.out.rpcErrs++
		a.fail(fmt.Sprintf("%s: JSON-RPC error %d %s", tool, msg.Error.Code, msg.Error.Message))
		return toolAnswer{}, false
	case msg.Result == nil:
		a.fail(fmt.Sprintf("%s: no result: %.300s", tool, a.buf.Bytes()))
		return toolAnswer{}, false
	case msg.Result.IsError:
		text := string(msg.Result.Content)
		a.out.toolErrs[tool+": "+shorten(text, 80)]++
		a.fail(fmt.Sprintf("%s: tool error %.300s", tool, text))
		return toolAnswer{}, false
	}
	return msg.Result.Structured, true
}

func (a *agent) fail(s string) {
	if len(a.out.samples) < 5 {
		a.out.samples = append(a.out.samples, s)
	}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
