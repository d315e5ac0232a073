// Package builtin is the embedded model, builtin:retrieval: no network and no language
// model. It answers the last user message with the assistant's best knowledge chunks (the
// bm25 search of processed knowledge), each quoted under its content's title, and says so
// when nothing matches. It makes a laptop's `app serve` hold a working conversation; it
// does not understand, summarise or converse.
package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"wsapi/app"
	"wsapi/app/assist"
)

// Name is the provider name of the builtin model, and Model the model id.
const (
	Name  = "builtin"
	Model = "builtin:retrieval"
)

// HandoffTool is the tool the builtin model asks for when nothing matches, if offered.
const HandoffTool = "transfer_to_human"

// Searcher is the knowledge search (app.Service.SearchKnowledge).
type Searcher interface {
	SearchKnowledge(ctx context.Context, orgID, assistantID, query string, limit int) ([]app.Chunk, error)
}

// Provider is the builtin model.
type Provider struct {
	Search Searcher
}

// New makes the builtin model over a knowledge search.
func New(s Searcher) *Provider { return &Provider{Search: s} }

// Quoted chunks per answer, the words of a question searched, and the characters kept of
// one chunk.
const (
	maxChunks = 3
	maxTerms  = 8
	maxQuote  = 600
)

// Stream answers the request's last user message. Usage is not reported: the builtin has no
// tokenizer, so the run loop estimates it from the text like any provider that sends none,
// and marks it estimated.
func (p *Provider) Stream(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
	if req.FollowUp {
		return followUp(req, onText), nil
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == assist.RoleTool {
		// The loop's call after the handoff it asked for: everything was said before it.
		return assist.Result{StopReason: "stop"}, nil
	}
	chunks, err := p.find(ctx, req)
	if err != nil {
		return assist.Result{}, err
	}
	words := phrasesFor(req.Language)
	res := assist.Result{StopReason: "stop"}
	var pieces []string
	if len(chunks) == 0 {
		pieces = append(pieces, words.nothing)
		if offered(req.Tools, HandoffTool) {
			pieces = append(pieces, " "+words.handoff)
			args, _ := json.Marshal(map[string]string{"reason": "no knowledge matched the question"})
			res.ToolCalls = []assist.ToolCall{{ID: "call_" + app.RandomBase62(12), Name: HandoffTool, Arguments: args}}
			res.StopReason = "tool_calls"
		}
	} else {
		pieces = append(pieces, words.found)
		for _, c := range chunks {
			q := quote(c.Text)
			pieces = append(pieces, "\n\n"+fmt.Sprintf(words.from, c.Title)+"\n"+q)
			res.Citations = append(res.Citations, app.Citation{ContentID: c.ContentID, Title: c.Title, Text: strings.TrimPrefix(q, "> ")})
		}
	}
	for _, piece := range pieces {
		if err := ctx.Err(); err != nil {
			return assist.Result{Text: res.Text}, err
		}
		onText(piece)
		res.Text += piece
	}
	return res, nil
}

func offered(tools []assist.ToolSpec, name string) bool {
	return slices.ContainsFunc(tools, func(t assist.ToolSpec) bool { return t.Name == name })
}

// find searches each significant word of the question on its own and adds the scores:
// bm25 of a query is the sum over its terms, so this ranks like one OR query, where the
// store's search requires every word (an inbox search, not a question).
func (p *Provider) find(ctx context.Context, req assist.Request) ([]app.Chunk, error) {
	question := lastUserText(req.Messages)
	if question == "" || (req.KnowledgeScope != nil && len(req.KnowledgeScope) == 0) {
		return nil, nil
	}
	type hit struct {
		chunk app.Chunk
		terms int
	}
	hits := map[string]*hit{}
	for _, term := range terms(question) {
		found, err := p.Search.SearchKnowledge(ctx, req.OrgID, req.AssistantID, term, 10)
		if err != nil {
			return nil, err
		}
		for _, c := range found {
			if req.KnowledgeScope != nil && !slices.Contains(req.KnowledgeScope, c.ContentID) {
				continue
			}
			key := fmt.Sprintf("%s/%d", c.ContentID, c.Position)
			if h, ok := hits[key]; ok {
				h.chunk.Score += c.Score
				h.terms++
				continue
			}
			hits[key] = &hit{chunk: c, terms: 1}
		}
	}
	ranked := make([]*hit, 0, len(hits))
	for _, h := range hits {
		ranked = append(ranked, h)
	}
	// More of the question's words first, then the better score, then a stable order.
	slices.SortFunc(ranked, func(a, b *hit) int {
		if a.terms != b.terms {
			return b.terms - a.terms
		}
		if a.chunk.Score != b.chunk.Score {
			if a.chunk.Score > b.chunk.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.chunk.ContentID, b.chunk.ContentID)
	})
	out := []app.Chunk{}
	for _, h := range ranked[:min(maxChunks, len(ranked))] {
		out = append(out, h.chunk)
	}
	return out, nil
}

func lastUserText(msgs []assist.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == assist.RoleUser {
			return strings.TrimSpace(msgs[i].Text)
		}
	}
	return ""
}

// terms are the question's distinct words of 3 or more characters that are not stopwords,
// lowercased, at most maxTerms; a plural's s is dropped (the search matches prefixes).
func terms(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if utf8.RuneCountInString(w) < 3 || stopwords[w] {
			continue
		}
		if utf8.RuneCountInString(w) > 4 && strings.HasSuffix(w, "s") {
			w = strings.TrimSuffix(w, "s")
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

// quote is a chunk as quoted: whitespace folded, cut at maxQuote characters.
func quote(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(t) > maxQuote {
		t = string([]rune(t)[:maxQuote]) + "…"
	}
	return "> " + t
}
