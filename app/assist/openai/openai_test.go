package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/assist"
	"wsapi/app/assist/internal/providertest"
	"wsapi/app/assist/openai"
)

const key = providertest.Key

// stream calls p and returns the pieces of text in the order onText saw them.
func stream(ctx context.Context, p assist.Provider, req assist.Request) ([]string, assist.Result, error) {
	var pieces []string
	res, err := p.Stream(ctx, req, func(s string) { pieces = append(pieces, s) })
	return pieces, res, err
}

func hello() assist.Request {
	return assist.Request{Model: "gpt-test", Messages: []assist.Message{{Role: assist.RoleUser, Text: "hi"}}}
}

func newProvider(srv *apitest.LLMServer, timeout time.Duration) *openai.Provider {
	return openai.New("oa", srv.URL, key, timeout, nil)
}

func TestStreamsTextInOrderWithCachedUsage(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"Hel", "lo ", "world"},
		Usage: &apitest.LLMUsage{Input: 100, Output: 7, CacheRead: 40, Reasoning: 3}})
	pieces, res, err := stream(context.Background(), newProvider(srv, time.Minute), hello())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hel", "lo ", "world"}; !reflect.DeepEqual(pieces, want) {
		t.Fatalf("pieces %q, want %q", pieces, want)
	}
	if res.Text != "Hello world" || res.StopReason != "stop" || !res.Reported || len(res.ToolCalls) != 0 {
		t.Fatalf("result %+v", res)
	}
	want := app.UsageCounter{InputTokens: 100, OutputTokens: 7, TotalTokens: 107, ReasoningTokens: 3,
		InputTokensCacheRead: 40}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
	got := srv.Requests()[0]
	if got.Body["stream"] != true || got.Body["model"] != "gpt-test" ||
		got.Body["stream_options"].(map[string]any)["include_usage"] != true {
		t.Fatalf("body %s", got.Raw)
	}
	if got.Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("authorization %q", got.Header.Get("Authorization"))
	}
	if _, ok := got.Body["max_completion_tokens"]; ok {
		t.Fatalf("max tokens sent without a limit: %s", got.Raw)
	}
}

