package mcpcore

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// Annotations are optional hints on content and resources.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"` // "user", "assistant"
	Priority     *float64 `json:"priority,omitempty"` // 0..1
	LastModified string   `json:"lastModified,omitempty"`
}

// Content is one content block of a tool result or prompt message. Build it
// with TextContent, ImageContent, AudioContent, ResourceLink or
// EmbeddedResource.
type Content struct {
	Type        string // "text", "image", "audio", "resource_link", "resource"
	Text        string
	Data        string // base64, for image and audio
	MIMEType    string
	URI         string // resource_link
	Name        string // resource_link
	Title       string // resource_link
	Description string // resource_link
	Resource    *ResourceContents
	Annotations *Annotations
	Meta        map[string]any
}

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// ImageContent returns an image block; data is raw bytes, base64-encoded here.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// AudioContent returns an audio block; data is raw bytes, base64-encoded here.
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: "audio", Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// ResourceLink returns a resource_link block pointing at uri.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: "resource_link", URI: uri, Name: name, MIMEType: mimeType}
}

// EmbeddedResource returns a resource block carrying rc.
func EmbeddedResource(rc ResourceContents) Content {
	return Content{Type: "resource", Resource: &rc}
}

// ResourceContents is the body of a resource: Text, or Blob (raw bytes,
// base64-encoded on the wire).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte // used when non-nil; Text is ignored then
	Meta     map[string]any
}

// appendJSON appends the wire form of the content block.
func (c *Content) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = appendString(b, c.Type)
	var err error
	switch c.Type {
	case "text":
		b = append(b, `,"text":`...)
		b = appendString(b, c.Text)
	case "image", "audio":
		b = append(b, `,"data":`...)
		b = appendString(b, c.Data)
		b = append(b, `,"mimeType":`...)
		b = appendString(b, c.MIMEType)
	case "resource_link":
		b = append(b, `,"uri":`...)
		b = appendString(b, c.URI)
		b = append(b, `,"name":`...)
		b = appendString(b, c.Name)
		b = appendOpt(b, "title", c.Title)
		b = appendOpt(b, "description", c.Description)
		b = appendOpt(b, "mimeType", c.MIMEType)
	case "resource":
		b = append(b, `,"resource":`...)
		if c.Resource == nil {
			b = append(b, `{}`...)
		} else if b, err = c.Resource.appendJSON(b); err != nil {
			return b, err
		}
	}
	if b, err = appendAnnotations(b, c.Annotations); err != nil {
		return b, err
	}
	if b, err = appendMeta(b, c.Meta); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// appendJSON appends the wire form of the resource contents.
func (rc *ResourceContents) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"uri":`...)
	b = appendString(b, rc.URI)
	b = appendOpt(b, "mimeType", rc.MIMEType)
	if rc.Blob != nil {
		b = append(b, `,"blob":"`...)
		b = base64.StdEncoding.AppendEncode(b, rc.Blob)
		b = append(b, '"')
	} else {
		b = append(b, `,"text":`...)
		b = appendString(b, rc.Text)
	}
	b, err := appendMeta(b, rc.Meta)
	return append(b, '}'), err
}

// MarshalJSON implements json.Marshaler.
func (c Content) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// MarshalJSON implements json.Marshaler.
func (rc ResourceContents) MarshalJSON() ([]byte, error) { return rc.appendJSON(nil) }

func appendOpt(b []byte, key, val string) []byte {
	if val == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, val)
}

func appendAnnotations(b []byte, a *Annotations) ([]byte, error) {
	if a == nil {
		return b, nil
	}
	js, err := json.Marshal(a)
	if err != nil {
		return b, err
	}
	b = append(b, `,"annotations":`...)
	return append(b, js...), nil
}

func appendMeta(b []byte, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return b, nil
	}
	js, err := json.Marshal(m)
	if err != nil {
		return b, err
	}
	b = append(b, `,"_meta":`...)
	return append(b, js...), nil
}

func appendInt(b []byte, key string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}
