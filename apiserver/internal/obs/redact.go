package obs

import (
	"net/http"
	"strings"
)

// SecretPathPrefixes are the paths whose remainder is a credential: an
// export download's signed token (GET /export/{token}) is the link itself.
// Every log line that names a request path takes it from LoggedPath, the
// one rule that keeps these out of the logs.
var SecretPathPrefixes = []string{"/export/"}

// redacted stands for a credential cut out of a logged path.
const redacted = "[redacted]"

// LoggedPath is r's path as logs may carry it: without its query (a
// sign-in link carries a token there) and with everything after a secret
// prefix replaced, whether or not a route matched.
func LoggedPath(r *http.Request) string {
	p := r.URL.Path
	for _, prefix := range SecretPathPrefixes {
		if strings.HasPrefix(p, prefix) && len(p) > len(prefix) {
			return prefix + redacted
		}
	}
	return p
}
