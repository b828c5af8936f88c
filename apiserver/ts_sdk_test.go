package apiserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// tsSDKDir is where `make ts-sdk` installs the official TypeScript SDK
// (npm ci, pinned by its package-lock.json) beside client.mjs.
const tsSDKDir = "testdata/ts-sdk"

// tsSeen is what the TypeScript SDK's client saw (client.mjs).
type tsSeen struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Instructions    string   `json:"instructions"`
	Call            struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		IsError bool   `json:"isError"`
	} `json:"call"`
	Error string `json:"error"`
}

// tsClient runs the TypeScript SDK's client on url with key, calling
// tool. Outside CI a missing install skips with the command that fixes
// it; in CI it fails.
func tsClient(t *testing.T, url, key, tool string) tsSeen {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(tsSDKDir + "/node_modules/@modelcontextprotocol/sdk/package.json")
	}
	if err != nil {
		msg := "the TypeScript SDK client is not installed (" + err.Error() + "): run `make ts-sdk`"
		if inCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", url, key, tool)
	cmd.Dir = tsSDKDir
	out, err := cmd.Output()
	var seen tsSeen
	if err != nil || json.Unmarshal(out, &seen) != nil || seen.Error != "" {
		t.Fatalf("the TypeScript SDK client on %s: %v\n%s", url, err, out)
	}
	return seen
}

// TestTSSDKSeesOnlyChosenToolsets: the official TypeScript SDK client
// connects to /mcp/x/library and /mcp/readonly with an API key, sees
// only those tools, and a call outside them is an unknown tool.
func TestTSSDKSeesOnlyChosenToolsets(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cases := []struct {
		path, outside string
		want          []string
	}{
		{"/mcp/x/library", contracts.ToolSubmitReview, catalogWhere(inAnySet(contracts.ToolsetLibrary))},
		{"/mcp/readonly", contracts.ToolAddCards, catalogWhere(func(d contracts.ToolDef) bool {
			return d.Annotations.ReadOnlyHint && inAnySet(contracts.LeanToolsets...)(d)
		})},
	}
	for _, c := range cases {
		seen := tsClient(t, e.base+c.path, key, c.outside)
		if !slices.Equal(seen.Tools, c.want) || len(seen.Tools) == 0 {
			t.Errorf("%s: the TypeScript SDK sees %v, want %v", c.path, seen.Tools, c.want)
		}
		if seen.Call.Code == nil || *seen.Call.Code != -32602 || !strings.Contains(seen.Call.Message, "Unknown tool") {
			t.Errorf("%s: calling %s outside the choice: %+v", c.path, c.outside, seen.Call)
		}
		if seen.ProtocolVersion == "" || seen.Instructions == "" {
			t.Errorf("%s: negotiated %q, instructions %q", c.path, seen.ProtocolVersion, seen.Instructions)
		}
	}
}
