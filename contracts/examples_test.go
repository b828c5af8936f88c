package contracts_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	c "github.com/takhtabush/takhtabush/contracts"
)

var (
	t0    = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	ret   = 0.91
	eight = 8
	yes   = true
	front = "What is the capital of Türkiye?"
	deck  = c.Deck{ID: "d1", Name: "Geography", Description: "Capitals", Settings: c.DefaultDeckSettings(),
		Counts: c.DeckCounts{Total: 3, New: 1, Learning: 1, Review: 1, DueNow: 2}, CreatedAt: t0, UpdatedAt: t0}
	state = c.CardState{Phase: c.PhaseReview, Due: t0.Add(72 * time.Hour), Stability: 3.2, Difficulty: 5.1, ScheduledDays: 3, Reps: 4, Lapses: 1, LastReview: &t0}
	card  = c.Card{ID: "c1", DeckID: "d1", Front: front, Back: "Ankara", Tags: []string{"europe"}, State: state, CreatedAt: t0, UpdatedAt: t0}
	scard = &c.StudyCard{CardID: "c1", Front: front, Back: "Ankara", Tags: []string{"europe"}, Phase: c.PhaseNew}
	sess  = c.StudySession{ID: "s1", DeckID: "d1", StartedAt: t0, ExpiresAt: t0.Add(c.SessionTTL), Remaining: 3, Current: scard, StudyURL: "https://x.test/study/s1"}
	bulk  = c.BulkResult{DeckID: "d1", Items: []c.ItemOutcome{
		{Index: 0, Status: c.OutcomeCreated, ID: "c2"},
		{Index: 1, Status: c.OutcomeDuplicate, ExistingID: "c1"},
		{Index: 2, Status: c.OutcomeInvalid, Reason: "back must not be empty"}},
		Counts: map[string]int{"created": 1, "duplicate": 1, "invalid": 1}}
)

// examples gives, for every tool, arguments a model might send and a result
// the tool returns. Both must validate against the tool's schemas, and the
// arguments must decode into the tool's argument record with no field lost.
var examples = map[string]struct {
	args   string
	record any // the argument record type to decode into
	out    any
}{
	c.ToolListDecks:          {`{"limit":10}`, c.ListDecksArgs{}, c.DeckPage{Items: []c.Deck{deck}, NextCursor: "ZDE"}},
	c.ToolGetDeck:            {`{"deckId":"d1"}`, c.GetDeckArgs{}, deck},
	c.ToolSearchCards:        {`{"query":"capital","deckId":"d1","tags":["europe"],"state":"review","dueBefore":"2026-12-01T00:00:00Z","limit":5}`, c.SearchCardsArgs{}, c.CardPage{Items: []c.Card{card}}},
	c.ToolGetStudySnapshot:   {`{"deckId":"d1"}`, c.GetStudySnapshotArgs{}, c.StudySnapshot{DeckID: "d1", DueNow: 2, Overdue: 1, NewAvailable: 5, NewToday: 5, NextDue: &t0, Preview: []c.StudyCard{*scard}}},
	c.ToolGetStats:           {`{"deckId":"d1","days":7}`, c.GetStatsArgs{}, c.Stats{DeckID: "d1", Days: 7, ReviewsPerDay: []c.DayCount{{Date: "2026-11-29", Reviews: 4, Passed: 3}}, TotalReviews: 4, TrueRetention: &ret, CardStates: c.PhaseCounts{New: 1, Review: 2}, StreakDays: 3, GeneratedAt: t0}},
	c.ToolGetStudyPlan:       {`{"days":14,"minutesPerDay":15}`, c.GetStudyPlanArgs{}, c.StudyPlan{Days: 14, Forecast: []c.DueDay{{Date: "2026-11-29", Due: 12}}, MinutesPerDay: 15, SecondsPerReview: 10, SecondsPerReviewSource: "default", AverageDuePerDay: 12, CapacityPerDay: 90, NewCardsPerDay: 15, NewCardsRemaining: 200}},
	c.ToolCreateDeck:         {`{"name":"Geography","description":"Capitals","desiredRetention":0.91,"newCardsPerDay":8}`, c.CreateDeckArgs{}, deck},
	c.ToolUpdateDeck:         {`{"deckId":"d1","name":"World geography","reviewsPerDay":100}`, c.UpdateDeckArgs{}, deck},
	c.ToolDeleteDeck:         {`{"deckId":"d1"}`, c.DeleteDeckArgs{}, c.DeleteResult{ID: "d1", Deleted: true, CardsDeleted: 3}},
	c.ToolAddCards:           {`{"deckId":"d1","cards":[{"front":"Q","back":"A","tags":["t"]}],"idempotencyKey":"batch-1"}`, c.AddCardsArgs{}, bulk},
	c.ToolUpdateCards:        {`{"updates":[{"id":"c1","back":"Ankara (since 1923)","suspended":true,"deckId":"d2","tags":["europe"]}]}`, c.UpdateCardsArgs{}, bulk},
	c.ToolDeleteCards:        {`{"cardIds":["c1","c2"]}`, c.DeleteCardsArgs{}, c.BulkResult{Items: []c.ItemOutcome{{Index: 0, Status: c.OutcomeDeleted, ID: "c1"}, {Index: 1, Status: c.OutcomeNotFound, ID: "c2"}}, Counts: map[string]int{"deleted": 1, "not_found": 1}}},
	c.ToolImportCards:        {`{"deckId":"d1","text":"front,back\nQ,A\n","format":"csv","idempotencyKey":"imp-1"}`, c.ImportCardsArgs{}, bulk},
	c.ToolStartStudySession:  {`{"deckId":"d1","newLimit":5,"reviewLimit":50}`, c.StartStudySessionArgs{}, sess},
	c.ToolSubmitReview:       {`{"sessionId":"s1","cardId":"c1","rating":"good","durationMs":5400}`, c.SubmitReviewArgs{}, c.ReviewResult{SessionID: "s1", CardID: "c1", Rating: c.RatingGood, State: state, NextDue: state.Due, IntervalHuman: "3d", Reviewed: 1, Remaining: 2, Next: scard}},
	c.ToolRequestMediaUpload: {`{"contentType":"image/png","bytes":2048,"filename":"map.png"}`, c.RequestMediaUploadArgs{}, c.MediaUploadIntent{MediaID: "m1", UploadURL: "https://x.test/media/m1", Method: "PUT", Headers: map[string]string{"Authorization": "Upload abc"}, ExpiresAt: t0, MaxBytes: 2048, ContentType: "image/png", AllowedTypes: c.AllowedMediaTypes}},
	c.ToolRenderStudySession: {`{"deckId":"d1"}`, c.RenderStudySessionArgs{}, sess},
}

