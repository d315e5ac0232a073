package cli_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"wsapi/cli"
)

// Email without an https public URL sends no one-click unsubscribe (RFC 8058 allows it only
// over https): the operator is told at start.
func TestEmailWithoutHTTPSPublicURLWarnsAtStart(t *testing.T) {
	for _, tc := range []struct {
		publicURL string
		warn      bool
	}{{"http://127.0.0.1:8080", true}, {"https://api.example.com", false}} {
		cfg := configFor(filepath.Join(t.TempDir(), "t.db"))
		cfg.Email.SMTPURL = "smtp://127.0.0.1:2525"
		cfg.HTTP.PublicURL = tc.publicURL
		var logs bytes.Buffer
		rt, err := cli.Build(context.Background(), cfg, cli.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rt.Close()
		if got := strings.Contains(logs.String(), "http.public_url is not https"); got != tc.warn {
			t.Errorf("public_url %s: warned %v, want %v\n%s", tc.publicURL, got, tc.warn, logs.String())
		}
	}
}
