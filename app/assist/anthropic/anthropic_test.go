package anthropic_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/assist"
	"wsapi/app/assist/anthropic"
	"wsapi/app/assist/internal/providertest"
)

func stream(p assist.Provider, req assist.Request) ([]string, assist.Result, error) {
	var pieces []string
	res, err := p.Stream(context.Background(), req, func(s string) { pieces = append(pieces, s) })
	return pieces, res, err
}

func hello() assist.Request {
	return assist.Request{Model: "claude-test", Messages: []assist.Message{{Role: assist.RoleUser, Text: "hi"}}}
}

func newProvider(srv *apitest.LLMServer) *anthropic.Provider {
	return anthropic.New("an", srv.URL, providertest.Key, time.Minute, nil)
}

func TestSharedBehaviour(t *testing.T) {
	providertest.Suite{
		NewServer: apitest.NewAnthropicServer,
		NewProvider: func(baseURL string, timeout time.Duration) assist.Provider {
			return anthropic.New("p", baseURL, providertest.Key, timeout, nil)
		},
		AuthHeader: "Authorization", // the SDK sends the API key as a bearer token
	}.Run(t)
}

func TestStreamsTextInOrderWithCacheUsage(t *testing.T) {
	srv := apitest.NewAnthropicServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"Bon", "jour", "!"},
		Usage: &apitest.LLMUsage{Input: 50, CacheRead: 200, CacheWrite: 30, Output: 12}})
	pieces, res, err := stream(newProvider(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Bon", "jour", "!"}; !reflect.DeepEqual(pieces, want) {
		t.Fatalf("pieces %q, want %q", pieces, want)
	}
	if res.Text != "Bonjour!" || res.StopReason != "end_turn" || !res.Reported || len(res.ToolCalls) != 0 {
		t.Fatalf("result %+v", res)
	}
	// input_tokens counts all input: 50 uncached + 200 read + 30 written.
	want := app.UsageCounter{InputTokens: 280, OutputTokens: 12, TotalTokens: 292,
		InputTokensCacheRead: 200, InputTokensCacheWrite: 30}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
	got := srv.Requests()[0]
	if got.Header.Get("Authorization") != "Bearer "+providertest.Key || got.Header.Get("Anthropic-Version") == "" {
		t.Fatalf("headers %v", got.Header)
	}
	if got.Body["stream"] != true || got.Body["model"] != "claude-test" || got.Body["max_tokens"] != float64(anthropic.DefaultMaxTokens) {
		t.Fatalf("body %s", got.Raw)
	}
}

