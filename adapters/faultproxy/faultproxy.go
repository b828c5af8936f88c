// Package faultproxy is a TCP proxy for fault tests (test support only): it forwards
// connections to a target until told to blackhole them (keep the
// connections open but forward nothing, as a dead network path does) or
// to refuse new ones, and recovers when told to.
package faultproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards TCP connections from Addr to a target.
type Proxy struct {
	ln     net.Listener
	target string
	hole   atomic.Bool
	refuse atomic.Bool

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// Start listens on a loopback port and forwards to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Blackhole makes the proxy forward nothing, in both directions, on open
// and new connections (which it still accepts), until Heal.
func (p *Proxy) Blackhole() { p.hole.Store(true) }

// Refuse makes the proxy close new connections at once and drop the open
// ones, as a stopped server does, until Heal.
func (p *Proxy) Refuse() {
	p.refuse.Store(true)
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

// Heal restores forwarding for new connections. Connections that were
// blackholed stay dead, as they would after a real outage.
func (p *Proxy) Heal() {
	p.hole.Store(false)
	p.refuse.Store(false)
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.refuse.Load() {
			c.Close()
			continue
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	p.track(c, true)
	defer p.track(c, false)
	defer c.Close()
	if p.hole.Load() { // a connection opened into a blackhole never gets through
		_, _ = io.Copy(io.Discard, c)
		return
	}
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	p.track(up, true)
	defer p.track(up, false)
	defer up.Close()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			c.Close()
			if up != nil {
				up.Close()
			}
		})
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); defer stop(); p.pipe(up, c) }()
	go func() { defer wg.Done(); defer stop(); p.pipe(c, up) }()
	wg.Wait()
}

// pipe copies src to dst while forwarding is on; in a blackhole it reads
// and drops.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	dead := false
	for {
		n, err := src.Read(buf)
		if n > 0 && !dead && !p.hole.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		} else if n > 0 {
			dead = true // once blackholed, a connection stays dead
		}
		if err != nil {
			return
		}
	}
}
