package sqlite_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/secret"
)

func box(t *testing.T, b byte) *secret.Box {
	t.Helper()
	s, err := secret.New(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCheckSealer: an empty database passes with any key; once a secret is stored, the key
// that sealed it passes and another key fails naming the object it could not open.
func TestCheckSealer(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	db.SetSealer(box(t, 1))
	if err := db.CheckSealer(bg); err != nil {
		t.Fatalf("empty database: %v", err)
	}
	org, _, _ := seedOrg(t, db, "sealer@example.com")
	now := app.At(time.Now())
	w := app.Webhook{ID: app.NewID("wh"), OrgID: org.ID, Name: "h", URL: "https://example.com/h",
		Events: []string{"contact.blocked"}, Enabled: true, Secret: "whsec_x", CreatedAt: now, UpdatedAt: now}
	if err := db.Write(bg, func(tx app.Tx) error { return tx.CreateWebhook(w) }); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckSealer(bg); err != nil {
		t.Fatalf("the sealing key: %v", err)
	}
	db.SetSealer(box(t, 2))
	err := db.CheckSealer(bg)
	if err == nil || !strings.Contains(err.Error(), w.ID) || !strings.Contains(err.Error(), "wrong secrets key") {
		t.Fatalf("another key: %v", err)
	}
}

// TestSecretsNeedASealer: without a secrets key the store refuses to write a secret (rather
// than store it in the clear) and refuses to read one, and the failed write leaves nothing.
func TestSecretsNeedASealer(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_s", "", 0).ID
	err := db.Write(bg, func(tx app.Tx) error { return tx.CreateWebhook(webhook(org, "wh_1", true, "x")) })
	if err == nil || !strings.Contains(err.Error(), "no sealer") {
		t.Fatalf("a secret written without a sealer: %v", err)
	}
	read(t, db, func(tx app.Tx) error {
		if _, total, err := tx.ListWebhooks(org, app.Page{Page: 1, Take: 10}); err != nil || total != 0 {
			t.Errorf("%d webhooks after the refused write (%v)", total, err)
		}
		return nil
	})
	db.SetSealer(box(t, 1))
	write(t, db, func(tx app.Tx) error { return tx.CreateWebhook(webhook(org, "wh_1", true, "x")) })
	db.SetSealer(nil)
	if err := db.Read(bg, func(tx app.Tx) error { _, err := tx.GetWebhook(org, "wh_1"); return err }); err == nil || !strings.Contains(err.Error(), "no sealer") {
		t.Errorf("a secret read without a sealer: %v", err)
	}
}
