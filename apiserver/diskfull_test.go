//go:build linux

package apiserver_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// SQLite on a file system that fills up (a 4 MiB tmpfs the test mounts;
// it needs the right to mount, as root has, and is skipped otherwise):
// writes answer "temporarily unavailable" (503, Retry-After), never
// "internal error"; reads keep working; nothing acknowledged before is
// lost; and once space is freed, writes succeed again without a restart.
func TestFaultSQLiteDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=4m,mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	e := newEnv(t, "sqlite:"+filepath.Join(dir, "takhtabush.db"), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	deck := func(name string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":%q}}}`, name)
	}
	var acked []string
	for i := range 3 {
		name := fmt.Sprintf("Before the disk filled %d", i)
		if resp, body := e.rpc(t, deck(name), bearer(key)); resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"isError":true`) {
			t.Fatalf("before the fault: %d %s", resp.StatusCode, body)
		}
		acked = append(acked, name)
	}
	// Fill the file system to the last byte.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling: %v", err)
			}
			break
		}
	}
	for n := 4096; n > 0; n /= 2 { // the last partial chunk
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
	f.Close()
	// A write large enough to need new pages in the WAL.
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":"During the fault","description":%q}}}`, strings.Repeat("x", 1500))
	var failed int
	for range 5 {
		resp, body := e.rpc(t, big, bearer(key))
		if resp.StatusCode == http.StatusOK && !strings.Contains(string(body), `"isError":true`) {
			continue // it fit in pages SQLite had already
		}
		failed++
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), "Temporarily unavailable") || strings.Contains(string(body), "nternal error") {
			t.Fatalf("a write on a full disk: %d %s; want 503 temporarily unavailable", resp.StatusCode, body)
		}
	}
	if failed == 0 {
		t.Fatal("no write failed on the full file system")
	}
	t.Logf("full disk: %d of 5 writes answered 503 temporarily unavailable", failed)
	if !strings.Contains(e.logs.String(), "full") {
		t.Errorf("the log does not name the cause (database or disk full):\n%.2000s", e.logs.String())
	}
	resp, body := e.rpc(t, listDecks, bearer(key))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a read on a full disk: %d %s", resp.StatusCode, body)
	}
	for _, name := range acked {
		if !strings.Contains(string(body), name) {
			t.Errorf("acknowledged deck %q is missing on the full disk: %s", name, body)
		}
	}
	// Space comes back: the next write succeeds, no restart.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if resp, body := e.rpc(t, deck("After the fault"), bearer(key)); resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"isError":true`) {
		t.Fatalf("after space came back: %d %s", resp.StatusCode, body)
	}
	resp, body = e.rpc(t, listDecks, bearer(key))
	for _, name := range append(acked, "After the fault") {
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), name) {
			t.Errorf("deck %q is missing after recovery: %d %s", name, resp.StatusCode, body)
		}
	}
}
