package apiserver

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseDatabaseURL(t *testing.T) {
	for _, c := range []struct{ in, kind, target string }{
		{"sqlite:./data/takhtabush.db", dbSQLite, "./data/takhtabush.db"},
		{"sqlite:///var/lib/tb.db", dbSQLite, "/var/lib/tb.db"},
		{"postgres://u:p@db:5432/tb?sslmode=disable", dbPostgres, "postgres://u:p@db:5432/tb?sslmode=disable"},
		{"postgresql://db/tb", dbPostgres, "postgresql://db/tb"},
	} {
		kind, target, err := parseDatabaseURL(c.in)
		if err != nil || kind != c.kind || target != c.target {
			t.Errorf("parseDatabaseURL(%q) = %q, %q, %v", c.in, kind, target, err)
		}
	}
	for _, bad := range []string{"", "sqlite:", "mysql://x", "./file.db"} {
		if _, _, err := parseDatabaseURL(bad); err == nil {
			t.Errorf("parseDatabaseURL(%q) succeeded", bad)
		}
	}
	if got := redactURL("postgres://u:hunter2@db/tb"); got != "postgres://u:xxxxx@db/tb" {
		t.Errorf("redactURL = %q", got)
	}
}

func TestNormalize(t *testing.T) {
	c, err := Config{Addr: "0.0.0.0:9000"}.normalize()
	if err != nil || c.BaseURL != "http://127.0.0.1:9000" || c.DatabaseURL != DefaultDatabaseURL || c.DevUserEmail != "owner@localhost" {
		t.Fatalf("normalize = %+v, %v", c, err)
	}
	c, err = Config{BaseURL: "HTTPS://Takhtabush.Example/", MCPHost: "MCP.Takhtabush.Example"}.normalize()
	if err != nil || c.BaseURL != "https://takhtabush.example" || c.MCPURL() != "https://takhtabush.example/mcp" {
		t.Fatalf("normalize = %+v, %v", c, err)
	}
	if hosts := c.allowedHosts(); !slices.Contains(hosts, "takhtabush.example") || !slices.Contains(hosts, "mcp.takhtabush.example") {
		t.Errorf("allowed hosts %v", hosts)
	}
	if c.DevMode() || (Config{DevNoAuth: true, Environment: "production"}).DevMode() || !(Config{DevNoAuth: true, Environment: "development"}).DevMode() {
		t.Error("DevMode must need ENVIRONMENT=development and MCP_DEV_NO_AUTH")
	}
	for _, bad := range []Config{{BaseURL: "takhtabush.example"}, {BaseURL: "https://x.example/app"}, {BaseURL: "ftp://x"}, {MCPHost: "https://mcp.x"}} {
		if _, err := bad.normalize(); err == nil {
			t.Errorf("normalize(%+v) succeeded", bad)
		}
	}
}

// A SQLite deployment keeps its generated server key next to the database.
func TestServerKeyFile(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DatabaseURL: "sqlite:" + filepath.Join(dir, "sub", "t.db")}
	k1, err := loadServerKey(cfg, nil)
	if err != nil || len(k1) != 32 {
		t.Fatalf("first key %x %v", k1, err)
	}
	k2, err := loadServerKey(cfg, nil)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("second key %x %v, want the first", k2, err)
	}
	st, err := os.Stat(filepath.Join(dir, "sub", secretFileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v, want mode 0600", st, err)
	}
	k3, _ := loadServerKey(Config{DatabaseURL: cfg.DatabaseURL, Secret: "configured"}, nil)
	if bytes.Equal(k1, k3) {
		t.Error("a configured secret did not win")
	}
}
