package fsrs

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// A reset (Anki's Forget) starts the history over: the state replayed is
// the one of the ratings after it alone, not of the whole history.
func TestReplayRestartsAtAReset(t *testing.T) {
	s, set := New(), contracts.DefaultDeckSettings()
	at := func(days float64) time.Time {
		return time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Add(time.Duration(days * 24 * float64(time.Hour)))
	}
	good, again := contracts.RatingGood, contracts.RatingAgain
	before := []Entry{{At: at(0), Rating: good}, {At: at(0.01), Rating: good}, {At: at(3), Rating: again}, {At: at(3.01), Rating: good}, {At: at(9), Rating: good}}
	after := []Entry{{At: at(40), Rating: good}, {At: at(40.01), Rating: good}, {At: at(43), Rating: good}}
	reset := append(append(append([]Entry{}, before...), Entry{At: at(39), Reset: true}), after...)
	whole := append(append([]Entry{}, before...), after...)

	got, n, err := Replay(s, set, contracts.LearnerDay{}, reset)
	if err != nil {
		t.Fatal(err)
	}
	want, wn, err := Replay(s, set, contracts.LearnerDay{}, after)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || wn != 3 || got.Stability != want.Stability || got.Difficulty != want.Difficulty || !got.Due.Equal(want.Due) {
		t.Errorf("with a reset: %d ratings, S=%v D=%v; the ratings after it alone: %d, S=%v D=%v", n, got.Stability, got.Difficulty, wn, want.Stability, want.Difficulty)
	}
	all, _, err := Replay(s, set, contracts.LearnerDay{}, whole)
	if err != nil {
		t.Fatal(err)
	}
	if all.Stability == got.Stability && all.Difficulty == got.Difficulty {
		t.Errorf("the whole history gives the same state as the one after the reset (S=%v D=%v): the test shows nothing", all.Stability, all.Difficulty)
	}
	// A reset last leaves no memory state.
	if _, n, err := Replay(s, set, contracts.LearnerDay{}, append(whole, Entry{At: at(50), Reset: true})); err != nil || n != 0 {
		t.Errorf("a reset last: %d ratings, %v; want none", n, err)
	}
	if _, _, err := Replay(s, set, contracts.LearnerDay{}, []Entry{{At: at(0), Rating: "meh"}}); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("an unknown rating: %v; want invalid", err)
	}
}

// Replay counts elapsed days in the learner's day: two ratings an hour
// apart across 00:00Z are one day apart in UTC and none in New York, as a
// review in a session would count them.
func TestReplayInTheLearnersDay(t *testing.T) {
	s, set := New(), contracts.DefaultDeckSettings()
	ny := contracts.NewLearnerDay(contracts.AccountSettings{Timezone: "America/New_York", RolloverHour: 4})
	first := time.Date(2026, 3, 9, 23, 30, 0, 0, time.UTC)
	history := []Entry{{At: first, Rating: contracts.RatingGood}, {At: first.Add(10 * time.Minute), Rating: contracts.RatingGood},
		{At: first.Add(40 * time.Minute), Rating: contracts.RatingGood}}
	got, _, err := Replay(s, set, ny, history)
	if err != nil {
		t.Fatal(err)
	}
	// The same ratings through ReviewOn one by one, in New York's day.
	st := NewState(first)
	for _, e := range history {
		if st, err = s.ReviewOn(st, set, ny, e.At, e.Rating); err != nil {
			t.Fatal(err)
		}
	}
	utc, _, err := Replay(s, set, contracts.LearnerDay{}, history)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stability != st.Stability || got.Difficulty != st.Difficulty || !got.Due.Equal(st.Due) {
		t.Errorf("replay in New York's day S=%v due %v; reviews S=%v due %v", got.Stability, got.Due, st.Stability, st.Due)
	}
	if utc.Stability == got.Stability {
		t.Errorf("UTC and New York days give the same stability %v: the history crosses no day boundary that differs", got.Stability)
	}
}
