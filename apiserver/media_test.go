package apiserver_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestMediaUpload: request_media_upload returns an intent whose URL and
// headers work exactly once; a wrong token, a wrong type or too many bytes
// are refused with the API's JSON errors.
func TestMediaUpload(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		mediaDir := t.TempDir()
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = mediaDir })
		secret, _ := e.key(t, contracts.ScopeMediaWrite)
		cs := connect(t, e.addr+"/mcp", bearer(secret), "")
		png := []byte("\x89PNG\r\n\x1a\nnot really a picture")
		var in contracts.MediaUploadIntent
		call(t, cs, contracts.ToolRequestMediaUpload, map[string]any{"contentType": "image/png", "bytes": len(png), "filename": "map.png"}, &in)
		if in.Method != http.MethodPut || !strings.HasPrefix(in.UploadURL, e.base+"/media/") || in.Headers["Authorization"] == "" {
			t.Fatalf("intent: %+v", in)
		}
		path := strings.TrimPrefix(in.UploadURL, e.base)

		put := func(header http.Header, body []byte) (int, string) {
			req, _ := http.NewRequest(http.MethodPut, e.addr+path, bytes.NewReader(body))
			for k, v := range header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		good := http.Header{}
		for k, v := range in.Headers {
			good.Set(k, v)
		}
		wrongToken := good.Clone()
		wrongToken.Set("Authorization", "Upload not-the-token")
		if code, body := put(wrongToken, png); code != http.StatusUnauthorized || !strings.Contains(body, `"kind":"unauthenticated"`) {
			t.Fatalf("wrong token: %d %s", code, body)
		}
		if code, body := put(http.Header{"Content-Type": {"image/png"}}, png); code != http.StatusUnauthorized {
			t.Fatalf("no token: %d %s", code, body)
		}
		wrongType := good.Clone()
		wrongType.Set("Content-Type", "image/gif")
		if code, body := put(wrongType, png); code != http.StatusBadRequest {
			t.Fatalf("wrong type: %d %s", code, body)
		}
		if code, body := put(good, append(png, '!')); code != http.StatusBadRequest || !strings.Contains(body, `"kind":"invalid"`) {
			t.Fatalf("too many bytes: %d %s", code, body)
		}
		if code, body := put(good, png); code != http.StatusNoContent {
			t.Fatalf("upload: %d %s", code, body)
		}
		stored, err := os.ReadFile(filepath.Join(mediaDir, "media", in.MediaID))
		if err != nil || !bytes.Equal(stored, png) {
			t.Fatalf("stored %q, %v", stored, err)
		}
		if code, body := put(good, png); code != http.StatusConflict {
			t.Fatalf("second upload: %d %s", code, body)
		}
	})
}
