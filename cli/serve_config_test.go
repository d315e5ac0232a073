package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestServeSaysWhatItRunsOn: serve's log names the configuration file it read and the model
// that answers by default.
func TestServeSaysWhatItRunsOn(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	stderr, err := serveWithConfig(ctx, t, "log:\n  level: info\n")
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	var line string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "msg=configuration") {
			line = l
		}
	}
	if !strings.Contains(line, "config.yaml") || !strings.Contains(line, "default_model=builtin:retrieval") {
		t.Fatalf("no configuration line naming the file and the default model:\n%s", stderr)
	}
}

// TestServeRefusesAnUnconfiguredDefaultModel: models.default (or models.fallback) naming a
// provider that models.providers lacks stops serve before it opens anything, naming the
// key, the provider and the ones there are.
func TestServeRefusesAnUnconfiguredDefaultModel(t *testing.T) {
	t.Parallel()
	for yaml, want := range map[string]string{
		"models:\n  default: openai:gpt-4o\n": `models.default "openai:gpt-4o" names the provider "openai", which is not configured`,
		"models:\n  fallback: oa:m\n  providers:\n    local: {type: openai, base_url: \"http://127.0.0.1:1\"}\n": `models.fallback "oa:m" names the provider "oa", which is not configured: add models.providers.oa`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		stderr, err := serveWithConfig(ctx, t, yaml)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(stderr, "msg=serving") {
			t.Errorf("%s: err %v\n%s", yaml, err, stderr)
		}
	}
}
