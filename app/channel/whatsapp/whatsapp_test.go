package whatsapp_test

import (
	"context"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
	"wsapi/app/channel/whatsapp"
	"wsapi/app/channel/whatsapp/whatsapptest"
)

func deployment(token string) app.Deployment {
	return app.Deployment{IntegrationID: "whatsapp",
		Config:  map[string]any{"phone_number_id": "1055", "waba_id": "2077", "verify_token": "vtok"},
		Secrets: map[string]string{"access_token": token, "app_secret": "shh"}}
}

func TestVerifyReadsThePhoneNumberWithTheToken(t *testing.T) {
	t.Parallel()
	srv := whatsapptest.New(t, "1055", "EAAG-good")
	c := whatsapp.Connector{Client: whatsapp.NewClient(srv.URL)}
	if err := c.Verify(context.Background(), deployment("EAAG-good")); err != nil {
		t.Fatalf("good token: %v", err)
	}
	err := c.Verify(context.Background(), deployment("EAAG-bad"))
	var e *whatsapp.APIError
	if !errors.As(err, &e) || e.Code != 190 || !strings.Contains(err.Error(), "Error validating access token") {
		t.Fatalf("bad token: %v, want Meta's code 190 message", err)
	}
	bad := deployment("EAAG-good")
	bad.Config["phone_number_id"] = "999"
	if err := c.Verify(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("unknown number: %v", err)
	}
}

func TestChallengeNeedsSubscribeAndTheToken(t *testing.T) {
	t.Parallel()
	d := deployment("x")
	for _, c := range []struct {
		q  url.Values
		ok bool
	}{
		{url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"vtok"}, "hub.challenge": {"1158201444"}}, true},
		{url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"vto"}, "hub.challenge": {"1"}}, false},
		{url.Values{"hub.mode": {"unsubscribe"}, "hub.verify_token": {"vtok"}, "hub.challenge": {"1"}}, false},
		{url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"vtok"}}, false},
		{url.Values{}, false},
	} {
		got, ok := whatsapp.Challenge(d, c.q)
		if ok != c.ok || (ok && got != c.q.Get("hub.challenge")) {
			t.Errorf("%v: %q %v", c.q, got, ok)
		}
	}
}

func TestSignedChecksTheRawBody(t *testing.T) {
	t.Parallel()
	d := deployment("x")
	body := []byte(`{"object":"whatsapp_business_account"}`)
	good := "sha256=" + hex.EncodeToString(whatsapp.Sign("shh", body))
	if !whatsapp.Signed(d, good, body) {
		t.Fatal("a good signature is refused")
	}
	for _, h := range []string{"", "sha256=", good[:len(good)-1] + "0", strings.TrimPrefix(good, "sha256="), "sha1=" + good[7:],
		"sha256=" + hex.EncodeToString(whatsapp.Sign("other", body))} {
		if whatsapp.Signed(d, h, body) {
			t.Errorf("%q accepted", h)
		}
	}
	if whatsapp.Signed(d, good, append(body, ' ')) {
		t.Error("a signature of another body accepted")
	}
}

func TestParseMessagesAndStatuses(t *testing.T) {
	t.Parallel()
	srv := whatsapptest.New(t, "1055", "tok")
	ada := whatsapptest.Contact{WaID: "4915112345678", Name: "Ada"}
	at := time.Unix(1_700_000_000, 0).UTC()
	body := srv.Payload(&ada, []map[string]any{
		whatsapptest.TextMessage(ada, "hello", at),
		whatsapptest.MediaMessage(ada, "image", "777", "image/jpeg", "a cat", "", at),
		whatsapptest.MediaMessage(ada, "document", "778", "application/pdf", "", "bill.pdf", at),
		whatsapptest.ButtonReply(ada, "yes-1", "Yes", at),
		whatsapptest.ListReply(ada, "row-2", "Tuesday", at),
		{"from": ada.WaID, "id": "wamid.R", "timestamp": "1", "type": "reaction", "reaction": map[string]any{"emoji": "x"}},
	}, []map[string]any{
		whatsapptest.Status("wamid.A", "delivered", ada.WaID, at, 0, ""),
		whatsapptest.Status("wamid.B", "failed", ada.WaID, at, 131026, "Message undeliverable"),
		whatsapptest.Status("wamid.C", "deleted", ada.WaID, at, 0, ""),
	})
	in, st, err := whatsapp.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 5 {
		t.Fatalf("%d messages, want 5 (the reaction skipped): %+v", len(in), in)
	}
	if in[0].Text != "hello" || in[0].From.UserID != ada.WaID || in[0].From.Name != "Ada" || in[0].From.Type != "whatsapp" ||
		!in[0].At.Equal(at) || !strings.HasPrefix(in[0].ExtID, "wamid.") {
		t.Errorf("text: %+v", in[0])
	}
	if in[1].Text != "a cat" || len(in[1].Media) != 1 || in[1].Media[0].ID != "777" {
		t.Errorf("image: %+v", in[1])
	}
	if in[2].Media[0].Filename != "bill.pdf" || in[3].Text != "Yes [yes-1]" || in[4].Text != "Tuesday [row-2]" {
		t.Errorf("document, button, list: %+v", in[2:])
	}
	if len(st) != 2 || st[0].Status != app.DeliveryDelivered || st[1].Status != app.DeliveryFailed ||
		st[1].Error != "WhatsApp: Message undeliverable (code 131026)" {
		t.Errorf("statuses: %+v", st)
	}
	if _, _, err := whatsapp.Parse([]byte("not json")); err == nil {
		t.Error("a body that is not JSON parsed")
	}
}

