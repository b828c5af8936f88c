package loadtest

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"
)

// proxy is a small round-robin HTTP proxy in front of several instances:
// each request goes to the next instance, so consecutive calls of one
// agent land on different instances (the service keeps no session state
// in memory). It adds no X-Forwarded-For: to the instances the requests
// come straight from loopback.
type proxy struct {
	srv  *http.Server
	base string
}

func startProxy(targets []string, conns int) (*proxy, error) {
	urls := make([]*url.URL, len(targets))
	for i, t := range targets {
		u, err := url.Parse(t)
		if err != nil {
			return nil, err
		}
		urls[i] = u
	}
	var next atomic.Uint64
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(urls[(next.Add(1)-1)%uint64(len(urls))])
			r.Out.Host = r.In.Host
		},
		Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, IdleConnTimeout: time.Minute},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{srv: &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}, base: "http://" + ln.Addr().String()}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *proxy) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
}
