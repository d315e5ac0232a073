package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"wsapi/app"
	"wsapi/app/webhook"
)

// verifyWebhook is the receiver's check that docs/clients.md ("Verifying webhooks") shows,
// kept here word for word so the documented code is tested against real deliveries.
func verifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	var ts, sig string
	for _, part := range strings.Split(h.Get("x-webhook-signature"), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return errors.New("webhook: malformed signature header")
	}
	if d := now.Sub(time.Unix(t, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("webhook: timestamp too far from now (replayed?)")
	}
	mac := hmac.New(sha256.New, []byte(secret)) // the whole secret, whsec_ included
	mac.Write([]byte(h.Get("x-webhook-id") + "." + ts + "."))
	mac.Write(body)
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(sig)) {
		return errors.New("webhook: bad signature")
	}
	return nil
}

// Example_verifyWebhook checks a delivery built as the dispatcher (and `app listen`) builds
// it, then the same delivery with a changed body, and one replayed an hour later.
func Example_verifyWebhook() {
	secret := "whsec_" + app.RandomBase62(43)
	e, body, _ := app.NewEvent("org_1", app.EventContactBlocked, map[string]any{"id": "ct_1"}, app.At(time.Now()))
	job := app.Job{URL: "http://localhost:3000/hooks", Secret: secret, EventID: e.ID, EventType: e.Type, Body: body, Attempt: 1}
	req, _ := webhook.NewRequest(context.Background(), job, time.Now().Unix())
	got, _ := io.ReadAll(req.Body)

	fmt.Println(verifyWebhook(secret, req.Header, got, time.Now()))
	fmt.Println(verifyWebhook(secret, req.Header, append(got, ' '), time.Now()))
	fmt.Println(verifyWebhook(secret, req.Header, got, time.Now().Add(time.Hour)))
	// Output:
	// <nil>
	// webhook: bad signature
	// webhook: timestamp too far from now (replayed?)
}
