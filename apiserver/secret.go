package apiserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// serverKey is the key CSRF tokens are derived under.
type serverKey []byte

// secretFileName is where a SQLite deployment keeps its generated key,
// next to the database file.
const secretFileName = "takhtabush.secret"

// loadServerKey returns the configured secret's SHA-256; without one, the
// key stored next to a SQLite database (generated on first start); and
// otherwise a random key for this process, with a warning.
func loadServerKey(cfg Config, log *slog.Logger) (serverKey, error) {
	if cfg.Secret != "" {
		sum := sha256.Sum256([]byte(cfg.Secret))
		return sum[:], nil
	}
	kind, path, err := parseDatabaseURL(cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if kind == dbSQLite && !strings.HasPrefix(path, ":memory:") {
		return fileKey(filepath.Join(filepath.Dir(path), secretFileName))
	}
	log.Warn("no TAKHTABUSH_SECRET set: using a random server key for this process; " +
		"set it when running several instances, or web sign-ins break across them and restarts")
	return randomKey(), nil
}

func randomKey() serverKey {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// fileKey reads a hex key from path, creating it (mode 0600) when absent.
func fileKey(path string) (serverKey, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		k, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(k) < 32 {
			return nil, fmt.Errorf("server key file %s is corrupt; delete it to make a new one", path)
		}
		return k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading server key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	// Write a temporary file, then link it into place: the key appears
	// whole or not at all, and a concurrent first start keeps the winner's.
	k := randomKey()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-*")
	if err != nil {
		return nil, fmt.Errorf("creating server key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(k) + "\n")
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("writing server key: %w", werr)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return fileKey(path)
	} else if err != nil {
		return nil, fmt.Errorf("creating server key: %w", err)
	}
	return k, nil
}
