package app

import (
	"math"

	"wsapi/app/msgtemplate"
)

// maxTokens bounds every usage counter: far above any real count, far below the floats
// (1e308) that would overflow sums and costs.
const maxTokens = 1e12

// validateTurns checks the turns of a message as POST and PATCH give them: at least one,
// each (null included, which decodes as an empty turn) with a role and parts with a type;
// an audio part carries the audio object of a file (checkMessageRefs finds it).
func validateTurns(p Problems, turns []Turn) {
	if len(turns) == 0 {
		p.Add("messages", "must hold at least one {role, parts}")
	}
	for i, t := range turns {
		at := "messages[" + itoa(i) + "]"
		if t.Role == "" {
			p.Add(at+".role", "is required")
		} else if CharCount(t.Role) > 64 {
			p.Add(at+".role", "must be at most 64 characters")
		}
		for j, part := range t.Parts {
			pt := at + ".parts[" + itoa(j) + "]"
			if part.Type == "" {
				p.Add(pt+".type", "is required")
			}
			if part.Type == "audio" && (part.Audio == nil || part.Audio.ID == "") {
				p.Add(pt+".audio", "an audio part names its file: {id} of a file of this chat")
			}
			validateTemplatePart(p, pt, part)
			if part.File != nil {
				p.Add(pt+".file", "is set by the server only, on the files a contact sends through the widget")
			}
		}
	}
}

// validateUsage checks the six counters of a usage and of each of its turns.
func validateUsage(p Problems, field string, u *Usage) {
	if u == nil {
		return
	}
	validateCounters(p, field, u.UsageCounter)
	for i, t := range u.Turns {
		validateCounters(p, field+".turns["+itoa(i)+"]", t)
	}
}

func validateCounters(p Problems, field string, c UsageCounter) {
	for name, v := range map[string]float64{"input_tokens": c.InputTokens, "output_tokens": c.OutputTokens,
		"total_tokens": c.TotalTokens, "reasoning_tokens": c.ReasoningTokens,
		"input_tokens_cache_read": c.InputTokensCacheRead, "input_tokens_cache_write": c.InputTokensCacheWrite} {
		if v < 0 || v > maxTokens || math.IsNaN(v) {
			p.Add(field+"."+name, "must be a number from 0 to 1e12")
		}
	}
}

// checkMessageRefs resolves what a message refers to inside the organization: its broadcast,
// and the file of each audio part (of this chat), whose stored description replaces the one
// given, so a part cannot point at another file or URL. Another organization's broadcast or
// file is not found (404), like any of its objects.
func checkMessageRefs(tx Tx, orgID, chatID, role string, broadcastID *string, turns []Turn) error {
	if err := checkTemplates(tx, orgID, chatID, role, turns); err != nil {
		return err
	}
	if broadcastID != nil {
		if _, err := tx.GetBroadcastContent(orgID, *broadcastID); err != nil {
			return err
		}
	}
	for i := range turns {
		for j := range turns[i].Parts {
			part := &turns[i].Parts[j]
			if part.Type != "audio" || part.Audio == nil {
				continue
			}
			f, err := tx.GetFile(orgID, chatID, part.Audio.ID)
			if err != nil {
				return err
			}
			a := f.Audio
			part.Audio = &a
		}
	}
	return nil
}

// TemplatePart is an approved WhatsApp template on a message part or a broadcast.
type TemplatePart = msgtemplate.Template

// validateTemplatePart checks a template part's shape; where it may be sent is checkTemplates'.
func validateTemplatePart(p Problems, at string, part Part) {
	switch {
	case part.Type != "template" && part.Template != nil:
		p.Add(at+".template", "is only for parts of type template")
	case part.Type == "template":
		validateTemplate(p, at+".template", part.Template)
	}
}

// validateTemplate checks a template: {name, language, components}.
func validateTemplate(p Problems, field string, t *TemplatePart) { msgtemplate.Check(field, t, p.Add) }

// checkTemplates allows template parts only on a member's message (role admin) in a WhatsApp
// chat: nothing else can send one.
func checkTemplates(tx Tx, orgID, chatID, role string, turns []Turn) error {
	for i, t := range turns {
		for j, part := range t.Parts {
			if part.Type != "template" {
				continue
			}
			at := "messages[" + itoa(i) + "].parts[" + itoa(j) + "]"
			if role != "admin" {
				return Invalid(at, "a template is sent only by a member (role admin)")
			}
			c, err := tx.GetChatRow(orgID, chatID)
			if err != nil {
				return err
			}
			if c.State == nil || c.State.IntegrationID != "whatsapp" {
				return Invalid(at, "a template is sent only in a WhatsApp chat")
			}
		}
	}
	return nil
}