func TestSplitAtTheBound(t *testing.T) {
	t.Parallel()
	exact := strings.Repeat("é", whatsapp.MaxText)
	if got := whatsapp.Split(exact, whatsapp.MaxText); len(got) != 1 {
		t.Fatalf("4096 characters: %d pieces", len(got))
	}
	over := exact + "x"
	got := whatsapp.Split(over, whatsapp.MaxText)
	if len(got) != 2 || len([]rune(got[0])) != whatsapp.MaxText || got[1] != "x" {
		t.Fatalf("4097 characters: %d pieces", len(got))
	}
	words := strings.Repeat("word ", 1000) // 5,000 characters: cut at a space
	for _, p := range whatsapp.Split(words, whatsapp.MaxText) {
		if len([]rune(p)) > whatsapp.MaxText || strings.HasPrefix(p, " ") || strings.HasSuffix(p, "wor") {
			t.Fatalf("a piece cut inside a word or over the bound: %q...", p[:20])
		}
	}
}

func TestFetchDownloadsWithTheToken(t *testing.T) {
	t.Parallel()
	srv := whatsapptest.New(t, "1055", "tok")
	id := srv.AddMedia(whatsapptest.File{MimeType: "audio/ogg", Data: []byte("OggS voice")})
	c := whatsapp.NewClient(srv.URL)
	f, err := c.Fetch(context.Background(), deployment("tok"), whatsapp.Media{ID: id, Voice: true})
	if err != nil || string(f.Data) != "OggS voice" || f.MimeType != "audio/ogg" || f.Name != "whatsapp-"+id+".ogg" {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := c.Fetch(context.Background(), deployment("bad"), whatsapp.Media{ID: id}); err == nil {
		t.Fatal("a wrong token downloaded")
	}
	big := srv.AddMedia(whatsapptest.File{MimeType: "video/mp4", Data: make([]byte, whatsapp.MaxMedia+1)})
	if _, err := c.Fetch(context.Background(), deployment("tok"), whatsapp.Media{ID: big}); err == nil ||
		!strings.Contains(err.Error(), "10 MiB") {
		t.Fatalf("11 MiB: %v", err)
	}
	edge := srv.AddMedia(whatsapptest.File{MimeType: "video/mp4", Data: make([]byte, whatsapp.MaxMedia)})
	if _, err := c.Fetch(context.Background(), deployment("tok"), whatsapp.Media{ID: edge}); err != nil {
		t.Fatalf("exactly 10 MiB: %v", err)
	}
}

func TestMetaWindowErrorIsPermanent(t *testing.T) {
	t.Parallel()
	srv := whatsapptest.New(t, "1055", "tok")
	srv.CloseWindow("491")
	c := whatsapp.NewClient(srv.URL)
	_, err := c.SendMessage(context.Background(), deployment("tok"), "491",
		map[string]any{"type": "text", "text": map[string]any{"body": "hi"}})
	var e *whatsapp.APIError
	if !errors.As(err, &e) || e.Code != 131047 {
		t.Fatalf("%v", err)
	}
	err = whatsapp.Classify(err)
	var perm channel.Permanent
	if !errors.As(err, &perm) || !strings.Contains(err.Error(), "24 hours") {
		t.Fatalf("classified: %v", err)
	}
	id, err := c.SendMessage(context.Background(), deployment("tok"), "491",
		whatsapp.TemplateBody(app.TemplatePart{Name: "hello_world", Language: "en_US"}))
	if err != nil || !strings.HasPrefix(id, "wamid.") {
		t.Fatalf("template: %q %v", id, err)
	}
}
