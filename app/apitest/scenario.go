package apitest

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Scenario is one declarative API call of a table test (PocketBase's tests.ApiScenario): who
// calls what, and what must come back. Run it against a real server with Env.Run.
type Scenario struct {
	Name   string
	Method string
	URL    string
	Key    string // "" for no credential
	Body   any    // as for Env.Do: nil, a string or []byte sent as is, or a value sent as JSON
	// Header is added to the request (Idempotency-Key, If-None-Match, ...).
	Header map[string]string
	// Invalid says the request may break the OpenAPI document on purpose (see Invalid).
	Invalid bool

	Status int
	// Code and Fields are the error's code and the fields it must name (Status >= 400).
	Code   string
	Fields []string
	// JSON holds fragments the body must hold exactly: a path of keys and array indexes
	// joined by dots ("state.ai_enabled", "channels.0.type", "" for the whole body) and the
	// value there, compared as JSON (so 3 matches 3.0 and a map matches an object).
	JSON map[string]any
	// Events are the types of the stream events (every webhook event is one too) the call
	// wrote, in any order and counted; nil does not check, an empty list means none.
	Events []string
	// Check runs last for what the fields above cannot say.
	Check func(t testing.TB, r *Response)
}

// For is a copy of e that reports failures to t, so a subtest fails itself (the document's
// findings too).
func (e *Env) For(t testing.TB) *Env {
	e.checkEverything()
	c := *e
	c.T = t
	c.checked = &OpenAPI{t: t, inner: e.transport, seen: map[string]int{}}
	c.client = c.checked.Client()
	return &c
}

// Run runs each scenario as a subtest, in order, on one server (a scenario may depend on
// the effects of the ones before it only when written so).
func (e *Env) Run(t *testing.T, scenarios []Scenario) {
	t.Helper()
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) { e.For(t).Scenario(s) })
	}
}

// Scenario sends one scenario's request and checks everything it expects.
func (e *Env) Scenario(s Scenario) *Response {
	e.T.Helper()
	var before int64
	if s.Events != nil {
		before = e.lastStreamSeq()
	}
	req := e.Request(s.Method, s.URL, s.Key, s.Body)
	for k, v := range s.Header {
		req.Header.Set(k, v)
	}
	if s.Invalid {
		req = Invalid(req)
	}
	r := e.Send(req)
	if s.Status >= 400 {
		r.ExpectError(s.Status, s.Code, s.Fields...)
	} else {
		r.Expect(s.Status)
	}
	if len(s.JSON) > 0 {
		r.ExpectJSON(s.JSON)
	}
	if s.Events != nil {
		e.expectEvents(before, s.Events)
	}
	if s.Check != nil {
		s.Check(e.T, r)
	}
	return r
}

// ExpectJSON fails unless the body holds every fragment (see Scenario.JSON).
func (r *Response) ExpectJSON(fragments map[string]any) *Response {
	r.T.Helper()
	var body any
	r.JSON(&body)
	for path, want := range fragments {
		got, ok := jsonAt(body, path)
		if !ok {
			r.T.Errorf("%s: missing; body: %s", path, r.Body)
			continue
		}
		if w := normalJSON(r.T, want); !reflect.DeepEqual(got, w) {
			r.T.Errorf("%s = %v, want %v", path, got, w)
		}
	}
	return r
}

// jsonAt walks a decoded JSON value along a dotted path of keys and indexes.
func jsonAt(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for step := range strings.SplitSeq(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[step]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// normalJSON is v as it reads back from JSON.
func normalJSON(t testing.TB, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("apitest: marshal %v: %v", v, err)
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// streamEventsAfter reads every stored stream event after seq, of every organization.
func (e *Env) streamEventsAfter(seq int64) []string {
	e.T.Helper()
	var types []string
	for {
		es, err := e.Runtime.Service.StreamEventsAfter(context.Background(), "", "", seq, 500)
		if err != nil {
			e.T.Fatalf("apitest: stream events: %v", err)
		}
		for _, ev := range es {
			types, seq = append(types, ev.Type), ev.Seq
		}
		if len(es) < 500 {
			return types
		}
	}
}

// lastStreamSeq is the seq of the newest stored stream event.
func (e *Env) lastStreamSeq() int64 {
	e.T.Helper()
	var seq int64
	for {
		es, err := e.Runtime.Service.StreamEventsAfter(context.Background(), "", "", seq, 500)
		if err != nil {
			e.T.Fatalf("apitest: stream events: %v", err)
		}
		if len(es) == 0 {
			return seq
		}
		seq = es[len(es)-1].Seq
	}
}

// expectEvents fails unless the events stored after seq are of the types want, in any order.
func (e *Env) expectEvents(seq int64, want []string) {
	e.T.Helper()
	got := e.streamEventsAfter(seq)
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		e.T.Errorf("events %v, want %v", got, want)
	}
}
