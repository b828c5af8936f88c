package library

import (
	"net/http"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
)

// sniffedAs says, for each type an upload may declare, which types
// http.DetectContentType (the WHATWG sniffing algorithm) may find in its
// first bytes. Text files sniff as text/plain (CSV and TSV have no
// signature), m4a as video/mp4 (an ISO BMFF "ftyp" box), Ogg as
// application/ogg and WAV as audio/wave. A declared type whose bytes sniff
// as anything else (HTML, SVG, a script, another format) is refused.
var sniffedAs = map[string][]string{
	"image/png":                 {"image/png"},
	"image/jpeg":                {"image/jpeg"},
	"image/gif":                 {"image/gif"},
	"image/webp":                {"image/webp"},
	"audio/mpeg":                {"audio/mpeg"},
	"audio/ogg":                 {"application/ogg", "audio/ogg"},
	"audio/wav":                 {"audio/wave"},
	"audio/mp4":                 {"video/mp4", "audio/mp4"},
	"application/zip":           {"application/zip"},
	"text/plain":                {"text/plain"},
	"text/csv":                  {"text/plain"},
	"text/tab-separated-values": {"text/plain"},
}

// sniff returns the type the leading bytes show.
func sniff(head []byte) string {
	t := MediaType(http.DetectContentType(head))
	// An MP3 without an ID3 tag starts with a frame header: 11 set bits of
	// frame sync, then a layer that is not "reserved".
	if t == "application/octet-stream" && len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0 && head[1]&0x06 != 0 {
		return "audio/mpeg"
	}
	// An ISO BMFF file (MP4, M4A) whose brands do not name "mp4".
	if t == "application/octet-stream" && len(head) >= 12 && string(head[4:8]) == "ftyp" {
		return "video/mp4"
	}
	return t
}

// checkSniffed refuses bytes whose sniffed type does not fit the declared
// one.
func checkSniffed(declared string, head []byte) error {
	got := sniff(head)
	if slices.Contains(sniffedAs[declared], got) {
		return nil
	}
	return contracts.Errorf(contracts.KindInvalid, "the file's content looks like %s, not the %s declared; nothing was stored (request a new upload with the right type)", got, declared)
}

// humanBytes shows a size in the largest binary unit that keeps it whole
// or one decimal.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return itoa64(n) + " bytes"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	whole, tenth := n/div, (n%div)*10/div
	s := itoa64(whole)
	if tenth != 0 {
		s += "." + itoa64(tenth)
	}
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB"}[exp]
}

func itoa64(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
