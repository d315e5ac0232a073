package janitor_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"wsapi/app/janitor"
)

// TestPanickingTaskFailsOnlyItself: a task that panics is logged with its stack as failed,
// and the tasks after it still run.
func TestPanickingTaskFailsOnlyItself(t *testing.T) {
	var buf bytes.Buffer
	ran := false
	j := &janitor.Janitor{Log: slog.New(slog.NewTextHandler(&buf, nil)), Tasks: []janitor.Task{
		{Name: "broken", Run: func(context.Context) (int, error) {
			var rows []int
			return rows[3], nil // index out of range
		}},
		{Name: "after", Run: func(context.Context) (int, error) { ran = true; return 2, nil }},
	}}
	j.RunOnce(context.Background())
	if !ran {
		t.Fatal("the task after the panicking one did not run")
	}
	out := buf.String()
	for _, want := range []string{`msg="janitor: task failed"`, "task=broken", "index out of range", "stack=", "task=after removed=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
