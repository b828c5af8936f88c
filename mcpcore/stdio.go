package mcpcore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// StdioDrainTimeout is how long ServeStdio lets in-flight requests finish
// after stdin closes before it cancels them and returns.
var StdioDrainTimeout = 5 * time.Second

// ServeStdio serves srv over newline-delimited JSON-RPC on in and out (the
// stdio transport): nothing but MCP messages are written to out. Requests
// run concurrently (except initialize and logging/setLevel, which change
// the connection and run in order); notifications/cancelled cancels them;
// in the handshake era the handlers' requests to the client travel on the
// same pipe. When in is exhausted it lets in-flight requests finish for up
// to StdioDrainTimeout, then cancels them and returns; it also returns when
// ctx ends. A principal in ctx applies to every request.
func ServeStdio(ctx context.Context, srv *Server, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	w := &lineOut{w: bufio.NewWriter(out)}
	tr := &transport{out: w, conn: &connState{}, scope: "stdio:" + NewRef()}
	var wg sync.WaitGroup
	defer func() {
		// Stdin is gone: no answer to a request to the client can arrive,
		// so in-flight work gets a grace period, then is cancelled.
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(StdioDrainTimeout):
			cancel()
			<-done
		}
		cancel()
	}()
	// Lines are read on their own goroutine, so ctx ending stops serving
	// even while stdin is quiet; that reader then ends with the process
	// or with in.
	lines := make(chan readLine)
	go readLines(ctx, in, lines)
	for {
		var rl readLine
		select {
		case <-ctx.Done():
			return ctx.Err()
		case rl = <-lines:
		}
		line := bytes.TrimSpace(rl.line)
		if len(line) > 0 {
			msg := line // ReadBytes returns a fresh slice per call
			if isRequest(msg) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					serveLine(ctx, srv, msg, tr, w)
				}()
			} else {
				serveLine(ctx, srv, msg, tr, w)
			}
		}
		if rl.err != nil {
			if errors.Is(rl.err, io.EOF) {
				return nil
			}
			return rl.err
		}
	}
}

// readLine is one line of stdin, or the error that ended it.
type readLine struct {
	line []byte
	err  error
}

// readLines sends every line of in, the last one with the error that ended
// the input (io.EOF at its end), until ctx ends.
func readLines(ctx context.Context, in io.Reader, out chan<- readLine) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		select {
		case out <- readLine{line, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func serveLine(ctx context.Context, srv *Server, msg []byte, tr *transport, w *lineOut) {
	rep := srv.handle(ctx, msg, tr)
	if rep.body != nil {
		w.send(rep.body)
	}
	rep.release()
}

// isRequest reports whether msg looks like a request (has both method and
// id); such messages run concurrently, everything else in order.
func isRequest(msg []byte) bool {
	it, ok := newObjIter(msg)
	if !ok {
		return false
	}
	var method, id bool
	for {
		k, v, ok := it.next()
		if !ok {
			return method && id
		}
		switch string(k) {
		case "method":
			m, _ := jsonString(v)
			if m == "initialize" || m == "logging/setLevel" {
				return false // changes the connection: must finish before the next line
			}
			method = true
		case "id":
			id = true
		}
	}
}

// lineOut writes one message per line.
type lineOut struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (l *lineOut) send(msg []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(msg)
	l.w.WriteByte('\n')
	return l.w.Flush()
}

func (l *lineOut) requests() bool { return true }
