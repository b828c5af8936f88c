package mcpcore

import (
	"bytes"
	"context"
	"hash/maphash"
	"sync"
)

// Cancellation of running tool calls by notifications/cancelled (the
// handshake era, and any transport other than modern-era HTTP).

// inflightRegistry finds the running calls of a (scope, request id). It is
// keyed by a hash so registering a call allocates nothing: the entry lives
// in the CallRequest and the id aliases the request body, both of which
// outlive the registration.
type inflightRegistry struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64]*inflightCall // chains colliding and repeated keys
}

// inflightCall is one registered call.
type inflightCall struct {
	hash   uint64
	scope  string
	id     []byte
	cancel context.CancelCauseFunc
	next   *inflightCall
}

func newInflightRegistry() inflightRegistry {
	return inflightRegistry{seed: maphash.MakeSeed(), m: make(map[uint64]*inflightCall)}
}

func (r *inflightRegistry) hash(scope string, id []byte) uint64 {
	return maphash.String(r.seed, scope) ^ maphash.Bytes(r.seed, id)*0x9e3779b97f4a7c15
}

// add registers c, whose scope, id and cancel are set.
func (r *inflightRegistry) add(c *inflightCall) {
	c.hash = r.hash(c.scope, c.id)
	r.mu.Lock()
	c.next = r.m[c.hash]
	r.m[c.hash] = c
	r.mu.Unlock()
}

// remove unregisters c.
func (r *inflightRegistry) remove(c *inflightCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	head := r.m[c.hash]
	if head == c {
		if c.next == nil {
			delete(r.m, c.hash)
		} else {
			r.m[c.hash] = c.next
		}
		return
	}
	for p := head; p != nil; p = p.next {
		if p.next == c {
			p.next = c.next
			return
		}
	}
}

// cancel stops every running call of (scope, id).
func (r *inflightRegistry) cancel(scope string, id []byte) {
	h := r.hash(scope, id)
	var stop []context.CancelCauseFunc
	r.mu.Lock()
	for c := r.m[h]; c != nil; c = c.next {
		if c.scope == scope && bytes.Equal(c.id, id) {
			stop = append(stop, c.cancel)
		}
	}
	r.mu.Unlock()
	for _, f := range stop {
		f(errClientCancelled)
	}
}
