package apitest

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends a streaming request to a fake and returns the SSE lines that are not blank.
func post(t *testing.T, url, body string) []string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var lines []string
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

func TestOpenAIFakeWireFormat(t *testing.T) {
	srv := NewOpenAIServer(t)
	srv.Reply(LLMReply{Text: []string{"Hi"}, ToolCalls: []LLMToolCall{{ID: "call_1", Name: "f", Args: []string{`{"a":`, `1}`}}},
		Usage: &LLMUsage{Input: 10, Output: 3, CacheRead: 4}})
	lines := post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`)
	want := []string{
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}`,
		`data: {"id":"chatcmpl-apitest","object":"chat.completion.chunk","created":1767323045,"model":"m","system_fingerprint":"fp_apitest","choices":[],"usage":{"completion_tokens":3,"completion_tokens_details":{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,"rejected_prediction_tokens":0},"prompt_tokens":10,"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":4},"total_tokens":13}}`,
		`data: [DONE]`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stream\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// Without include_usage: no usage field and no usage chunk.
	srv.Reply(LLMReply{Text: []string{"x"}, Usage: &LLMUsage{Input: 1}})
	lines = post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true}`)
	if len(lines) != 4 || strings.Contains(strings.Join(lines, ""), `"usage"`) {
		t.Fatalf("stream without include_usage:\n%s", strings.Join(lines, "\n"))
	}
}

func TestAnthropicFakeEventSequence(t *testing.T) {
	srv := NewAnthropicServer(t)
	srv.Reply(LLMReply{Text: []string{"a", "b"}, ToolCalls: []LLMToolCall{{ID: "toolu_1", Name: "f", Args: []string{`{}`}}},
		Usage: &LLMUsage{Input: 5, Output: 7, CacheRead: 2, CacheWrite: 1}})
	lines := post(t, srv.URL+"/v1/messages", `{"model":"claude","stream":true,"max_tokens":10}`)
	var events []string
	for _, l := range lines {
		if name, ok := strings.CutPrefix(l, "event: "); ok {
			events = append(events, name)
		}
	}
	want := "message_start content_block_start ping content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("events\n%s\nwant\n%s", got, want)
	}
	joined := strings.Join(lines, "\n")
	for _, part := range []string{
		`"usage":{"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"input_tokens":5,"output_tokens":1}`,
		`"delta":{"text":"a","type":"text_delta"}`,
		`"content_block":{"id":"toolu_1","input":{},"name":"f","type":"tool_use"}`,
		`"delta":{"partial_json":"{}","type":"input_json_delta"}`,
		`"delta":{"stop_reason":"tool_use","stop_sequence":null},"type":"message_delta","usage":{"output_tokens":7}`,
	} {
		if !strings.Contains(joined, part) {
			t.Fatalf("stream lacks %s:\n%s", part, joined)
		}
	}
}

func TestFakeErrorsAndRecords(t *testing.T) {
	srv := NewAnthropicServer(t)
	srv.Fail(529, "3")
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{"model":"claude"}`))
	req.Header.Set("X-Api-Key", "k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 529 || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	got := srv.Requests()
	if len(got) != 1 || got[0].Header.Get("X-Api-Key") != "k1" || got[0].Body["model"] != "claude" {
		t.Fatalf("records %+v", got)
	}
	// An empty queue answers 500 unless a default reply is set.
	resp, err = http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Fatalf("empty queue: status %d", resp.StatusCode)
	}
}

func TestFakesAnswerWithoutStreaming(t *testing.T) {
	reply := LLMReply{Text: []string{"He", "llo"}, ToolCalls: []LLMToolCall{{ID: "t1", Name: "f", Args: []string{`{"a":`, `1}`}}},
		Usage: &LLMUsage{Input: 3, Output: 4}}
	oa, an := NewOpenAIServer(t), NewAnthropicServer(t)
	oa.Reply(reply)
	an.Reply(reply)
	for _, c := range []struct {
		url  string
		want []string
	}{
		{oa.URL + "/chat/completions", []string{`"object":"chat.completion"`, `"content":"Hello"`,
			`"arguments":"{\"a\":1}"`, `"finish_reason":"tool_calls"`, `"prompt_tokens":3`}},
		{an.URL + "/v1/messages", []string{`"type":"message"`, `"text":"Hello"`, `"input":{"a":1}`,
			`"stop_reason":"tool_use"`, `"output_tokens":4`}},
	} {
		resp, err := http.Post(c.url, "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, part := range c.want {
			if !strings.Contains(string(body), part) {
				t.Fatalf("%s: answer lacks %s:\n%s", c.url, part, body)
			}
		}
	}
}
