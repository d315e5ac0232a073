package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"wsapi/app/assist"
)

// params builds the request body: the system prompt apart (the protocol has no system
// message), the conversation, the tools and max_tokens, which the protocol requires.
// ReasoningEffort is not sent: Anthropic's output_config.effort exists only on some models and
// the others refuse the request.
func params(req assist.Request) sdk.MessageNewParams {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: DefaultMaxTokens,
		Messages:  messages(req.Messages),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		tool := sdk.ToolParam{Name: t.Name, InputSchema: inputSchema(t.Parameters)}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return p
}

// inputSchema splits a JSON schema into the SDK's fields; what it has no field for (such as
// additionalProperties) travels as an extra field. "type" is always object.
func inputSchema(raw json.RawMessage) sdk.ToolInputSchemaParam {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	s := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	for k, v := range m {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			if list, ok := v.([]any); ok {
				for _, name := range list {
					if n, ok := name.(string); ok {
						s.Required = append(s.Required, n)
					}
				}
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s
}

// messages turns the conversation into the protocol's turns. Tool results are user content
// blocks (tool_result, with is_error), and the results of one assistant turn must all be in
// the next user turn, so consecutive messages of one role are merged into one turn. Empty
// text blocks are left out: the protocol refuses them.
func messages(in []assist.Message) []sdk.MessageParam {
	type merged struct {
		role   string
		blocks []sdk.ContentBlockParamUnion
	}
	var turns []merged
	for _, m := range in {
		role, blocks := turn(m)
		if len(blocks) == 0 {
			continue
		}
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			continue
		}
		turns = append(turns, merged{role, blocks})
	}
	out := make([]sdk.MessageParam, 0, len(turns))
	for _, t := range turns {
		if t.role == "assistant" {
			out = append(out, sdk.NewAssistantMessage(t.blocks...))
		} else {
			out = append(out, sdk.NewUserMessage(t.blocks...))
		}
	}
	return out
}

// turn is one message's role in the protocol and its content blocks.
func turn(m assist.Message) (string, []sdk.ContentBlockParamUnion) {
	switch m.Role {
	case assist.RoleTool:
		return "user", []sdk.ContentBlockParamUnion{sdk.NewToolResultBlock(m.ToolCallID, m.Text, m.IsError)}
	case assist.RoleAssistant:
		var blocks []sdk.ContentBlockParamUnion
		if m.Text != "" {
			blocks = append(blocks, sdk.NewTextBlock(m.Text))
		}
		for _, tc := range m.ToolCalls {
			blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, arguments(tc.Arguments), tc.Name))
		}
		return "assistant", blocks
	}
	if m.Text == "" {
		return "user", nil
	}
	return "user", []sdk.ContentBlockParamUnion{sdk.NewTextBlock(m.Text)}
}
