package app_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"wsapi/app"
)

func panicsDeepInside() error {
	var xs []int
	i := len(xs)
	_ = xs[i] // an index out of range: a runtime panic, as a parser bug would raise
	return nil
}

func TestSafelyTurnsAPanicIntoAnError(t *testing.T) {
	err := app.Safely(panicsDeepInside)
	pe, ok := app.IsPanic(err)
	if !ok || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("error %v", err)
	}
	if !bytes.Contains(pe.Stack, []byte("panicsDeepInside")) {
		t.Fatalf("the stack does not show where it panicked:\n%s", pe.Stack)
	}
	// Wrapped, it is still found.
	if _, ok := app.IsPanic(fmt.Errorf("content kc_1: %w", err)); !ok {
		t.Fatal("a wrapped panic is not recognised")
	}
	// Errors and success pass through unchanged.
	plain := errors.New("plain")
	if err := app.Safely(func() error { return plain }); err != plain {
		t.Fatalf("error %v", err)
	}
	if _, ok := app.IsPanic(plain); ok {
		t.Fatal("a plain error is taken for a panic")
	}
	if err := app.Safely(func() error { return nil }); err != nil {
		t.Fatalf("error %v", err)
	}
	// panic(nil) is a panic too (Go 1.21+ raises *runtime.PanicNilError).
	if _, ok := app.IsPanic(app.Safely(func() error { panic(nil) })); !ok {
		t.Fatal("panic(nil) passed unnoticed")
	}
}

func TestLogFailureLogsThePanicStack(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	app.LogFailure(log, "worker: item", app.Safely(panicsDeepInside), "item", "dlv_1")
	out := buf.String()
	for _, want := range []string{"level=ERROR", `msg="worker: item"`, "item=dlv_1", "panic=", "stack=", "panicsDeepInside"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	app.LogFailure(log, "worker: item", errors.New("refused"), "item", "dlv_2")
	if out := buf.String(); !strings.Contains(out, "err=refused") || strings.Contains(out, "stack=") {
		t.Errorf("plain error logged as %s", out)
	}
}
