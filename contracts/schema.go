package contracts

import (
	"bytes"
	"encoding/json"
)

// A tiny vocabulary for writing the tools' JSON Schemas (2020-12) as Go
// data. The catalog is their only source: tools/list serves the marshalled
// bytes verbatim and mcpcore compiles the same bytes for validation.

type schema map[string]any

// object is a closed object schema: properties not listed are rejected.
func object(props schema, required ...string) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) schema { return withDesc(schema{"type": "string"}, desc) }

func id(desc string) schema {
	return withDesc(schema{"type": "string", "minLength": 1, "maxLength": 64}, desc)
}

func integer(desc string, min, max int) schema {
	return withDesc(schema{"type": "integer", "minimum": min, "maximum": max}, desc)
}

func number(desc string, min, max float64) schema {
	return withDesc(schema{"type": "number", "minimum": min, "maximum": max}, desc)
}

func boolean(desc string) schema { return withDesc(schema{"type": "boolean"}, desc) }

func enum[T ~string](desc string, values ...T) schema {
	return withDesc(schema{"type": "string", "enum": values}, desc)
}

func array(items schema, desc string) schema {
	return withDesc(schema{"type": "array", "items": items}, desc)
}

// dateOrTime is the schema of every date-or-time argument (DateOrTime):
// a string whose description declares the two forms. It carries no format
// keyword: "date" is refused by some model providers' schema dialects and
// "date-time" alone would turn dates away; DateOrTime's decoder enforces
// the forms with a message that names both.
func dateOrTime(desc string) schema {
	return withDesc(schema{"type": "string", "maxLength": 40},
		desc+" YYYY-MM-DD (the learner's day start) or RFC 3339.")
}

// nullable allows null besides s, in the form every provider's schema
// dialect accepts: anyOf with {"type":"null"}, never a list of types.
func nullable(s schema) schema {
	return schema{"anyOf": []schema{s, {"type": "null"}}}
}