func validate(t *testing.T, s *jsonschema.Schema, what string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not validate: %v\n%s", what, err, b)
	}
}

func TestExamplesValidate(t *testing.T) {
	for _, tool := range c.Catalog() {
		ex, ok := examples[tool.Name]
		if !ok {
			t.Errorf("%s: no example", tool.Name)
			continue
		}
		in := compile(t, tool.Name+".in", tool.InputSchema)
		out := compile(t, tool.Name+".out", tool.OutputSchema)
		validate(t, in, tool.Name+" example arguments", json.RawMessage(ex.args))
		validate(t, out, tool.Name+" example result", ex.out)

		// The arguments decode into the record with no unknown field, and
		// re-encode to the same JSON: schema and record agree.
		rec := reflect.New(reflect.TypeOf(ex.record))
		dec := json.NewDecoder(strings.NewReader(ex.args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(rec.Interface()); err != nil {
			t.Errorf("%s: example arguments do not decode into %T: %v", tool.Name, ex.record, err)
			continue
		}
		back, _ := json.Marshal(rec.Interface())
		var a, b any
		_ = json.Unmarshal([]byte(ex.args), &a)
		_ = json.Unmarshal(back, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: arguments lose data through %T:\n in  %s\n out %s", tool.Name, ex.record, ex.args, back)
		}
	}
}

// Every property an argument schema declares is a field of the record, so
// no argument is silently dropped.
func TestArgumentRecordsCoverSchemas(t *testing.T) {
	for _, tool := range c.Catalog() {
		ex := examples[tool.Name]
		if ex.record == nil {
			continue
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		fields := map[string]bool{}
		rt := reflect.TypeOf(ex.record)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			fields[name] = true
		}
		for p := range s.Properties {
			if !fields[p] {
				t.Errorf("%s: schema property %q has no field in %T", tool.Name, p, ex.record)
			}
		}
		for f := range fields {
			if _, ok := s.Properties[f]; !ok {
				t.Errorf("%s: field %q of %T is not in the schema", tool.Name, f, ex.record)
			}
		}
	}
}

// Invalid arguments are rejected with every violation reported.
func TestInvalidArgumentsRejected(t *testing.T) {
	tool, _ := c.Tool(c.ToolAddCards)
	s := compile(t, "add", tool.InputSchema)
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"deckId":"","cards":[{"front":"Q"}],"extra":1}`))
	err := s.Validate(doc)
	if err == nil {
		t.Fatal("invalid add_cards arguments validated")
	}
	for _, want := range []string{"/deckId", "/cards/0", "extra"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation error does not mention %s: %v", want, err)
		}
	}
	_ = eight
	_ = yes
}
