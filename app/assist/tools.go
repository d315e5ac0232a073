package assist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"wsapi/app"
)

// tool is a tool a run offers: what the model sees, the compiled schema its arguments must
// meet, and what a call does.
type tool struct {
	spec   ToolSpec
	schema *jsonschema.Schema
	call   func(ctx context.Context, tr *toolRun, args map[string]any) (any, error)
}

// toolRun is one run's tool state: what the calls found and what they will change.
type toolRun struct {
	runner  *Runner
	job     app.RunJob
	in      app.RunInput
	tools   map[string]tool
	calls   []app.ToolCallPart
	cites   []app.Citation
	effects []app.ToolEffect
}

// newTool compiles a tool's schema; a schema that does not compile leaves the tool out
// (a chat tool with a broken schema must not fail the run).
func newTool(spec ToolSpec, call func(context.Context, *toolRun, map[string]any) (any, error)) (tool, error) {
	if len(spec.Parameters) == 0 {
		spec.Parameters = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.Parameters))
	if err != nil {
		return tool{}, err
	}
	c := jsonschema.NewCompiler()
	loc := "tool://" + spec.Name + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return tool{}, err
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return tool{}, err
	}
	return tool{spec: spec, schema: sch, call: call}, nil
}

// specs are the tools as the model request lists them.
func (tr *toolRun) specs() []ToolSpec {
	var out []ToolSpec
	for _, name := range toolOrder(tr.tools) {
		out = append(out, tr.tools[name].spec)
	}
	return out
}

// execute runs one call the model asked for and answers the tool message for the model.
// An unknown tool, arguments that break the schema or a failing tool are answered as an
// error: the model reads it and may try again; the run goes on.
func (tr *toolRun) execute(ctx context.Context, tc ToolCall) Message {
	start := time.Now()
	rec := app.ToolCallPart{ID: tc.ID, Name: tc.Name, Arguments: argsJSON(tc.Arguments)}
	result, err := tr.dispatch(ctx, tc)
	rec.DurationMS = time.Since(start).Milliseconds()
	msg := Message{Role: RoleTool, ToolCallID: tc.ID}
	if err != nil {
		rec.Error = err.Error()
		msg.Text, msg.IsError = "error: "+rec.Error, true
	} else {
		raw, _ := json.Marshal(result)
		rec.Result, msg.Text = raw, string(raw)
	}
	tr.calls = append(tr.calls, rec)
	if err := tr.runner.Service.RecordToolCall(ctx, tr.job, rec); err != nil && ctx.Err() == nil {
		tr.runner.Log.Error("assistants: record tool call", "message", tr.job.MessageID, "err", err)
	}
	return msg
}

func (tr *toolRun) dispatch(ctx context.Context, tc ToolCall) (any, error) {
	t, ok := tr.tools[tc.Name]
	if !ok {
		return nil, fmt.Errorf("no tool named %q is offered", tc.Name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(argsJSON(tc.Arguments)))
	if err != nil {
		return nil, fmt.Errorf("invalid arguments: not JSON: %v", err)
	}
	if err := t.schema.Validate(inst); err != nil {
		return nil, fmt.Errorf("invalid arguments: %s", schemaError(err))
	}
	args, _ := inst.(map[string]any)
	return t.call(ctx, tr, args)
}

// schemaError is the validation error in one line, naming where the arguments break the
// schema, as the model needs it to correct the call.
func schemaError(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "- "))
	}
	if len(lines) > 1 { // the first line names the schema's address, of no use to the model
		lines = lines[1:]
	}
	return strings.Join(lines, "; ")
}

// argsJSON is the call's arguments, an empty object when the model sent none.
func argsJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}

func str(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}
