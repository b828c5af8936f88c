package domain_test

import (
	"fmt"
	"hash/fnv"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestLearnerSimulation drives a learner through real study sessions for
// 90 days (issue 27's done-when), in three timezones: notes with siblings
// (Basic and reversed, three-deletion clozes, Basic), a share of hard
// notes whose cards the learner always forgets once learned. Every day at
// 09:00 local it asks the plan, then studies until a new session has
// nothing left. It checks that no two cards of one note are served on
// one learner's day, that a hard card is flagged a leech at 8 lapses
// (and every 4 after) and its note tagged, and that the plan's day 0
// and get_study_snapshot equal what the sessions delivered. It logs the
// figures: run
//
//	go test -run TestLearnerSimulation -v ./apiserver/internal/domaintest/
//
// (with -short, 30 days and one timezone on Postgres).
func TestLearnerSimulation(t *testing.T) { eachStore(t, testLearnerSimulation) }

func testLearnerSimulation(t *testing.T, store string) {
	zones := []string{"UTC", "America/New_York", "Asia/Kolkata"}
	days := 90
	if store == onPostgres && testing.Short() {
		zones, days = zones[:1], 30
	}
	for _, tz := range zones {
		t.Run(tz, func(t *testing.T) {
			f := simulateLearner(t, newEnv(t, store), tz, days)
			t.Logf("%s, %d days: %d reviews of review cards, %d new cards, %d learning-step ratings, %d lapses, %d leech flags on %d hard cards (at %v lapses), "+
				"plan day 0 = delivered on %d of %d days, snapshot = delivered on %d of %d days, most reviews a day %d",
				tz, days, f.reviews, f.fresh, f.steps, f.lapses, f.leechFlags, f.hardCards, f.leechAt, f.planMatched, days, f.snapMatched, days, f.maxDay)
		})
	}
}

// simFigures are what a simulated learner did.
type simFigures struct {
	reviews, fresh, steps, lapses, leechFlags, hardCards, planMatched, snapMatched, maxDay int
	leechAt                                                                                []int
}

func simulateLearner(t *testing.T, e *env, tz string, days int) simFigures {
	ctx := e.user("learner@example.com")
	rollover := 4
	if _, err := e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{Timezone: &tz, RolloverHour: &rollover}); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	d := e.deck(ctx, "Simulated")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewCardsPerDay: ptr(8)}); err != nil {
		t.Fatal(err)
	}
	var notes []contracts.NewNote
	for i := range 40 {
		switch i % 4 {
		case 0, 1:
			notes = append(notes, reversed(fmt.Sprintf("word %d", i), fmt.Sprintf("meaning %d", i)))
		case 2:
			notes = append(notes, cloze(fmt.Sprintf("{{c1::one %d}} {{c2::two}} {{c3::three}}", i)))
		default:
			notes = append(notes, contracts.NewNote{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": fmt.Sprintf("q %d", i), "Back": "a"}})
		}
	}
	cards := e.notes(ctx, d.ID, notes...)
	of := noteOf(cards)
	hard := map[string]bool{} // every fifth note is hard
	var f simFigures
	for i, cs := range cards {
		if i%5 == 0 {
			for _, c := range cs {
				hard[c] = true
			}
			f.hardCards += len(cs)
		}
	}
	lapses := map[string]int{}
	leechNotes := map[int]bool{}
	// Ratings: deterministic per card and review.
	rate := func(c contracts.StudyCard, n int) contracts.Rating {
		if c.Phase == contracts.PhaseReview && hard[c.CardID] {
			return contracts.RatingAgain
		}
		h := fnv.New32a()
		fmt.Fprintf(h, "%s/%d", c.CardID, n)
		if c.Phase == contracts.PhaseReview && h.Sum32()%10 == 0 {
			return contracts.RatingAgain
		}
		return contracts.RatingGood
	}
	start := time.Date(2026, 3, 10, 9, 0, 0, 0, loc)
	ratings := 0
	for day := range days {
		e.clock.Set(start.AddDate(0, 0, day))
		plan, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: d.ID, Days: 1})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := e.svc.Study.Snapshot(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		served := map[int]string{} // note → the card served today
		var dayReviews, dayNew int
		for {
			s := e.start(ctx, d.ID, nil, nil)
			if s.Remaining == 0 {
				break
			}
			cur, at := s.Current, s.NextCardAt
			for cur != nil || at != nil {
				if cur == nil {
					e.clock.Set(*at)
					g, err := e.svc.Study.GetSession(ctx, s.ID)
					if err != nil {
						t.Fatal(err)
					}
					cur, at = g.Current, g.NextCardAt
					continue
				}
				n := of[cur.CardID]
				if other, ok := served[n]; ok && other != cur.CardID {
					t.Fatalf("day %d: cards %s and %s of note %d both served", day, other, cur.CardID, n)
				}
				served[n] = cur.CardID
				switch cur.Phase {
				case contracts.PhaseReview:
					dayReviews++
				case contracts.PhaseNew:
					dayNew++
				default:
					f.steps++
				}
				e.clock.Advance(8 * time.Second)
				ratings++
				r := e.review(ctx, s.ID, cur.CardID, rate(*cur, ratings))
				if cur.Phase == contracts.PhaseReview && r.Rating == contracts.RatingAgain {
					lapses[cur.CardID]++
					f.lapses++
					k := lapses[cur.CardID]
					want := k >= 8 && (k-8)%4 == 0
					if r.Leech != want {
						t.Fatalf("day %d: card %s at %d lapses: leech %v, want %v", day, cur.CardID, k, r.Leech, want)
					}
					if r.Leech {
						f.leechFlags++
						leechNotes[n] = true
						if !slices.Contains(f.leechAt, k) {
							f.leechAt = append(f.leechAt, k)
						}
					}
				}
				cur, at = r.Next, r.NextCardAt
			}
		}
		f.reviews, f.fresh = f.reviews+dayReviews, f.fresh+dayNew
		f.maxDay = max(f.maxDay, dayReviews)
		if p := plan.Forecast[0]; p.Due == dayReviews && p.New == dayNew {
			f.planMatched++
		} else {
			t.Errorf("%s day %d: plan day 0 says %d reviews and %d new; the sessions delivered %d and %d", tz, day, p.Due, p.New, dayReviews, dayNew)
		}
		// No learning step is left from the day before: the snapshot's
		// cards due now are the day's review cards.
		if snap.DueNow == dayReviews && snap.NewToday == dayNew {
			f.snapMatched++
		} else {
			t.Errorf("%s day %d: the snapshot says %d due and %d new; the sessions delivered %d reviews and %d new", tz, day, snap.DueNow, snap.NewToday, dayReviews, dayNew)
		}
	}
	if f.leechFlags == 0 {
		t.Errorf("no card became a leech in %d days", days)
	}
	found, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "is:leech", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for n := range leechNotes {
		want += len(cards[n])
	}
	if len(found.Items) != want {
		t.Errorf("is:leech finds %d cards, want the %d cards of the %d leech notes", len(found.Items), want, len(leechNotes))
	}
	return f
}
