package assist

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"wsapi/app"
)

// Schemas of the built-in tools: what a call must carry, checked before it runs.
const (
	transferSchema = `{"type":"object","properties":{
		"reason":{"type":"string","minLength":1,"maxLength":500,"description":"why a human should take over"},
		"summary":{"type":"string","maxLength":2000,"description":"what the contact needs, for the member who takes over"}},
		"required":["reason"],"additionalProperties":false}`
	endSchema   = `{"type":"object","properties":{},"additionalProperties":false}`
	blockSchema = `{"type":"object","properties":{
		"reason":{"type":"string","minLength":1,"maxLength":500}},"required":["reason"],"additionalProperties":false}`
	memorySchema = `{"type":"object","properties":{
		"type":{"enum":["FACT","PREFERENCE","GOAL","EXPERIENCE"]},
		"content":{"type":"string","minLength":1,"maxLength":1000},
		"importance":{"type":"number","minimum":0,"maximum":1}},
		"required":["type","content","importance"],"additionalProperties":false}`
	searchSchema = `{"type":"object","properties":{
		"query":{"type":"string","minLength":1,"maxLength":500}},"required":["query"],"additionalProperties":false}`
)

// searchResults is how many chunks one search_knowledge call answers.
const searchResults = 5

// builtinTools are the built-in tools the assistant's configuration allows.
func builtinTools(cfg app.AssistantConfig) []tool {
	conv := cfg.Conversation
	var out []tool
	add := func(on bool, name, desc, schema string, call func(context.Context, *toolRun, map[string]any) (any, error)) {
		if !on {
			return
		}
		t, err := newTool(ToolSpec{Name: name, Description: desc, Parameters: json.RawMessage(schema)}, call)
		if err != nil {
			panic("assist: built-in tool " + name + ": " + err.Error()) // a bug in the schemas above
		}
		out = append(out, t)
	}
	add(conv.EnableTransferToHumanTool, app.ToolTransferToHuman, "Hand the conversation to a human member of the team "+
		"when you cannot help or the contact asks for a person. Then tell the contact, in your answer, that a person will reply.",
		transferSchema, effectTool(app.ToolTransferToHuman, "transferred: a member of the team will take over after your answer"))
	add(conv.EnableEndConversationTool, app.ToolEndConversation, "Close the conversation after your answer, "+
		"when the contact's request is fully resolved or they said goodbye.",
		endSchema, effectTool(app.ToolEndConversation, "the conversation will be closed after your answer"))
	add(conv.EnableBlockContactTool, app.ToolBlockContact, "Block the contact: only for abuse, spam or threats.",
		blockSchema, effectTool(app.ToolBlockContact, "the contact will be blocked"))
	add(conv.EnableMemories, app.ToolSaveMemory, "Remember something lasting about the contact for future conversations "+
		"(importance 0 to 1).", memorySchema, saveMemory)
	add(cfg.KnowledgeScope == "all", app.ToolSearchKnowledge, "Search the knowledge base. Answer from what it finds "+
		"and say which source you used.", searchSchema, searchKnowledge)
	return out
}

// effectTool is a built-in tool whose change waits for the run's commit.
func effectTool(name, result string) func(context.Context, *toolRun, map[string]any) (any, error) {
	return func(_ context.Context, tr *toolRun, args map[string]any) (any, error) {
		tr.effects = append(tr.effects, app.ToolEffect{Tool: name, Reason: str(args, "reason"), Summary: str(args, "summary")})
		return map[string]string{"status": result}, nil
	}
}

func saveMemory(_ context.Context, tr *toolRun, args map[string]any) (any, error) {
	imp, _ := args["importance"].(json.Number)
	f, err := imp.Float64()
	if err != nil {
		return nil, err
	}
	in := &app.MemoryInput{Type: str(args, "type"), Content: str(args, "content"), Importance: &f}
	tr.effects = append(tr.effects, app.ToolEffect{Tool: app.ToolSaveMemory, Memory: in})
	return map[string]string{"status": "remembered"}, nil
}

// searchKnowledge searches the assistant's processed knowledge (bm25); every chunk it
// answers becomes a citation of the message, so clients can show the sources.
func searchKnowledge(ctx context.Context, tr *toolRun, args map[string]any) (any, error) {
	chunks, err := tr.runner.Service.SearchKnowledge(ctx, tr.job.OrgID, tr.job.AssistantID, str(args, "query"), searchResults)
	if err != nil {
		return nil, err
	}
	type hit struct {
		ContentID string `json:"content_id"`
		Title     string `json:"title"`
		Chunk     string `json:"chunk"`
	}
	hits := []hit{}
	for _, c := range chunks {
		hits = append(hits, hit{ContentID: c.ContentID, Title: c.Title, Chunk: c.Text})
		tr.cite(app.Citation{ContentID: c.ContentID, Title: c.Title, Text: c.Text})
	}
	return map[string]any{"results": hits}, nil
}

// cite adds a citation once.
func (tr *toolRun) cite(c app.Citation) {
	if !slices.Contains(tr.cites, c) {
		tr.cites = append(tr.cites, c)
	}
}

// toolOrder is the tools' names in a stable order (the request is the same for the same
// chat, which keeps provider prompt caches warm).
func toolOrder(tools map[string]tool) []string {
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	slices.SortFunc(names, strings.Compare)
	return names
}
