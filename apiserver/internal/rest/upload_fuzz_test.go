package rest

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// FuzzUploadAuthorization holds the upload token parser's promises for
// any Authorization header: it never panics; it accepts exactly
// "Upload <token>" with a non-empty token, handing the token on
// unchanged; anything else is unauthenticated with a reason that never
// echoes the header.
func FuzzUploadAuthorization(f *testing.F) {
	for _, h := range []string{"Upload abc", "Upload ", "upload abc", "Bearer abc", "Upload  two spaces", "Upload\tx", "", "Upload \x00"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest("PUT", "/media/m1", strings.NewReader("x"))
		r.Header["Authorization"] = []string{header}
		req, err := decodeUploadRequest(context.Background(), r)
		ok := strings.HasPrefix(header, "Upload ") && len(header) > len("Upload ")
		if !ok {
			if err == nil || !contracts.IsKind(err, contracts.KindUnauthenticated) {
				t.Fatalf("header %q: %v, want unauthenticated", header, err)
			}
			if len(header) > 8 && strings.Contains(err.Error(), header) {
				t.Fatalf("the refusal echoes the header: %v", err)
			}
			return
		}
		if err != nil || req.(uploadRequest).token != header[len("Upload "):] {
			t.Fatalf("header %q: %+v, %v", header, req, err)
		}
	})
}
