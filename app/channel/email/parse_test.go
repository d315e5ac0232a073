package email_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"wsapi/app/channel/email"
)

// TestTrim: what each common client puts under a reply is cut, and only that.
func TestTrim(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"gmail", "Sounds good, see you then.\n\nOn Mon, Jan 5, 2026 at 10:00 AM Support <help@support.test> wrote:\n> When?\n> Soon",
			"Sounds good, see you then."},
		{"gmail folded intro", "Yes please.\n\nOn Mon, Jan 5, 2026 at 10:00 AM Support Team <\nhelp@support.test> wrote:\n\n> Do you want it?",
			"Yes please."},
		{"apple mail", "Thanks!\n\nSent from my iPhone\n\n> On 5 Jan 2026, at 10:00, Support <help@support.test> wrote:\n> \n> Hi",
			"Thanks!"},
		{"outlook", "Please cancel my order.\n\nBest,\nBo\n\n________________________________\nFrom: Support <help@support.test>\nSent: Monday, January 5, 2026 10:00\nTo: Bo\nSubject: Your order",
			"Please cancel my order.\n\nBest,\nBo"},
		{"outlook without rule", "Got it.\n\nFrom: Support <help@support.test>\nSent: Monday, January 5, 2026 10:00\nSubject: Re: x\n\nold text",
			"Got it."},
		{"original message", "Fine.\n-----Original Message-----\nFrom: a@b.test\nold", "Fine."},
		{"signature", "See attached.\n\n-- \nBo Berg\nACME Corp, +1 555 0100", "See attached."},
		{"french", "Merci.\n\nLe lun. 5 janv. 2026 à 10:00, Support <help@support.test> a écrit :\n> Bonjour", "Merci."},
		{"german", "Danke.\n\nAm Mo., 5. Jan. 2026 um 10:00 Uhr schrieb Support <help@support.test>:\n> Hallo", "Danke."},
		{"interleaved quotes go", "> What size?\nLarge.\n> What colour?\nBlue.", "Large.\nBlue."},
		{"all quote keeps text", "> only a quote", "> only a quote"},
		{"keeps on-lines that are not intros", "On Monday we can talk.\nThanks", "On Monday we can talk.\nThanks"},
		{"crlf", "Hello\r\n\r\n-- \r\nsig", "Hello"},
	}
	for _, c := range cases {
		if got := email.Trim(c.in); got != c.want {
			t.Errorf("%s: Trim = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestHTMLText: an HTML-only mail becomes readable text, without scripts, styles or the
// quoted mail of Gmail and Outlook.
func TestHTMLText(t *testing.T) {
	t.Parallel()
	src := `<html><head><style>p{color:red}</style><title>t</title></head><body>
<div dir="ltr">Hi <b>there</b>,<br>see <a href="https://x.test">our page</a>.<div>Second line</div></div>
<script>alert(1)</script>
<div class="gmail_quote"><div class="gmail_attr">On Mon wrote:</div><blockquote>old stuff</blockquote></div>
<div id="divRplyFwdMsg">From: x</div><div>Outlook's quoted body</div>
</body></html>`
	got := email.Trim(email.HTMLText(src))
	if !strings.HasPrefix(got, "Hi there,\nsee our page.\nSecond line") || strings.Contains(got, "alert") ||
		strings.Contains(got, "color") || strings.Contains(got, "old stuff") || strings.Contains(got, "From: x") {
		t.Fatalf("HTMLText = %q", got)
	}
}

// TestParse: headers, charsets (RFC 2047 words, ISO-8859-1, an unknown charset kept as it
// is), HTML-only bodies, nested multiparts with inline images, automatic mail and DSNs.
func TestParse(t *testing.T) {
	t.Parallel()
	raw := "From: =?utf-8?q?J=C3=BCrgen?= <jurgen@customer.test>\r\nSubject: =?iso-8859-1?q?Gr=FC=DFe?=\r\n" +
		"Message-ID: <a1@customer.test>\r\nIn-Reply-To: <b2@support.test>\r\nReferences: <a0@x.test> <b1@support.test>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=r\r\n\r\n" +
		"--r\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n" +
		"--a\r\nContent-Type: text/html; charset=windows-1252\r\n\r\n<p>Caf\xe9 \x80 ok</p>\r\n--a--\r\n" +
		"--r\r\nContent-Type: image/png\r\nContent-ID: <img1>\r\nContent-Disposition: inline\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n" +
		"--r--\r\n"
	p, err := email.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if p.From.Address != "jurgen@customer.test" || p.From.Name != "Jürgen" || p.Subject != "Grüße" || p.MessageID != "a1@customer.test" {
		t.Fatalf("headers %+v", p)
	}
	if strings.Join(p.References, " ") != "b2@support.test b1@support.test a0@x.test" {
		t.Fatalf("references %v", p.References)
	}
	if p.Text != "Café € ok" || len(p.Files) != 1 || p.Files[0].Mimetype != "image/png" || p.Files[0].Name != "attachment.png" {
		t.Fatalf("text %q files %+v", p.Text, p.Files)
	}
	odd, err := email.Parse([]byte("From: a@b.test\r\nContent-Type: text/plain; charset=x-made-up\r\n\r\nplain words\r\n"))
	if err != nil || odd.Text != "plain words" {
		t.Fatalf("unknown charset: %v %+v", err, odd)
	}
	for _, h := range []string{"Auto-Submitted: auto-generated", "Precedence: junk", "List-Id: <l.x.test>", "X-Autoreply: yes"} {
		p, _ := email.Parse([]byte("From: a@b.test\r\n" + h + "\r\n\r\nx\r\n"))
		if p.AutoReply == "" {
			t.Errorf("%s: not automatic", h)
		}
	}
	if p, _ := email.Parse([]byte("From: a@b.test\r\nAuto-Submitted: no\r\n\r\nx\r\n")); p.AutoReply != "" {
		t.Errorf("Auto-Submitted: no is a person's mail")
	}
	if _, err := email.Parse([]byte("\x00\x01 not a mail")); err == nil {
		t.Errorf("garbage parsed")
	}
}

// FuzzParse: no input makes the parser panic or run away.
func FuzzParse(f *testing.F) {
	f.Add([]byte("From: a@b.test\r\nSubject: x\r\n\r\nbody\r\n"))
	f.Add([]byte("From: a@b.test\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: multipart/mixed; boundary=y\r\n\r\n--y\r\n\r\nz\r\n--y--\r\n--x--\r\n"))
	f.Add([]byte("Content-Type: multipart/report; report-type=delivery-status; boundary=r\r\n\r\n--r\r\nContent-Type: message/delivery-status\r\n\r\nFinal-Recipient: rfc822; a@b.test\r\nAction: failed\r\n--r--\r\n"))
	f.Add([]byte("Content-Type: text/html; charset=koi8-r\r\n\r\n<div class=gmail_quote><blockquote>x</blockquote></div>"))
	corpus, _ := filepath.Glob("testdata/corpus/*.eml")
	for _, name := range corpus {
		if raw, err := os.ReadFile(name); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := email.Parse(raw)
		if err != nil {
			if p != nil {
				t.Fatal("a result with an error")
			}
			return
		}
		if p == nil {
			t.Fatal("nil result without error")
		}
		// What a member reads is always UTF-8, whatever the mail claimed to be.
		if !utf8.ValidString(p.Text) || !utf8.ValidString(p.Subject) || (p.From != nil && !utf8.ValidString(p.From.Name)) {
			t.Fatalf("not UTF-8: text %q, subject %q, from %v", p.Text, p.Subject, p.From)
		}
		for _, file := range p.Files {
			if !utf8.ValidString(file.Name) {
				t.Fatalf("file name %q is not UTF-8", file.Name)
			}
		}
	})
}
