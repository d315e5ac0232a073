package mail_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	netmail "net/mail"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/mail"
)

func testKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

func composeHeaders(t *testing.T, e app.OutboundEmail) netmail.Header {
	t.Helper()
	raw, err := mail.Compose(e, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatalf("compose: %v", err)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, raw)
	}
	return msg.Header
}

func outbound(t *testing.T, name, unsubscribeURL string) app.OutboundEmail {
	return app.OutboundEmail{FromEmail: "news@example.com", FromName: name, To: "ann@example.org",
		Subject: "Hello", Text: "Hi", MessageID: "rcp_1@example.com", UnsubscribeURL: unsubscribeURL,
		DKIMDomain: "example.com", DKIMSelector: "s1", DKIMKeyPEM: testKeyPEM(t)}
}

// Display names keep every character: quotes and backslashes travel as an RFC 5322 quoted
// string, non-ASCII as encoded words, and a control character stored before input refused it
// becomes a space instead of failing every send.
func TestComposeDisplayNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, want string }{
		{`Bob "The Builder" O'Brien`, `Bob "The Builder" O'Brien`},
		{`Back\slash`, `Back\slash`},
		{`Zoë Ångström`, `Zoë Ångström`},
		{"Eve\r\nBcc: evil@example.com", "Eve  Bcc: evil@example.com"},
	} {
		h := composeHeaders(t, outbound(t, tc.name, "https://api.example.com/u/x"))
		from, err := h.AddressList("From")
		if err != nil || len(from) != 1 {
			t.Fatalf("%q: From %q: %v", tc.name, h.Get("From"), err)
		}
		if from[0].Name != tc.want || from[0].Address != "news@example.com" {
			t.Errorf("%q: From read back as %q <%s>, want %q", tc.name, from[0].Name, from[0].Address, tc.want)
		}
		if h.Get("Bcc") != "" {
			t.Errorf("%q: a Bcc header was injected", tc.name)
		}
	}
}

// RFC 8058: List-Unsubscribe-Post goes only with an https link.
func TestComposeOneClickOnlyOverHTTPS(t *testing.T) {
	t.Parallel()
	h := composeHeaders(t, outbound(t, "News", "https://api.example.com/u/tok"))
	if h.Get("List-Unsubscribe") != "<https://api.example.com/u/tok>" || h.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("https: List-Unsubscribe %q, -Post %q", h.Get("List-Unsubscribe"), h.Get("List-Unsubscribe-Post"))
	}
	h = composeHeaders(t, outbound(t, "News", "http://127.0.0.1:8080/u/tok"))
	if h.Get("List-Unsubscribe") != "<http://127.0.0.1:8080/u/tok>" || h.Get("List-Unsubscribe-Post") != "" {
		t.Errorf("http: List-Unsubscribe %q, -Post %q (want no -Post)", h.Get("List-Unsubscribe"), h.Get("List-Unsubscribe-Post"))
	}
}
