package web

import (
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// trashPageSize is how many trashed items the Trash section shows at once.
const trashPageSize = 50

// trashPage is the Trash section: a page of the trash, newest first.
type trashPage struct {
	Items []contracts.TrashItem
	Next  string // the next page's cursor
	Paged bool   // not the first page: it links back to the newest items
	Days  int    // how long the trash keeps things
}

// trash shows what was deleted in the last contracts.TrashDays days.
func (p *AccountPages) trash(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav, v.Flash = "Trash", "settings", flash(r)
	p.renderTrash(w, r, v, http.StatusOK)
}

func (p *AccountPages) renderTrash(w http.ResponseWriter, r *http.Request, v View, status int) {
	cursor := r.URL.Query().Get("cursor")
	pg, err := p.svc.Trash.ListTrash(r.Context(), contracts.ListTrashArgs{Cursor: cursor, Limit: trashPageSize})
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Data = settings("trash", trashPage{Items: pg.Items, Next: pg.NextCursor, Paged: cursor != "", Days: contracts.TrashDays})
	p.site.R.Render(w, r, status, "settings", v)
}

// restoreTrashed brings one deck or card back, as restore_items does, and
// writes restore_items' audit row; an item that cannot come back is shown
// with the reason.
func (p *AccountPages) restoreTrashed(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Trash", "settings"
	id := r.PostFormValue("id")
	var args contracts.RestoreItemsArgs
	switch r.PostFormValue("kind") {
	case contracts.TrashKindDeck:
		args.DeckIDs = []string{id}
	case contracts.TrashKindCard:
		args.CardIDs = []string{id}
	default:
		p.site.Fail(w, r, v, contracts.Errorf(contracts.KindInvalid, "choose a deck or card to restore"))
		return
	}
	res, err := p.svc.Trash.RestoreItems(r.Context(), args)
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	out := append(res.Decks, res.Cards...)[0]
	if out.Status != contracts.OutcomeRestored {
		v.Error = "Not restored: " + out.Reason
		if out.Status == contracts.OutcomeDuplicate {
			v.Error = "Not restored: a card with the same front and back was added to its deck since. Delete that one first to bring this one back."
		}
		p.renderTrash(w, r, v, httperr.Status(contracts.KindConflict))
		return
	}
	p.site.Audited(r, p.svc.Audit, contracts.ToolRestoreItems, args, id)
	SeeOther(w, r, "/settings/trash?done=restored-"+r.PostFormValue("kind"))
}
