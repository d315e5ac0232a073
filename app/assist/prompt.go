package assist

import (
	"fmt"
	"strings"
	"time"

	"wsapi/app"
)

// BuildRequest turns what a run reads into the model request: the system prompt (the
// assistant's instructions, language, the current time in its timezone, who it talks with)
// and the chat's history as alternating user and assistant messages.
func BuildRequest(in app.RunInput) Request {
	cfg := in.Assistant.Config
	req := Request{
		System:      systemPrompt(in) + memoryPrompt(in.Memories),
		Messages:    history(in),
		OrgID:       in.Chat.OrgID,
		AssistantID: in.Assistant.ID,
		Language:    language(in),
	}
	if in.Chat.Features.Reasoning != nil {
		req.ReasoningEffort = in.Chat.Features.Reasoning.Effort
	}
	addFollowUp(&req, in)
	if cfg.KnowledgeScope != "all" {
		// "none", and "selected" while nothing selects contents: no knowledge at all.
		req.KnowledgeScope = []string{}
	}
	return req
}

// language is the assistant's language, or with "auto" the contact channel's ("" unknown).
func language(in app.RunInput) string {
	if l := in.Assistant.Config.Language; l != "" && l != "auto" {
		return l
	}
	return in.Channel.Language
}

func systemPrompt(in app.RunInput) string {
	var b strings.Builder
	a := in.Assistant
	fmt.Fprintf(&b, "You are %s, an AI assistant answering in a chat.\n", a.Name)
	if instr := strings.TrimSpace(a.Config.Instructions); instr != "" {
		b.WriteString("\n" + instr + "\n\n")
	}
	if l := language(in); l != "" {
		fmt.Fprintf(&b, "Answer in the language with code %q.\n", l)
	} else {
		b.WriteString("Answer in the language the person writes in.\n")
	}
	loc, err := time.LoadLocation(a.Config.Timezone)
	if err != nil || a.Config.Timezone == "" {
		loc = time.UTC
	}
	fmt.Fprintf(&b, "The current time is %s (%s).\n", in.Now.In(loc).Format("Monday, 2 January 2006 15:04"), loc)
	if in.Chat.ContactID == "" {
		b.WriteString("You are talking with a member of the team who is trying you out (the playground).\n")
		return b.String()
	}
	name := in.Contact.Name
	if name == "" {
		name = "an unnamed contact"
	}
	channel := in.Channel.Type
	if channel == "" && in.Chat.State != nil {
		channel = in.Chat.State.IntegrationID
	}
	fmt.Fprintf(&b, "You are talking with %s through the %s channel.\n", name, channel)
	return b.String()
}

// history maps the chat's messages to the model's roles and merges neighbours of one role
// (some providers require turns to alternate). A member's message is the business speaking
// in a conversation, but the user speaking in the playground.
func history(in app.RunInput) []Message {
	var out []Message
	for _, m := range in.History {
		text := strings.TrimSpace(messageText(m))
		if text == "" {
			continue
		}
		role := RoleAssistant
		if m.Role == "user" || (m.Role == "admin" && in.Chat.ContactID == "") {
			role = RoleUser
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Text += "\n\n" + text
			continue
		}
		out = append(out, Message{Role: role, Text: text})
	}
	return out
}

func messageText(m app.Message) string {
	var parts []string
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Text != "" {
				parts = append(parts, p.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// promptTokens estimates a request's input tokens when the provider reports none.
func promptTokens(req Request) float64 {
	t := app.EstimateTokens(req.System)
	for _, m := range req.Messages {
		t += app.EstimateTokens(m.Text)
	}
	return t
}
