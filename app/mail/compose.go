// Package mail sends broadcast email: it composes the message (go-mail), signs it with the
// domain's DKIM key (go-msgauth) and hands it to the SMTP relay of email.smtp_url (go-smtp).
package mail

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/emersion/go-msgauth/dkim"
	gomail "github.com/wneessen/go-mail"
	"golang.org/x/net/html"

	"wsapi/app"
)

// signedHeaders are the header fields the DKIM signature covers.
var signedHeaders = []string{"From", "To", "Subject", "Date", "Message-ID", "List-Unsubscribe",
	"List-Unsubscribe-Post", "MIME-Version", "Content-Type"}

// Compose builds the RFC 5322 message of e and signs it with DKIM.
func Compose(e app.OutboundEmail, now time.Time) ([]byte, error) {
	m := gomail.NewMsg()
	// net/mail quotes the display name as RFC 5322 requires (or encodes it as RFC 2047 words),
	// so `Bob "The Builder" O'Brien` arrives intact; FromFormat would wrap it in bare quotes.
	from, err := mail.ParseAddress(e.FromEmail)
	if err != nil {
		return nil, fmt.Errorf("mail: from: %w", err)
	}
	from.Name = withoutControls(e.FromName)
	m.FromMailAddress(from)
	if err := m.To(e.To); err != nil {
		return nil, fmt.Errorf("mail: to: %w", err)
	}
	m.Subject(e.Subject)
	m.SetDateWithValue(now)
	m.SetMessageIDWithValue(messageID(e, from))
	if e.UnsubscribeURL != "" { // a broadcast's; the server's own mail to a member has none
		m.SetGenHeader("List-Unsubscribe", "<"+e.UnsubscribeURL+">")
	}
	if strings.HasPrefix(e.UnsubscribeURL, "https://") {
		// RFC 8058 one-click is defined for HTTPS URIs only.
		m.SetGenHeader("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	body, err := htmlBody(e)
	if err != nil {
		return nil, err
	}
	switch {
	case e.Text != "" && body != "":
		m.SetBodyString(gomail.TypeTextPlain, e.Text)
		m.AddAlternativeString(gomail.TypeTextHTML, body)
	case body != "":
		m.SetBodyString(gomail.TypeTextHTML, body)
	default:
		m.SetBodyString(gomail.TypeTextPlain, e.Text)
	}
	var raw bytes.Buffer
	if _, err := m.WriteTo(&raw); err != nil {
		return nil, fmt.Errorf("mail: compose: %w", err)
	}
	return sign(raw.Bytes(), e)
}

// withoutControls turns control characters into spaces: names stored before they were refused
// at input must not break every send of their identity.
func withoutControls(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// parsedKeys holds each DKIM key parsed once: parsing checks the key, which costs about as
// much as a fifth of a signature, and a broadcast signs with the same key every time.
var parsedKeys sync.Map // PEM text -> *rsa.PrivateKey

func dkimKey(pemText string) (*rsa.PrivateKey, error) {
	if k, ok := parsedKeys.Load(pemText); ok {
		return k.(*rsa.PrivateKey), nil
	}
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("mail: the domain's DKIM key is not PEM")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("mail: dkim key: %w", err)
	}
	parsedKeys.Store(pemText, key)
	return key, nil
}

// messageID is e's Message-ID, or for mail that keeps none (the server's own) a new one on
// the sender's domain.
func messageID(e app.OutboundEmail, from *mail.Address) string {
	if e.MessageID != "" {
		return e.MessageID
	}
	_, domain, _ := strings.Cut(from.Address, "@")
	return app.NewID("msg") + "@" + domain
}

func sign(raw []byte, e app.OutboundEmail) ([]byte, error) {
	if e.DKIMDomain == "" { // the server's own mail (email.from): the relay signs it, if anyone
		return raw, nil
	}
	return Sign(raw, e.DKIMDomain, e.DKIMSelector, e.DKIMKeyPEM, signedHeaders)
}

// Sign adds a DKIM signature (relaxed/relaxed, rsa-sha256) of a domain's key over headers to
// a composed message: the broadcasts' and the email channel's mail alike.
func Sign(raw []byte, domain, selector, keyPEM string, headers []string) ([]byte, error) {
	key, err := dkimKey(keyPEM)
	if err != nil {
		return nil, err
	}
	var signed bytes.Buffer
	opts := &dkim.SignOptions{Domain: domain, Selector: selector, Signer: key,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed,
		HeaderKeys: headers}
	if err := dkim.Sign(&signed, bytes.NewReader(raw), opts); err != nil {
		return nil, fmt.Errorf("mail: dkim sign: %w", err)
	}
	return signed.Bytes(), nil
}

// htmlBody rewrites links through the click tracker and adds the open pixel, when the
// identity asks for them.
func htmlBody(e app.OutboundEmail) (string, error) {
	if e.HTML == "" || (e.ClickURL == nil && e.OpenPixelURL == "") {
		return e.HTML, nil
	}
	doc, err := html.Parse(strings.NewReader(e.HTML))
	if err != nil {
		return "", fmt.Errorf("mail: html: %w", err)
	}
	var body *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "body" {
			body = n
		}
		if n.Type == html.ElementNode && n.Data == "a" && e.ClickURL != nil {
			for i, a := range n.Attr {
				if a.Key == "href" && (strings.HasPrefix(a.Val, "http://") || strings.HasPrefix(a.Val, "https://")) {
					n.Attr[i].Val = e.ClickURL(a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if e.OpenPixelURL != "" && body != nil {
		body.AppendChild(&html.Node{Type: html.ElementNode, Data: "img", Attr: []html.Attribute{
			{Key: "src", Val: e.OpenPixelURL}, {Key: "width", Val: "1"}, {Key: "height", Val: "1"}, {Key: "alt", Val: ""}}})
	}
	var out bytes.Buffer
	if err := html.Render(&out, doc); err != nil {
		return "", fmt.Errorf("mail: html: %w", err)
	}
	return out.String(), nil
}
