package scenario

// Names of the scenarios only the full stack answers; it answers
// ListDecks too, compared with the engines on the same request.
const (
	SubmitReview = "submit_review"
	AddCards     = "add_cards"
)

// Goals for the full stack (issue 12 §2), as multiples of server CPU per
// request: list_decks against the database floor's and the no-I/O
// floor's list_decks; each mutating call, with its audit row, against the
// database floor's same call; on Postgres all three against its database
// floor.
const (
	ListDecksDBGoal   = 1.3
	ListDecksNoIOGoal = 3
	MutationDBGoal    = 1.5
	PostgresDBGoal    = 1.5
)

// The servers the goals name.
const (
	FloorServer     = "floor"
	DBFloorServer   = "dbfloor"
	DBFloorPGServer = "dbfloor-pg"
)

// CardsPerAdd is the number of new cards each add_cards request carries.
const CardsPerAdd = 10

// ReviewRating is the rating every submit_review request gives: a new
// card rated easy graduates, so it is not queued again and the account's
// study queues stay the size the server seeded for the whole run.
const ReviewRating = "easy"

// metaAuditFailed is the _meta key the service sets on a result whose
// audit row could not be written (mcpcore/surface.MetaAuditFailed).
const metaAuditFailed = "takhtabush/auditFailed"

// ReaderDeckCards is how many cards the full stack seeds into the i-th of
// the fixture's decks (a few each); list_decks must report them.
func ReaderDeckCards(i int) int { return 3 + i%5 }

// StudyData is what submit_review needs from its server: the study
// sessions started during set-up and the cards pending in each.
type StudyData struct {
	Sessions []StudySet `json:"sessions"`
}

// StudySet is one study session and the cards pending in it.
type StudySet struct {
	SessionID string   `json:"sessionId"`
	CardIDs   []string `json:"cardIds"` // in queue order: CardIDs[i] is at position i
}

// Pairs counts the (session, card) pairs in d.
func (d StudyData) Pairs() int {
	n := 0
	for _, s := range d.Sessions {
		n += len(s.CardIDs)
	}
	return n
}

// AddData is what add_cards needs from its server: the decks to add to.
// Call i adds to DeckIDs[i/CallsPerDeck], so every deck receives at most
// CallsPerDeck calls and the measured cost does not depend on how long
// the run has been filling one deck.
type AddData struct {
	DeckIDs      []string `json:"deckIds"`
	CallsPerDeck int      `json:"callsPerDeck"`
}

// FullStack returns the full stack's scenarios: list_decks (the fixture's
// request), and submit_review and a 10-card add_cards, each with its
// audit row, with their goals on SQLite or, when pg, on Postgres.
func FullStack(pg bool) []Scenario {
	list := []Goal{{DBFloorServer, ListDecks, ListDecksDBGoal}, {FloorServer, ListDecks, ListDecksNoIOGoal}}
	review := []Goal{{DBFloorServer, SubmitReview, MutationDBGoal}}
	add := []Goal{{DBFloorServer, AddCards, MutationDBGoal}}
	if pg {
		list = []Goal{{DBFloorPGServer, ListDecks, PostgresDBGoal}}
		review = []Goal{{DBFloorPGServer, SubmitReview, PostgresDBGoal}}
		add = []Goal{{DBFloorPGServer, AddCards, PostgresDBGoal}}
	}
	return []Scenario{
		{Name: ListDecks, Body: Fixed(listDecksBody), Check: checkFullListDecks, Goals: list},
		{Name: SubmitReview, Bind: bindSubmitReview, Check: checkSubmitReview, Baseline: Echo, Goals: review},
		{Name: AddCards, Bind: bindAddCards, Check: checkAddCards, Baseline: Echo, Goals: add},
	}
}

// DBFloor returns the database floor's scenarios: the full stack's
// requests, checked the same way.
func DBFloor() []Scenario {
	return []Scenario{
		{Name: ListDecks, Body: Fixed(listDecksBody), Check: checkFullListDecks},
		{Name: SubmitReview, Bind: bindSubmitReview, Check: checkSubmitReview, Baseline: Echo},
		{Name: AddCards, Bind: bindAddCards, Check: checkAddCards, Baseline: Echo},
	}
}