func TestThinkingTokensAreReasoning(t *testing.T) {
	srv := apitest.NewAnthropicServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"x"}, Usage: &apitest.LLMUsage{Input: 5, Output: 40, Reasoning: 25}})
	_, res, err := stream(newProvider(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	// The fake sends thinking_tokens only in message_start: it stays through message_delta.
	if res.Usage.ReasoningTokens != 25 || res.Usage.OutputTokens != 40 || res.Usage.TotalTokens != 45 {
		t.Fatalf("usage %+v", res.Usage)
	}
}

func TestAssemblesToolUseFromFragments(t *testing.T) {
	srv := apitest.NewAnthropicServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"Looking."}, ToolCalls: []apitest.LLMToolCall{
		{ID: "toolu_1", Name: "lookup", Args: []string{`{"q":`, ` "wea`, `ther"}`}},
		{ID: "toolu_2", Name: "remember", Args: []string{`{"fact":"likes tea"`, `}`}},
		{ID: "toolu_3", Name: "noargs"},
	}, Usage: &apitest.LLMUsage{Input: 1, Output: 2}})
	_, res, err := stream(newProvider(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	want := []assist.ToolCall{
		{ID: "toolu_1", Name: "lookup", Arguments: json.RawMessage(`{"q": "weather"}`)},
		{ID: "toolu_2", Name: "remember", Arguments: json.RawMessage(`{"fact":"likes tea"}`)},
		{ID: "toolu_3", Name: "noargs", Arguments: json.RawMessage(`{}`)},
	}
	if res.StopReason != "tool_use" || res.Text != "Looking." || len(res.ToolCalls) != len(want) {
		t.Fatalf("result %+v", res)
	}
	for i, tc := range res.ToolCalls {
		if tc.ID != want[i].ID || tc.Name != want[i].Name || string(tc.Arguments) != string(want[i].Arguments) {
			t.Fatalf("tool call %d: %+v (%s), want %+v", i, tc, tc.Arguments, want[i])
		}
	}
}

func TestNoUsageIsNotReported(t *testing.T) {
	srv := apitest.NewAnthropicServer(t)
	srv.Reply(apitest.TextReply("a", "b"))
	_, res, err := stream(newProvider(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reported || res.Usage != (app.UsageCounter{}) || res.Text != "ab" {
		t.Fatalf("result %+v", res)
	}
}

func TestSystemToolsAndToolResultsReachTheServer(t *testing.T) {
	srv := apitest.NewAnthropicServer(t)
	srv.Reply(apitest.TextReply("ok"))
	req := assist.Request{
		Model: "claude-test", System: "You are helpful.", MaxTokens: 500,
		Messages: []assist.Message{
			{Role: assist.RoleUser, Text: "weather and tea?"},
			{Role: assist.RoleAssistant, Text: "Checking.", ToolCalls: []assist.ToolCall{
				{ID: "toolu_1", Name: "lookup", Arguments: json.RawMessage(`{"q":"weather"}`)},
				{ID: "toolu_2", Name: "lookup", Arguments: json.RawMessage(`{"q":"tea"}`)}}},
			{Role: assist.RoleTool, ToolCallID: "toolu_1", Text: "sunny"},
			{Role: assist.RoleTool, ToolCallID: "toolu_2", Text: "index unavailable", IsError: true},
			{Role: assist.RoleAssistant, Text: "It is sunny."},
			{Role: assist.RoleUser, Text: "thanks"},
		},
		Tools: []assist.ToolSpec{{Name: "lookup", Description: "search knowledge",
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)}},
	}
	if _, _, err := stream(newProvider(srv), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		System    []map[string]any `json:"system"`
		Messages  []map[string]any `json:"messages"`
		Tools     []map[string]any `json:"tools"`
		MaxTokens int              `json:"max_tokens"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	checkJSON(t, "system", body.System, `[{"text":"You are helpful.","type":"text"}]`)
	checkJSON(t, "messages", body.Messages, `[`+
		`{"content":[{"text":"weather and tea?","type":"text"}],"role":"user"},`+
		`{"content":[{"text":"Checking.","type":"text"},`+
		`{"id":"toolu_1","input":{"q":"weather"},"name":"lookup","type":"tool_use"},`+
		`{"id":"toolu_2","input":{"q":"tea"},"name":"lookup","type":"tool_use"}],"role":"assistant"},`+
		`{"content":[{"content":[{"text":"sunny","type":"text"}],"is_error":false,"tool_use_id":"toolu_1","type":"tool_result"},`+
		`{"content":[{"text":"index unavailable","type":"text"}],"is_error":true,"tool_use_id":"toolu_2","type":"tool_result"}],"role":"user"},`+
		`{"content":[{"text":"It is sunny.","type":"text"}],"role":"assistant"},`+
		`{"content":[{"text":"thanks","type":"text"}],"role":"user"}]`)
	checkJSON(t, "tools", body.Tools, `[{"description":"search knowledge","input_schema":`+
		`{"additionalProperties":false,"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"},"name":"lookup"}]`)
	if body.MaxTokens != 500 {
		t.Fatalf("max_tokens %d", body.MaxTokens)
	}
}

func checkJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	got, _ := json.Marshal(v)
	wantCanon, _ := json.Marshal(w)
	if string(got) != string(wantCanon) {
		t.Fatalf("%s\n%s\nwant\n%s", what, got, wantCanon)
	}
}

func TestOverloadedMidStreamIsRetryableWithPartialText(t *testing.T) {
	srv := apitest.NewAnthropicServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"par", "tial"}, StreamError: "overloaded_error",
		Usage: &apitest.LLMUsage{Input: 9}})
	_, res, err := stream(newProvider(srv), hello())
	pe, ok := assist.AsProviderError(err)
	if !ok || pe.Status != 529 || !pe.Retryable || res.Text != "partial" {
		t.Fatalf("result %+v, error %v", res, err)
	}
	// The input side of the usage came in message_start: it is kept with the partial result.
	if !res.Reported || res.Usage.InputTokens != 9 {
		t.Fatalf("usage %+v", res.Usage)
	}
}
