package ankipkg

import (
	"context"
	"database/sql/driver"
	"strings"

	"modernc.org/sqlite"
)

// readDriver is a private SQLite driver carrying the "unicase" collation
// Anki's schema-18 tables declare (Anki registers it on its own
// connections); registering it on the shared driver would reach every
// store in the process.
var readDriver = func() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.MustRegisterCollationUtf8("unicase", func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	return d
}()

// connector opens connections of readDriver to one dsn.
type connector struct{ dsn string }

func (c connector) Connect(context.Context) (driver.Conn, error) { return readDriver.Open(c.dsn) }

func (c connector) Driver() driver.Driver { return readDriver }
