package surface

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// call is one dispatch entry: run decodes the (already validated)
// arguments into the tool's record, calls the port method and returns its
// record; args and result are those records' types, which the mirror test
// holds against the catalog and the port.
type call struct {
	run          func(ctx context.Context, svc ports.McpServices, args json.RawMessage) (any, error)
	args, result reflect.Type
}

// bind turns a McpServices method expression into a call.
func bind[A, R any](method func(ports.McpServices, context.Context, A) (R, error)) call {
	return call{
		run: func(ctx context.Context, svc ports.McpServices, raw json.RawMessage) (any, error) {
			var args A
			if err := decodeArgs(raw, &args); err != nil {
				return nil, err
			}
			return method(svc, ctx, args)
		},
		args:   reflect.TypeFor[A](),
		result: reflect.TypeFor[R](),
	}
}

// dispatch maps every catalog tool to its McpServices method. The mirror
// test fails when catalog, port and this table disagree.
var dispatch = map[string]call{
	contracts.ToolListDecks:          bind(ports.McpServices.ListDecks),
	contracts.ToolGetDeck:            bind(ports.McpServices.GetDeck),
	contracts.ToolSearchCards:        bind(ports.McpServices.SearchCards),
	contracts.ToolGetStudySnapshot:   bind(ports.McpServices.GetStudySnapshot),
	contracts.ToolGetStats:           bind(ports.McpServices.GetStats),
	contracts.ToolGetStudyPlan:       bind(ports.McpServices.GetStudyPlan),
	contracts.ToolGetRetentionAdvice: bind(ports.McpServices.GetRetentionAdvice),
	contracts.ToolCreateDeck:         bind(ports.McpServices.CreateDeck),
	contracts.ToolUpdateDeck:         bind(ports.McpServices.UpdateDeck),
	contracts.ToolDeleteDeck:         bind(ports.McpServices.DeleteDeck),
	contracts.ToolListTrash:          bind(ports.McpServices.ListTrash),
	contracts.ToolRestoreItems:       bind(ports.McpServices.RestoreItems),
	contracts.ToolUndoChanges:        bind(ports.McpServices.UndoChanges),
	contracts.ToolFilteredDeck:       bind(ports.McpServices.FilteredDeck),
	contracts.ToolAddCards:           bind(ports.McpServices.AddCards),
	contracts.ToolUpdateCards:        bind(ports.McpServices.UpdateCards),
	contracts.ToolDeleteCards:        bind(ports.McpServices.DeleteCards),
	contracts.ToolImportCards:        bind(ports.McpServices.ImportCards),
	contracts.ToolStartStudySession:  bind(ports.McpServices.StartStudySession),
	contracts.ToolSubmitReview:       bind(ports.McpServices.SubmitReview),
	contracts.ToolUndoLastRating:     bind(ports.McpServices.UndoLastRating),
	contracts.ToolRequestMediaUpload: bind(ports.McpServices.RequestMediaUpload),
	contracts.ToolRenderStudySession: bind(ports.McpServices.RenderStudySession),
	contracts.ToolRescheduleCards:    bind(ports.McpServices.RescheduleCards),
	contracts.ToolBuryCards:          bind(ports.McpServices.BuryCards),
	contracts.ToolUnbury:             bind(ports.McpServices.Unbury),
	contracts.ToolGetSettings:        bind(ports.McpServices.GetSettings),
	contracts.ToolUpdateSettings:     bind(ports.McpServices.UpdateSettings),
	contracts.ToolAddNotes:           bind(ports.McpServices.AddNotes),
	contracts.ToolUpdateNotes:        bind(ports.McpServices.UpdateNotes),
	contracts.ToolGetNote:            bind(ports.McpServices.GetNote),
	contracts.ToolExportDeck:         bind(ports.McpServices.ExportDeck),
	contracts.ToolOptimizeParameters: bind(ports.McpServices.OptimizeParameters),
	contracts.ToolGetJob:             bind(ports.McpServices.GetJob),
	contracts.ToolCancelJob:          bind(ports.McpServices.CancelJob),
	contracts.ToolImportPackage:      bind(ports.McpServices.ImportPackage),
}