func withDesc(s schema, desc string) schema {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func with(s schema, kv ...any) schema {
	for i := 0; i+1 < len(kv); i += 2 {
		s[kv[i].(string)] = kv[i+1]
	}
	return s
}

// raw marshals a schema compactly with sorted keys, so the bytes are stable.
func raw(s schema) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic("contracts: schema does not marshal: " + err.Error())
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// Output-side record schemas. Outputs are closed too, so a record that
// grows a field without its schema fails the example test.

var (
	tsOut       = schema{"type": "string", "format": "date-time"}
	strOut      = schema{"type": "string"}
	intOut      = schema{"type": "integer"}
	numOut      = schema{"type": "number"}
	boolOut     = schema{"type": "boolean"}
	strListOut  = schema{"type": "array", "items": strOut}
	anyListOut  = schema{"type": "array"} // numbers; untyped items keep the schema cheap to check
	phaseOut    = schema{"type": "string", "enum": []Phase{PhaseNew, PhaseLearning, PhaseReview, PhaseRelearning}}
	settingsOut = object(schema{
		"presetId": strOut, "desiredRetention": numOut, "newCardsPerDay": intOut, "reviewsPerDay": intOut, "maximumIntervalDays": intOut,
		"learningSteps": anyListOut, "relearningSteps": anyListOut, "weights": anyListOut, "weightsOptimizedAt": tsOut, "reviewOrder": strOut, "newOrder": strOut,
		"buryNew": boolOut, "buryReviews": boolOut, "buryInterday": boolOut, "leechThreshold": intOut, "leechAction": strOut, "newMix": strOut,
	}, "desiredRetention", "newCardsPerDay", "reviewsPerDay", "maximumIntervalDays")
	settingsRecordOut = object(schema{
		"timezone": strOut, "rolloverHour": intOut, "learnAheadMinutes": intOut, "newCardsPerDay": intOut, "reviewsPerDay": intOut,
		"today": strOut, "dayStartsAt": tsOut, "nextDayAt": tsOut, "updatedAt": tsOut,
	}, "timezone", "rolloverHour", "learnAheadMinutes", "newCardsPerDay", "reviewsPerDay", "today", "dayStartsAt", "nextDayAt")
	deckCountsOut = object(schema{
		"total": intOut, "new": intOut, "learning": intOut, "review": intOut, "suspended": intOut, "dueNow": intOut,
	}, "total", "new", "learning", "review", "suspended", "dueNow")
	deckOut = object(schema{
		"id": strOut, "name": strOut, "description": strOut, "settings": settingsOut, "counts": deckCountsOut,
		"createdAt": tsOut, "updatedAt": tsOut,
	}, "id", "name", "settings", "counts", "createdAt", "updatedAt")
	cardStateOut = object(schema{
		"phase": phaseOut, "due": tsOut, "stability": numOut, "difficulty": numOut, "scheduledDays": intOut,
		"reps": intOut, "lapses": intOut, "step": intOut, "lastReview": tsOut,
	}, "phase", "due", "stability", "difficulty", "scheduledDays", "reps", "lapses", "step")
	cardOut = object(schema{
		"id": strOut, "deckId": strOut, "noteId": strOut, "ord": intOut, "front": strOut, "back": strOut, "tags": strListOut, "suspended": boolOut, "flag": intOut,
		"state": cardStateOut, "createdAt": tsOut, "updatedAt": tsOut,
	}, "id", "deckId", "front", "back", "tags", "suspended", "state", "createdAt", "updatedAt")
	noteOut = object(schema{
		"id": strOut, "noteType": strOut, "noteTypeId": strOut, "fieldNames": strListOut,
		"fields": schema{"type": "object", "additionalProperties": strOut}, "tags": strListOut,
		"cards": schema{"type": "array", "items": object(schema{
			"id": strOut, "ord": intOut, "deckId": strOut, "front": strOut, "phase": phaseOut,
		}, "id", "ord", "deckId", "front", "phase")},
		"createdAt": tsOut, "updatedAt": tsOut,
	}, "id", "noteType", "fieldNames", "fields", "tags", "cards", "createdAt", "updatedAt")
	// budgetOut is a job's budget or its use: seconds, rows, bytes.
	budgetOut = object(schema{"seconds": intOut, "rows": intOut, "bytes": intOut}, "seconds", "rows", "bytes")
	jobOut    = object(jobProps(), "id", "kind", "status", "progress", "createdAt", "updatedAt")
	// importJobOut is import_package's result: the job it queued, or with
	// dryRun a preview's (dryRun: true, kind import_preview): ended within
	// the call and never stored (no id), or queued to poll.
	importJobOut = object(with(jobProps(), "dryRun", boolOut), "kind", "status", "progress", "createdAt", "updatedAt")
	studyCardOut = object(schema{
		"cardId": strOut, "position": intOut, "front": strOut, "back": strOut, "tags": strListOut, "phase": phaseOut,
	}, "cardId", "position", "front", "phase")
	sessionOut = object(sessionProps(), sessionRequired...)
	// studyViewOut is a session with the widget's rendered card.
	studyViewOut = object(with(sessionProps(), "frontHtml", strOut, "backHtml", strOut, "cardCss", strOut, "ratings", anyListOut), sessionRequired...)
)

// jobProps are a job's properties, a fresh map each call.
func jobProps() schema {
	return schema{
		"id": strOut, "kind": strOut, "status": schema{"type": "string", "enum": JobStatuses},
		"progress": object(schema{"done": intOut, "total": intOut, "message": strOut, "budget": object(schema{
			"limit": budgetOut, "used": budgetOut}, "limit", "used")}, "done", "total"),
		"result": schema{"type": "object"}, // the kind's report, e.g. an import's counts
		"error":  strOut, "cancelRequested": boolOut,
		"createdAt": tsOut, "updatedAt": tsOut, "startedAt": tsOut, "finishedAt": tsOut,
	}
}

var sessionRequired = []string{"sessionId", "deckId", "startedAt", "expiresAt", "reviewed", "remaining", "done"}

// sessionProps are a study session's properties, a fresh map each call.
func sessionProps() schema {
	return schema{
		"sessionId": strOut, "deckId": strOut, "startedAt": tsOut, "expiresAt": tsOut, "reviewed": intOut,
		"remaining": intOut, "done": boolOut, "current": studyCardOut, "studyUrl": strOut, "mode": strOut, "nextCardAt": tsOut,
	}
}

// bulkOut is a bulk result (BulkResult) with the item fields and the
// top-level fields the tool fills besides the common ones, so each tool's
// schema names only what its result can carry.
func bulkOut(itemFields []string, fields ...string) schema {
	item := schema{
		"index": intOut, "status": schema{"type": "string", "enum": []OutcomeStatus{
			OutcomeCreated, OutcomeUpdated, OutcomeDeleted, OutcomeDuplicate, OutcomeInvalid, OutcomeNotFound, OutcomeConflict}},
		"id": strOut, "reason": strOut,
	}
	optional := schema{"existingId": strOut, "line": intOut, "deckId": strOut, "cardIds": strListOut}
	for _, f := range itemFields {
		item[f] = optional[f]
	}
	props := schema{
		"items":  schema{"type": "array", "items": object(item, "index", "status")},
		"counts": schema{"type": "object", "additionalProperties": intOut},
	}
	top := schema{
		"deckId": strOut, "replayed": boolOut, "dryRun": boolOut, "changes": changesOut,
		"dropped":      schema{"type": "object", "additionalProperties": intOut},
		"decksCreated": strListOut,
	}
	for _, f := range fields {
		props[f] = top[f]
	}
	return object(props, "items", "counts")
}

// changesOut is a dry run's first changes, before → after.
var changesOut = schema{"type": "array", "items": object(schema{
	"kind": strOut, "id": strOut, "before": schema{"type": "object"}, "after": schema{"type": "object"},
}, "kind", "id")}

// restoreOut is restore_items' result schema.
var restoreOut = func() schema {
	item := object(schema{"index": intOut, "status": schema{"type": "string", "enum": []OutcomeStatus{
		OutcomeRestored, OutcomeDuplicate, OutcomeNotFound, OutcomeConflict}},
		"id": strOut, "existingId": strOut, "reason": strOut}, "index", "status")
	list := schema{"type": "array", "items": item}
	return object(schema{"decks": list, "cards": list, "counts": schema{"type": "object", "additionalProperties": intOut}},
		"decks", "cards", "counts")
}()

func pageOut(item schema) schema {
	return object(schema{"items": schema{"type": "array", "items": item}, "nextCursor": strOut}, "items")
}

// listedInput is the form of an input schema that tools/list sends: the
// schema without minLength and maxLength (ids' 1-64, a card side's
// 10,000), which cost tokens on every turn and matter only to the
// validator, whose error names the bound a call broke.
func listedInput(full json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(full, &s); err != nil {
		panic("contracts: input schema does not unmarshal: " + err.Error())
	}
	var strip func(v any, names bool)
	strip = func(v any, names bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if !names && (k == "minLength" || k == "maxLength") {
					delete(x, k)
					continue
				}
				strip(val, !names && k == "properties")
			}
		case []any:
			for _, e := range x {
				strip(e, false)
			}
		}
	}
	strip(s, false)
	return raw(s)
}

