package mcpcore

import (
	"context"
	"encoding/base64"
	"strconv"
	"sync"
)

// pageCache holds serialized tools/list results keyed by era, page and the
// caller's visible set, so a list is assembled once per distinct view.
type pageCache struct {
	mu sync.RWMutex
	m  map[string][]byte
}

const maxCachedPages = 4096

func (c *pageCache) get(key []byte) ([]byte, bool) {
	c.mu.RLock()
	v, ok := c.m[string(key)]
	c.mu.RUnlock()
	return v, ok
}

func (c *pageCache) put(key []byte, v []byte) {
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string][]byte)
	}
	if len(c.m) < maxCachedPages {
		c.m[string(key)] = v
	}
	c.mu.Unlock()
}

// encodeCursor makes an opaque cursor for a list offset.
func encodeCursor(off int) string {
	return base64.RawURLEncoding.EncodeToString(strconv.AppendInt([]byte("o:"), int64(off), 10))
}

// decodeCursor returns the offset of a cursor, or -1 if it is invalid.
func decodeCursor(raw []byte) int {
	if isNull(raw) {
		return 0
	}
	c, ok := jsonString(raw)
	if !ok {
		return -1
	}
	d, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(d) < 3 || d[0] != 'o' || d[1] != ':' {
		return -1
	}
	n, err := strconv.Atoi(string(d[2:]))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

var errInvalidCursor = &Error{Code: CodeInvalidParams, Message: "Invalid params: invalid cursor"}

// toolVisible applies the scope and visibility rules for the caller.
func (x *exchange) toolVisible(ctx context.Context, te *toolEntry) (bool, error) {
	if x.principal == nil {
		return true, nil
	}
	if !te.allows(x.principal.Scopes) {
		return false, nil
	}
	if f := x.s.opts.ToolVisible; f != nil {
		return f(ctx, te.def.Name)
	}
	return true, nil
}

func (x *exchange) toolsList(ctx context.Context, b []byte) ([]byte, error) {
	s := x.s
	off := decodeCursor(x.p.cursor)
	if off < 0 {
		return b, errInvalidCursor
	}
	// Key: era, offset, visible-set bitmap.
	var kb [96]byte
	key := kb[:0]
	if x.modern {
		key = append(key, 'm')
	} else {
		key = append(key, 'l')
	}
	key = strconv.AppendInt(key, int64(off), 10)
	key = append(key, ':')
	bm := len(key)
	visible := 0
	sel, err := x.selection(ctx)
	if err != nil {
		return b, err
	}
	filtered := x.principal != nil || sel.filters()
	if !filtered {
		visible = len(s.tools)
		key = append(key, '*')
	} else {
		var cur byte
		for i, te := range s.tools {
			ok := sel.includes(te)
			if ok {
				if ok, err = x.toolVisible(ctx, te); err != nil {
					return b, err
				}
			}
			if ok {
				cur |= 1 << (i % 8)
				visible++
			}
			if i%8 == 7 || i == len(s.tools)-1 {
				key = append(key, cur)
				cur = 0
			}
		}
	}
	if off > visible || (off > 0 && off == visible) {
		return b, errInvalidCursor
	}
	if page, ok := s.pages.get(key); ok {
		return append(b, page...), nil
	}
	start := len(b)
	b = append(b, `{"tools":[`...)
	n, idx := 0, -1
	next := -1
	for i, te := range s.tools {
		if filtered && key[bm+i/8]&(1<<(i%8)) == 0 {
			continue
		}
		idx++
		if idx < off {
			continue
		}
		if n == s.pageSize {
			next = idx
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, te.json...)
		n++
	}
	b = append(b, ']')
	if next >= 0 {
		b = append(b, `,"nextCursor":`...)
		b = appendString(b, encodeCursor(next))
	}
	b, err = x.tail(b, nil, true)
	if err != nil {
		return b, err
	}
	s.pages.put(key, append([]byte(nil), b[start:]...))
	return b, nil
}

// scopesAllow reports whether the caller holds every scope.
func (x *exchange) scopesAllow(scopes []string) bool {
	return x.principal == nil || hasAll(x.principal.Scopes, scopes)
}

// paginate writes items[off:off+pageSize] via write and the nextCursor.
func (x *exchange) paginate(b []byte, field string, count int, write func(b []byte, i int) []byte) ([]byte, error) {
	off := decodeCursor(x.p.cursor)
	if off < 0 || off > count || (off > 0 && off == count) {
		return b, errInvalidCursor
	}
	b = append(b, '{', '"')
	b = append(b, field...)
	b = append(b, `":[`...)
	end := min(off+x.s.pageSize, count)
	for i := off; i < end; i++ {
		if i > off {
			b = append(b, ',')
		}
		b = write(b, i)
	}
	b = append(b, ']')
	if end < count {
		b = append(b, `,"nextCursor":`...)
		b = appendString(b, encodeCursor(end))
	}
	return x.tail(b, nil, true)
}

func (x *exchange) resourcesList(ctx context.Context, b []byte) ([]byte, error) {
	var list []*Resource
	for _, r := range x.s.resources {
		if !r.Unlisted && x.scopesAllow(r.Scopes) {
			list = append(list, r)
		}
	}
	return x.paginate(b, "resources", len(list), func(b []byte, i int) []byte {
		r := list[i]
		b = append(b, `{"uri":`...)
		b = appendString(b, r.URI)
		b = append(b, `,"name":`...)
		b = appendString(b, r.Name)
		b = appendOpt(b, "title", r.Title)
		b = appendOpt(b, "description", r.Description)
		b = appendOpt(b, "mimeType", r.MIMEType)
		b, _ = appendAnnotations(b, r.Annotations)
		b, _ = appendMeta(b, r.Meta)
		return append(b, '}')
	})
}

func (x *exchange) templatesList(ctx context.Context, b []byte) ([]byte, error) {
	var list []*templateEntry
	for _, t := range x.s.templates {
		if x.scopesAllow(t.def.Scopes) {
			list = append(list, t)
		}
	}
	return x.paginate(b, "resourceTemplates", len(list), func(b []byte, i int) []byte {
		t := &list[i].def
		b = append(b, `{"uriTemplate":`...)
		b = appendString(b, t.URITemplate)
		b = append(b, `,"name":`...)
		b = appendString(b, t.Name)
		b = appendOpt(b, "title", t.Title)
		b = appendOpt(b, "description", t.Description)
		b = appendOpt(b, "mimeType", t.MIMEType)
		b, _ = appendAnnotations(b, t.Annotations)
		b, _ = appendMeta(b, t.Meta)
		return append(b, '}')
	})
}

func (x *exchange) promptsList(ctx context.Context, b []byte) ([]byte, error) {
	return x.paginate(b, "prompts", len(x.s.prompts), func(b []byte, i int) []byte {
		return x.s.prompts[i].appendListJSON(b)
	})
}
