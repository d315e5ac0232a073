package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// fakeOpenAI is a minimal OpenAI Chat Completions server answering every streamed request
// at once with tokens chunks (gap apart), as the real service frames them. It records when
// it flushed each content chunk, by the marker of the request's last user message, so the
// bench can tell how long the service took to pass a chunk on.
//
// apitest's fake cannot be used here: it needs a testing.TB, which only the testing package
// can make.
type fakeOpenAI struct {
	tokens int
	gap    time.Duration

	mu   sync.Mutex
	sent map[string][]time.Time // by marker: when each content chunk was flushed
}

// markerRE finds the marker a bench question carries; the last one in a request is its
// newest message (the prompt lists the history oldest first).
var markerRE = regexp.MustCompile(`@k=([a-z0-9-]+)@`)

// token is the i-th content chunk: every chunk has the same length in runes, so a delta's
// offset tells which chunk it starts with.
func token(i int) string { return fmt.Sprintf(" tok%02d", i%100) }

const tokenRunes = 6

// answer is the whole text of a reply of n chunks.
func answer(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(token(i))
	}
	return b.String()
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(raw, &body)
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"no such route","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	marker := ""
	if ms := markerRE.FindAllSubmatch(raw, -1); len(ms) > 0 {
		marker = string(ms[len(ms)-1][1])
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	flush := http.NewResponseController(w).Flush
	chunk := func(delta, finish, usage string) error {
		_, err := fmt.Fprintf(w, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1767323045,"model":%q,"choices":[%s]%s}`+"\n\n",
			body.Model, choice(delta, finish), usage)
		if err == nil {
			err = flush()
		}
		return err
	}
	if chunk(`{"role":"assistant","content":""}`, "", "") != nil {
		return
	}
	times := make([]time.Time, f.tokens)
	for i := range f.tokens {
		if i > 0 && f.gap > 0 {
			time.Sleep(f.gap)
		}
		if chunk(fmt.Sprintf(`{"content":%q}`, token(i)), "", "") != nil {
			return
		}
		times[i] = time.Now()
	}
	f.mu.Lock()
	f.sent[marker] = times
	f.mu.Unlock()
	_ = chunk(`{}`, "stop", "")
	usage := fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, len(raw)/4, f.tokens, len(raw)/4+f.tokens)
	_, _ = io.WriteString(w, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1767323045,"model":"`+body.Model+`","choices":[]`+usage+"}\n\n")
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	_ = flush()
}

func choice(delta, finish string) string {
	if delta == "" {
		return ""
	}
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}`
}

// sentTimes answers when each chunk of the request marked m was flushed (nil: not yet).
func (f *fakeOpenAI) sentTimes(m string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[m]
}