// wire is the form of a result schema that tools/list sends. A model
// reads an output schema for the shape of a result, and every byte of
// tools/list costs context on every turn, so the wire form leaves out
// what only a validator uses: closedness (additionalProperties false),
// required lists, string formats, and below the root the type of a node
// whose properties or items already say it is an object or an array. The complete schema stays in
// ToolDef.ResultSchema; tests check results against it and the tool
// reference documents it.
func wire(full json.RawMessage) json.RawMessage {
	var s any
	if err := json.Unmarshal(full, &s); err != nil {
		panic("contracts: result schema does not unmarshal: " + err.Error())
	}
	var strip func(v any, names bool) any
	strip = func(v any, names bool) any {
		switch x := v.(type) {
		case map[string]any:
			_, props := x["properties"]
			_, items := x["items"]
			if !names && (props && x["type"] == "object" || items && x["type"] == "array") {
				delete(x, "type")
			}
			for k, val := range x {
				switch {
				case names: // a properties map: its keys are property names
					x[k] = strip(val, false)
				case k == "required" || k == "format" || (k == "additionalProperties" && val == false):
					delete(x, k)
				default:
					x[k] = strip(val, k == "properties")
				}
			}
		case []any:
			for i := range x {
				x[i] = strip(x[i], false)
			}
		}
		return v
	}
	root := strip(s, false).(map[string]any)
	root["type"] = "object" // MCP requires an object schema at the root
	return raw(root)
}
