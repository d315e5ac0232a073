package connection

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"wsapi/app"
)

// FieldDefinition is a field schema of an action (the spec's Field type values).
type FieldDefinition map[string]any

// ActionField is one field of an action at its path.
type ActionField struct {
	Path       string          `json:"path"`
	Definition FieldDefinition `json:"definition"`
}

// FieldsInput is the spec's Resolve connection action fields.
type FieldsInput struct {
	ActionID     string         `json:"action_id"`
	ConnectionID string         `json:"connection_id"`
	Input        map[string]any `json:"input"`
	ResourceID   string         `json:"resource_id"`
	Definitions  []ActionField  `json:"definitions"`
}

// FieldsResult is the resolved field list of an action.
type FieldsResult struct {
	ActionID string        `json:"action_id"`
	Fields   []ActionField `json:"fields"`
}

// Actions is the built-in action catalogue: each action's fields.
var Actions = map[string][]ActionField{
	"tools:http_request": {
		{"connection", FieldDefinition{"type": "connection", "label": "Credentials", "required": false, "connection_types": []string{"HTTP_CREDENTIALS"}}},
		{"method", FieldDefinition{"type": "enum", "label": "Method", "required": true, "values": []string{"GET", "POST", "PUT", "PATCH", "DELETE"}}},
		{"url", FieldDefinition{"type": "string", "label": "URL", "required": true}},
		{"headers", FieldDefinition{"type": "object", "label": "Headers", "required": false}},
		{"body", FieldDefinition{"type": "content", "label": "Body", "required": false}},
	},
	"emails:send": {
		{"connection", FieldDefinition{"type": "connection", "label": "Email account", "required": false, "connection_types": []string{"EMAILS"}}},
		{"to", FieldDefinition{"type": "contact", "label": "To", "required": true}},
		{"subject", FieldDefinition{"type": "string", "label": "Subject", "required": true}},
		{"body", FieldDefinition{"type": "content", "label": "Body", "required": true}},
		{"attachments", FieldDefinition{"type": "file", "label": "Attachments", "required": false}},
	},
	"workflows:call_workflow": {
		{"connection", FieldDefinition{"type": "connection", "label": "Workflows", "required": false, "connection_types": []string{"WORKFLOWS"}}},
		{"workflow_id", FieldDefinition{"type": "string", "label": "Workflow", "required": true}},
		{"assistant", FieldDefinition{"type": "assistant", "label": "Assistant", "required": false}},
		{"input", FieldDefinition{"type": "object", "label": "Input", "required": false}},
	},
}

// referenceTypes get options from the organization's data.
var referenceTypes = map[string]bool{"connection": true, "segment": true, "assistant": true, "contact": true, "user": true, "chat": true}

// ResolveActionFields answers an action's fields, with the caller's extra definitions, and
// options for every reference field from the organization's data (at most 100 each).
func (s *Service) ResolveActionFields(ctx context.Context, c app.Caller, in FieldsInput) (FieldsResult, error) {
	base, ok := Actions[in.ActionID]
	p := app.Problems{}
	if !ok {
		names := make([]string, 0, len(Actions))
		for k := range Actions {
			names = append(names, k)
		}
		sort.Strings(names)
		p.Add("action_id", "must be one of "+strings.Join(names, ", "))
	}
	for i, d := range in.Definitions {
		t, _ := d.Definition["type"].(string)
		if d.Path == "" || !slices.Contains(app.FieldTypes, t) {
			p.Add("definitions["+strconv.Itoa(i)+"]", "needs a path and a definition whose type is a Field type")
		}
	}
	if err := p.Err(); err != nil {
		return FieldsResult{}, err
	}
	fields := mergeFields(base, in.Definitions)
	err := s.svc.Store().Read(ctx, func(tx app.Tx) error {
		if in.ConnectionID != "" {
			if _, err := tx.GetConnection(c.OrgID, in.ConnectionID); err != nil {
				return err
			}
		}
		for i, f := range fields {
			t, _ := f.Definition["type"].(string)
			if !referenceTypes[t] {
				continue
			}
			opts, err := referenceOptions(tx, c, t, f.Definition)
			if err != nil {
				return err
			}
			fields[i].Definition["options"] = opts
		}
		return nil
	})
	return FieldsResult{ActionID: in.ActionID, Fields: fields}, err
}

// mergeFields copies the catalogue's fields and lays the caller's definitions over them.
func mergeFields(base, extra []ActionField) []ActionField {
	out := make([]ActionField, 0, len(base)+len(extra))
	index := map[string]int{}
	for _, f := range base {
		def := FieldDefinition{}
		for k, v := range f.Definition {
			def[k] = v
		}
		index[f.Path] = len(out)
		out = append(out, ActionField{Path: f.Path, Definition: def})
	}
	for _, f := range extra {
		if i, ok := index[f.Path]; ok {
			out[i] = f
			continue
		}
		index[f.Path] = len(out)
		out = append(out, f)
	}
	return out
}

func referenceOptions(tx app.Tx, c app.Caller, typ string, def FieldDefinition) ([]app.Option, error) {
	pg := app.Page{Page: 1, Take: app.MaxTake}
	opts := []app.Option{}
	switch typ {
	case "connection":
		// One query per allowed type, so connections of other types cannot crowd them out.
		types := connectionTypes(def)
		if len(types) == 0 {
			types = []string{""}
		}
		var conns []app.Connection
		for _, ct := range types {
			some, _, err := tx.ListConnections(c.OrgID, ct, pg)
			if err != nil {
				return nil, err
			}
			conns = append(conns, some...)
		}
		sort.SliceStable(conns, func(i, j int) bool { return conns[i].Name < conns[j].Name })
		for _, x := range conns[:min(len(conns), app.MaxTake)] {
			opts = append(opts, app.Option{Value: x.ID, Label: x.Name})
		}
		return opts, nil
	case "segment":
		segs, _, err := tx.ListSegments(c.OrgID, pg)
		for _, x := range segs {
			opts = append(opts, app.Option{Value: x.ID, Label: x.Name})
		}
		return opts, err
	case "assistant":
		as, _, err := tx.ListAssistants(c.OrgID, "", pg)
		for _, x := range as {
			opts = append(opts, app.Option{Value: x.ID, Label: x.Name})
		}
		return opts, err
	case "contact":
		cs, _, err := tx.ListContacts(c.OrgID, app.ContactFilter{}, pg)
		for _, x := range cs {
			opts = append(opts, app.Option{Value: x.ID, Label: x.Name})
		}
		return opts, err
	case "user":
		ms, _, err := tx.ListMembers(c.OrgID, pg)
		for _, x := range ms {
			opts = append(opts, app.Option{Value: x.ID, Label: x.Name})
		}
		return opts, err
	}
	chats, _, err := tx.ListInbox(c.OrgID, app.InboxFilter{}, nil, 0, app.MaxTake, 0) // options need no count
	for _, x := range chats {
		label := x.ID
		if x.Title != nil {
			label = *x.Title
		}
		opts = append(opts, app.Option{Value: x.ID, Label: label})
	}
	return opts, err
}

// connectionTypes answers the types a connection field allows (none: any).
func connectionTypes(def FieldDefinition) (types []string) {
	switch v := def["connection_types"].(type) {
	case []string: // the catalogue's
		types = v
	case []any: // a client's definition, decoded from JSON
		for _, x := range v {
			if s, ok := x.(string); ok && !slices.Contains(types, s) {
				types = append(types, s)
			}
		}
	}
	return types
}
