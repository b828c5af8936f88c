package mcpcore

import (
	"context"
	"encoding/json"
)

// Prompt is a prompt template.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Meta        map[string]any
	Get         PromptHandler
	// Complete suggests values for an argument (completion/complete).
	Complete func(ctx context.Context, argument, value string) ([]string, error)
}

// PromptArgument describes one prompt argument.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptHandler renders a prompt.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

// GetPromptRequest is one prompts/get as seen by a handler.
type GetPromptRequest struct {
	Request
	Name      string
	Arguments map[string]string
}

// GetPromptResult is a rendered prompt.
type GetPromptResult struct {
	Description string
	Messages    []PromptMessage
	Meta        map[string]any
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string // "user" or "assistant"
	Content Content
}

func (r *GetPromptResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	if r.Description != "" {
		b = append(b, `"description":`...)
		b = appendString(b, r.Description)
		b = append(b, ',')
	}
	b = append(b, `"messages":[`...)
	var err error
	for i := range r.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = appendString(b, r.Messages[i].Role)
		b = append(b, `,"content":`...)
		if b, err = r.Messages[i].Content.appendJSON(b); err != nil {
			return b, err
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func (p *Prompt) appendListJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, p.Name)
	b = appendOpt(b, "title", p.Title)
	b = appendOpt(b, "description", p.Description)
	if len(p.Arguments) > 0 {
		js, _ := json.Marshal(p.Arguments)
		b = append(b, `,"arguments":`...)
		b = append(b, js...)
	}
	b, _ = appendMeta(b, p.Meta)
	return append(b, '}')
}
