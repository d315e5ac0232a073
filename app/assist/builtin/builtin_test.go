package builtin

import (
	"context"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/assist"
)

// index is a knowledge search over fixed chunks: a chunk matches a term it contains.
type index []app.Chunk

func (ix index) SearchKnowledge(_ context.Context, _, _, query string, limit int) ([]app.Chunk, error) {
	var out []app.Chunk
	for _, c := range ix {
		if strings.Contains(strings.ToLower(c.Text), query) {
			c.Score = 1
			out = append(out, c)
		}
	}
	return out[:min(limit, len(out))], nil
}

func ask(question string) assist.Request {
	return assist.Request{OrgID: "org", AssistantID: "asst", Messages: []assist.Message{
		{Role: assist.RoleUser, Text: "earlier question about returns"},
		{Role: assist.RoleAssistant, Text: "an answer"},
		{Role: assist.RoleUser, Text: question},
	}}
}

var kb = index{
	{ContentID: "kc_1", Title: "Returns", Position: 0, Text: "Returns are accepted within thirty days."},
	{ContentID: "kc_2", Title: "Delivery", Position: 0, Text: "Delivery takes two days within Portugal."},
	{ContentID: "kc_2", Title: "Delivery", Position: 1, Text: "Express delivery costs five euros."},
}

// The answer quotes the chunks matching most words of the last user message first, each
// under its title, streamed in pieces whose sum is the text.
func TestAnswerQuotesBestChunks(t *testing.T) {
	var streamed strings.Builder
	res, err := New(kb).Stream(context.Background(), ask("How much does express delivery cost?"), func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	want := "Here is what I found:\n\nFrom \"Delivery\":\n> Express delivery costs five euros.\n\nFrom \"Delivery\":\n> Delivery takes two days within Portugal."
	if res.Text != want || streamed.String() != want || res.Reported || len(res.ToolCalls) != 0 {
		t.Fatalf("answer %q (streamed %q, reported %v)", res.Text, streamed.String(), res.Reported)
	}
}

// Nothing matches: it says so in the request's language, and asks for transfer_to_human
// when that tool is offered.
func TestNothingMatchesAsksForHandoffWhenOffered(t *testing.T) {
	req := ask("Vendem bicicletas?")
	req.Language = "pt-BR"
	res, err := New(kb).Stream(context.Background(), req, func(string) {})
	if err != nil || res.Text != "Não encontrei nada sobre isso no meu conhecimento." || len(res.ToolCalls) != 0 {
		t.Fatalf("answer %q %v %v", res.Text, res.ToolCalls, err)
	}
	req.Tools = []assist.ToolSpec{{Name: "end_conversation"}, {Name: HandoffTool}}
	res, _ = New(kb).Stream(context.Background(), req, func(string) {})
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != HandoffTool || res.StopReason != "tool_calls" ||
		!strings.HasSuffix(res.Text, "Vou passar você para uma pessoa que pode ajudar.") {
		t.Fatalf("answer %q tool calls %+v", res.Text, res.ToolCalls)
	}
}

// A knowledge scope of no contents searches nothing; a scope keeps only its contents.
func TestKnowledgeScope(t *testing.T) {
	req := ask("returns delivery")
	req.KnowledgeScope = []string{}
	res, _ := New(kb).Stream(context.Background(), req, func(string) {})
	if !strings.HasPrefix(res.Text, "I could not find") {
		t.Fatalf("scope none answered %q", res.Text)
	}
	req.KnowledgeScope = []string{"kc_1"}
	res, _ = New(kb).Stream(context.Background(), req, func(string) {})
	if !strings.Contains(res.Text, "Returns are accepted") || strings.Contains(res.Text, "Delivery") {
		t.Fatalf("scope kc_1 answered %q", res.Text)
	}
}

// Questions are searched by their significant words: stopwords and short words go, a
// plural loses its s, each word once.
func TestTerms(t *testing.T) {
	got := strings.Join(terms("What are the opening HOURS of the shops, and the shops' hours?"), " ")
	if got != "opening hour shop" {
		t.Fatalf("terms %q", got)
	}
}

// A canceled call stops between pieces and reports the cancel.
func TestCanceledStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := New(kb).Stream(ctx, ask("delivery"), func(string) { n++; cancel() })
	if err == nil || n != 1 {
		t.Fatalf("err %v after %d pieces", err, n)
	}
}
