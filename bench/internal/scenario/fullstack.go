package scenario

// Names of the scenarios only the full stack answers; it answers
// ListDecks too, compared with the engines on the same request.
const (
	SubmitReview = "submit_review"
	AddCards     = "add_cards"
)

// Goals for the full stack (issue 4 §8), as multiples of the floor's
// server CPU per request: list_decks against the floor's list_decks, and
// a mutating call with its audit row against the floor's echo, an MCP
// call that does no work.
const (
	ListDecksCPUGoal = 3
	MutationCPUGoal  = 6
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
	CardIDs   []string `json:"cardIds"`
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
// request, goal ≤ 3× the floor's list_decks), and submit_review and a
// 10-card add_cards, each with its audit row (goal ≤ 6× the floor's echo).
func FullStack() []Scenario {
	return []Scenario{
		{Name: ListDecks, Body: Fixed(listDecksBody), Check: checkFullListDecks, CPUGoal: ListDecksCPUGoal},
		{Name: SubmitReview, Bind: bindSubmitReview, Check: checkSubmitReview, Baseline: Echo, CPUGoal: MutationCPUGoal},
		{Name: AddCards, Bind: bindAddCards, Check: checkAddCards, Baseline: Echo, CPUGoal: MutationCPUGoal},
	}
}
