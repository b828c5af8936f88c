package surface

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// withOperationID puts the operation id of a committed mutation into its
// result, as the first member "operationId" of structuredContent and of the
// JSON text content that repeats it, so a model can pass it to
// undo_changes (the id its change records and audit row share). A call
// that starts a job gets the job's id: the job's records use it. A
// replayed call (an idempotency key's repeat) wrote nothing and gets none.
func withOperationID(ctx context.Context, def contracts.ToolDef, out any, res *mcpcore.CallToolResult) {
	op, _ := contracts.OperationIDFrom(ctx)
	switch r := out.(type) {
	case contracts.Job:
		if def.JobKind != "" {
			op = r.ID
		}
	case contracts.BulkResult:
		if r.Replayed {
			return
		}
	}
	old, ok := res.StructuredContent.(json.RawMessage)
	if op == "" || !ok || len(old) < 2 || old[0] != '{' {
		return
	}
	id, err := json.Marshal(op)
	if err != nil {
		return
	}
	b := make([]byte, 0, len(old)+len(id)+16)
	b = append(append(append(b, `{"operationId":`...), id...), ',')
	if rest := bytes.TrimSpace(old[1:]); len(rest) > 0 && rest[0] == '}' {
		b = append(b[:len(b)-1], '}') // an empty object
	} else {
		b = append(b, old[1:]...)
	}
	res.StructuredContent = json.RawMessage(b)
	for i, c := range res.Content {
		if c.Type == "text" && c.Text == string(old) {
			res.Content[i].Text = string(b)
		}
	}
}