func TestAssemblesToolCallsFromFragments(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"Let me look."}, ToolCalls: []apitest.LLMToolCall{
		{ID: "call_1", Name: "lookup", Args: []string{`{"q":`, `"wea`, `ther"}`}},
		{ID: "call_2", Name: "remember", Args: []string{`{"fact":"likes tea",`, `"importance":3}`}},
		{ID: "call_3", Name: "noargs"},
	}, Usage: &apitest.LLMUsage{Input: 10, Output: 20}})
	_, res, err := stream(context.Background(), newProvider(srv, time.Minute), hello())
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "tool_calls" || res.Text != "Let me look." || len(res.ToolCalls) != 3 {
		t.Fatalf("result %+v", res)
	}
	want := []assist.ToolCall{
		{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"q":"weather"}`)},
		{ID: "call_2", Name: "remember", Arguments: json.RawMessage(`{"fact":"likes tea","importance":3}`)},
		{ID: "call_3", Name: "noargs", Arguments: json.RawMessage(`{}`)},
	}
	for i, tc := range res.ToolCalls {
		if tc.ID != want[i].ID || tc.Name != want[i].Name || string(tc.Arguments) != string(want[i].Arguments) {
			t.Fatalf("tool call %d: %+v (%s), want %+v", i, tc, tc.Arguments, want[i])
		}
	}
}

func TestNoUsageIsNotReported(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.TextReply("a", "b"))
	_, res, err := stream(context.Background(), newProvider(srv, time.Minute), hello())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reported || res.Usage != (app.UsageCounter{}) || res.Text != "ab" {
		t.Fatalf("result %+v", res)
	}
}

func TestSystemToolsAndToolResultsReachTheServer(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.TextReply("ok"))
	req := assist.Request{
		Model: "gpt-test", System: "You are helpful.", MaxTokens: 300, ReasoningEffort: "low",
		Messages: []assist.Message{
			{Role: assist.RoleUser, Text: "weather?"},
			{Role: assist.RoleAssistant, ToolCalls: []assist.ToolCall{
				{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"q":"weather"}`)}}},
			{Role: assist.RoleTool, ToolCallID: "call_1", Text: "sunny"},
			{Role: assist.RoleAssistant, Text: "It is sunny."},
		},
		Tools: []assist.ToolSpec{{Name: "lookup", Description: "search knowledge",
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}},
	}
	if _, _, err := stream(context.Background(), newProvider(srv, time.Minute), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages            []map[string]any `json:"messages"`
		Tools               []map[string]any `json:"tools"`
		MaxCompletionTokens int              `json:"max_completion_tokens"`
		ReasoningEffort     string           `json:"reasoning_effort"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	wantMessages := `[{"content":"You are helpful.","role":"system"},{"content":"weather?","role":"user"},` +
		`{"role":"assistant","tool_calls":[{"function":{"arguments":"{\"q\":\"weather\"}","name":"lookup"},"id":"call_1","type":"function"}]},` +
		`{"content":"sunny","role":"tool","tool_call_id":"call_1"},{"content":"It is sunny.","role":"assistant"}]`
	if got, _ := json.Marshal(body.Messages); string(got) != wantMessages {
		t.Fatalf("messages\n%s\nwant\n%s", got, wantMessages)
	}
	wantTools := `[{"function":{"description":"search knowledge","name":"lookup","parameters":{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"}},"type":"function"}]`
	if got, _ := json.Marshal(body.Tools); string(got) != wantTools {
		t.Fatalf("tools\n%s\nwant\n%s", got, wantTools)
	}
	if body.MaxCompletionTokens != 300 || body.ReasoningEffort != "low" {
		t.Fatalf("limits %+v", body)
	}
}

func TestSharedBehaviour(t *testing.T) {
	providertest.Suite{
		NewServer: apitest.NewOpenAIServer,
		NewProvider: func(baseURL string, timeout time.Duration) assist.Provider {
			return openai.New("p", baseURL, providertest.Key, timeout, nil)
		},
		AuthHeader: "Authorization",
	}.Run(t)
}

func TestStreamErrorEventIsClassified(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"par", "tial"}, StreamError: "server_error"})
	_, res, err := stream(context.Background(), newProvider(srv, time.Minute), hello())
	pe, ok := assist.AsProviderError(err)
	if !ok || pe.Status != 500 || !pe.Retryable || res.Text != "partial" {
		t.Fatalf("result %+v, error %v", res, err)
	}
}

func TestLocalServerWithoutKey(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.TextReply("local"))
	_, res, err := stream(context.Background(), openai.New("ollama", srv.URL, "", time.Minute, nil), hello())
	if err != nil || res.Text != "local" {
		t.Fatalf("result %+v, error %v", res, err)
	}
	if auth := srv.Requests()[0].Header.Get("Authorization"); strings.TrimSpace(strings.TrimPrefix(auth, "Bearer")) != "" {
		t.Fatalf("authorization %q without a key", auth)
	}
}

func TestCallerHTTPClientIsUsed(t *testing.T) {
	srv := apitest.NewOpenAIServer(t)
	srv.Reply(apitest.TextReply("via client"))
	rt := &countingTransport{next: http.DefaultTransport}
	p := openai.New("oa", srv.URL, key, time.Minute, &http.Client{Transport: rt})
	if _, _, err := stream(context.Background(), p, hello()); err != nil {
		t.Fatal(err)
	}
	if rt.calls != 1 {
		t.Fatalf("the caller's transport saw %d requests", rt.calls)
	}
}

type countingTransport struct {
	next  http.RoundTripper
	calls int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.calls++
	return c.next.RoundTrip(r)
}

func TestRunningUsageTotalsAreNotSummed(t *testing.T) {
	// A compatible server that sends its running usage in every chunk: the last one counts.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range []string{
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`,
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
			`[DONE]`,
		} {
			_, _ = w.Write([]byte("data: " + c + "\n\n"))
		}
	}))
	defer srv.Close()
	_, res, err := stream(context.Background(), openai.New("oa", srv.URL, key, time.Minute, nil), hello())
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.InputTokens != 10 || res.Usage.OutputTokens != 2 || res.Usage.TotalTokens != 12 || res.Text != "ab" {
		t.Fatalf("result %+v", res)
	}
}
