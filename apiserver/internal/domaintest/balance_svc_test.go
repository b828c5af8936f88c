package domain_test

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// TestReviewBalancesLoad (issue 28 §2): a review's interval takes a day
// of its fuzz range weighted against the deck's cards due each day. 300
// cards are due on one day H of the targets' Good fuzz range and none on
// the others; 20 targets rated Good (the uniform fuzz would put about one
// in the range's length of them on H) all land elsewhere in the range. The review's draw
// is seeded by the card's id, so H's chance for one target is that of
// one card against 301² (under 1e-5), not a coin the test tosses.
func TestReviewBalancesLoad(t *testing.T) { eachStore(t, testReviewBalancesLoad) }

func testReviewBalancesLoad(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Balance", NewCardsPerDay: ptr(400), ReviewsPerDay: ptr(1000)})
	if err != nil {
		t.Fatal(err)
	}
	targets := ids(e.add(ctx, d.ID, manyCards("target", 20)...))
	fillers := ids(e.add(ctx, d.ID, manyCards("filler", 300)...))
	if n := e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingEasy); n != 320 {
		t.Fatalf("graduated %d of 320 cards", n)
	}
	e.clock.Advance(12 * 24 * time.Hour)
	acct, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.NewLearnerDay(acct)
	now := e.clock.Now()
	if _, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: targets, DueDate: day.DateString(now)}); err != nil {
		t.Fatal(err)
	}
	// The targets' Good range, as the scheduler computes it.
	d, err = e.svc.Decks.GetDeck(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	bound, err := fsrs.New().Bind(d.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var ranges [][2]int // the fuzz ranges a Good rating chooses in: Hard's, then Good's
	if _, err := bound.(*fsrs.Preset).ReviewChoosing(e.card1(ctx, targets[0]).State, day, now, contracts.RatingGood, func(l, h int) int {
		ranges = append(ranges, [2]int{l, h})
		return l
	}); err != nil || len(ranges) != 2 {
		t.Fatalf("the Good rating chose in %v (%v)", ranges, err)
	}
	lo, hi := ranges[1][0], ranges[1][1]
	if hi-lo < 4 {
		t.Fatalf("the targets' Good range is %d-%d; want one of 5 days or more", lo, hi)
	}
	heavy := (lo + hi + 1) / 2
	if _, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: fillers,
		DueDate: day.DateString(now.AddDate(0, 0, heavy))}); err != nil {
		t.Fatal(err)
	}
	s := e.start(ctx, d.ID, nil, nil)
	landed := map[int]int{}
	for n := 0; s.Current != nil; n++ {
		if n > 20 {
			t.Fatal("the session serves more than the 20 targets")
		}
		e.clock.Advance(time.Second)
		res := e.review(ctx, s.ID, s.Current.CardID, contracts.RatingGood)
		landed[day.DaysBetween(e.clock.Now(), res.NextDue)]++
		s.Current = res.Next
	}
	t.Logf("range %d-%d, 300 cards due on day %d; the 20 targets landed on %v", lo, hi, heavy, landed)
	if landed[heavy] > 0 {
		t.Errorf("%d of 20 targets landed on day %d, where 300 cards are due; landed %v", landed[heavy], heavy, landed)
	}
	total := 0
	for k, n := range landed {
		total += n
		if k < lo-1 || k > hi+1 {
			t.Errorf("%d targets landed on day %d, outside the range %d-%d", n, k, lo, hi)
		}
	}
	if total != 20 {
		t.Errorf("reviewed %d targets, want 20", total)
	}
}
