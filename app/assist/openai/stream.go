package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"wsapi/app"
	"wsapi/app/assist"
	"wsapi/app/assist/internal/remote"
)

// maxLine bounds one line of the event stream (a chunk is one line): a tool call's arguments
// may come in one piece, but a server that never ends a line must not fill the memory.
const maxLine = 8 << 20

// maxToolCalls bounds the tool calls of one answer: a chunk's tool call index grows the list.
const maxToolCalls = 128

// readEvents reads a server-sent event stream and hands each event's data to on (the data
// lines of one event joined by "\n"), until on answers false, on fails or the stream ends.
// Comments, event names, ids and retry fields carry nothing in this protocol.
func readEvents(r io.Reader, on func(data []byte) (bool, error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var data []byte
	pending := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if !pending {
				continue
			}
			more, err := on(data)
			if err != nil || !more {
				return err
			}
			data, pending = data[:0], false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if pending {
			data = append(data, '\n')
		}
		data, pending = append(data, value...), true
	}
	return sc.Err()
}

// chunk is one chat.completion.chunk, or an error event.
type chunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usageJSON      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type usageJSON struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type toolCall struct {
	id, name string
	args     strings.Builder
}

// accumulator builds the answer of the first choice from the chunks (n is 1: other choices
// never come, and are ignored if they do).
type accumulator struct {
	text     strings.Builder
	tools    []toolCall
	stop     string
	finished bool
	reported bool
	usage    usageJSON
}

// add reads one event's data into the answer, streaming its text to onText.
func (a *accumulator) add(call *remote.Call, data []byte, onText func(string)) error {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("openai: a stream chunk is not JSON: %w", err)
	}
	if len(c.Error) > 0 {
		return streamError(call, c.Error)
	}
	if c.Usage != nil {
		// The last usage, not a sum: a compatible server that repeats its running totals in
		// every chunk would otherwise be counted many times.
		a.reported, a.usage = true, *c.Usage
	}
	for _, choice := range c.Choices {
		if choice.Index != 0 {
			continue
		}
		if d := choice.Delta.Content; d != "" {
			a.text.WriteString(d)
			onText(d)
		}
		for _, tc := range choice.Delta.ToolCalls {
			if tc.Index < 0 || tc.Index >= maxToolCalls {
				return fmt.Errorf("openai: tool call index %d out of range", tc.Index)
			}
			for len(a.tools) <= tc.Index {
				a.tools = append(a.tools, toolCall{})
			}
			t := &a.tools[tc.Index]
			if tc.ID != "" {
				t.id = tc.ID
			}
			t.name += tc.Function.Name
			t.args.WriteString(tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.stop, a.finished = choice.FinishReason, true
		}
	}
	return nil
}

// result is the answer so far; a call cut short keeps its text but not its unfinished tool
// calls.
func (a *accumulator) result() assist.Result {
	res := assist.Result{Reported: a.reported, Usage: usage(a.usage), Text: a.text.String(), StopReason: a.stop}
	if a.stop == "" {
		return res
	}
	for i := range a.tools {
		t := &a.tools[i]
		res.ToolCalls = append(res.ToolCalls, assist.ToolCall{ID: t.id, Name: t.name, Arguments: arguments(t.args.String())})
	}
	return res
}

// arguments keeps the model's JSON object; an empty one is {} and text that is not JSON is
// passed on as a JSON string, so the run loop can store it and the tool can refuse it.
func arguments(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	quoted, _ := json.Marshal(s)
	return quoted
}

// usage maps the protocol's counters to ours (see the package comment).
func usage(u usageJSON) app.UsageCounter {
	in, out := float64(u.PromptTokens), float64(u.CompletionTokens)
	return app.UsageCounter{
		InputTokens:          in,
		OutputTokens:         out,
		TotalTokens:          in + out,
		ReasoningTokens:      float64(u.CompletionTokensDetails.ReasoningTokens),
		InputTokensCacheRead: float64(u.PromptTokensDetails.CachedTokens),
	}
}
