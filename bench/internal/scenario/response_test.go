package scenario

import "testing"

func TestDecodeSSE(t *testing.T) {
	r := &Response{Status: 200, ContentType: "text/event-stream", Body: []byte(
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n")}
	msg, err := r.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if string(msg.ID) != "1" || string(msg.Result) != `{"tools":[]}` {
		t.Fatalf("decoded %+v", msg)
	}
}

func TestFastCheck(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`:                  true,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`:  true,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError": true}}`:  false,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`: false,
		`{"jsonrpc":"2.0","id":1}`:                                          false,
	} {
		if err := FastCheck(200, []byte(body)); (err == nil) != ok {
			t.Errorf("FastCheck(%s) = %v, want ok=%v", body, err, ok)
		}
	}
	if FastCheck(404, []byte(`{"result":{}}`)) == nil {
		t.Error("FastCheck accepted HTTP 404")
	}
}
