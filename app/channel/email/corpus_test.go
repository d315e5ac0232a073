package email_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"wsapi/app/channel/email"
)

// shape is what a corpus mail must come to, where its shape is known.
type shape struct {
	text     string   // the whole trimmed text
	prefix   string   // or how it starts
	notIn    []string // what the text must not hold (quotes, signatures)
	files    []string // "name|mimetype", in order
	auto     bool     // an automatic mail: never answered
	bounced  []string // a DSN's failed recipients
	noSender bool
	from     string // the sender's name, when checked
	subject  string // the subject, when checked
}

var corpus = map[string]shape{
	"gmail_reply.eml":             {text: "Thanks, that fixed it! One more question: can I change the billing date?"},
	"gmail_reply_signature.eml":   {text: "It arrived now, it was in the spam folder. Thank you for the quick help!", notIn: []string{"Grace Hopper", "wrote", ">"}},
	"outlook_web_reply.eml":       {text: "Friday works for me, please deliver to the back entrance.\n\nKind regards,\nAlan", notIn: []string{"From:", "Sent:", "Monday"}},
	"outlook_desktop_reply.eml":   {prefix: "I\u2019ve installed the driver you sent \u2013 the printer works again.", notIn: []string{"Original Message", "attached driver"}},
	"apple_mail_reply.eml":        {text: "Merci! Please send the quote for the two spectrometers to our accounting department as well.\n\nMarie"},
	"iphone_reply.eml":            {text: "Yes, 3pm is fine. See you then."},
	"new_mail_signature.eml":      {text: "Can I replace my current plan with the team plan without losing data?"},
	"html_only.eml":               {text: "Hello,\n\nhow many requests per minute does the API allow on the Starter plan?\n\nOrders endpoint\n\nProducts endpoint\n\nThanks & regards,\nTiny Shop"},
	"thunderbird_reply.eml":       {text: "Hallo,\n\ndie Rückerstattung ist angekommen. Vielen Dank für die schnelle\nBearbeitung!\n\nGrüße\nEmmy"},
	"html_only_tables_base64.eml": {prefix: "Hi team,", notIn: []string{"<", "open.gif"}},
	"nested_mixed_related_alternative.eml": {text: "The package arrived damaged, see the photo below and the delivery note attached.",
		files: []string{"photo.png|image/png", "delivery-note.pdf|application/pdf"}},
	"inline_image_related.eml": {text: "This is what I see when I log in:", files: []string{"image.png|image/png"}},
	"attachment_pdf.eml":       {text: "Please find our invoice attached.", files: []string{"invoice-2026-03.pdf|application/pdf"}},
	"attachments_rfc2231.eml": {text: "Hér eru skjölin þrjú.",
		files: []string{"reikningur márs.pdf|application/pdf", "mynd af þaki.png|image/png", "tölur.csv|text/csv"}},
	"forwarded_rfc822.eml":                   {text: "Is this mail really from you? It looks like phishing.", files: []string{"Suspicious login.eml|message/rfc822"}},
	"calendar_invite.eml":                    {text: "You have been invited to the onboarding call on Monday at 15:00 UTC.", files: []string{"invite.ics|application/ics"}},
	"outlook_tnef_winmail.eml":               {text: "Please review the contract draft.", files: []string{"winmail.dat|application/ms-tnef"}},
	"charset_iso2022jp.eml":                  {text: "注文番号 8812 の配送状況を教えてください。\nよろしくお願いします。\n山田"},
	"charset_windows1252_labeled_latin1.eml": {text: "Your \u201cpremium\u201d plan costs \u20ac20 \u2013 that\u2019s too much for us. Can we get a discount?"},
	"charset_utf8_labeled_ascii.eml":         {text: "Min konto er låst efter tre forsøg. Kan I åbne den igen?"},
	"quoted_printable_soft_breaks.eml":       {prefix: "I\u2019d like to upgrade from the monthly plan to the yearly plan, but the button on the billing page does nothing when I click it \u2013 I tried Firefox and Chrome."},
	"base64_plain.eml":                       {text: "Does your radio module support frequency hopping on the 868 MHz band?\n\nHedy"},
	"huge_headers.eml":                       {text: "Still waiting for an answer on this one."},
	"long_line.eml":                          {prefix: "ERROR timeout after 30s while calling /v1/orders; retrying;"},
	"missing_headers.eml":                    {text: "A message with no subject, no date, no Message-ID and no MIME headers at all."},
	"missing_from.eml":                       {noSender: true},
	"malformed_boundary_unclosed.eml":        {text: "The last part of this message has no closing boundary."},
	"empty_body.eml":                         {text: ""},
	"autoreply_outlook.eml":                  {auto: true},
	"autoreply_precedence_bulk.eml":          {auto: true},
	"autoreply_gmail_vacation.eml":           {auto: true},
	"mailing_list.eml":                       {auto: true},
	"dsn_delayed.eml":                        {auto: true}, // a delay is no bounce: nobody is suppressed
	"dsn_postfix.eml":                        {auto: true, bounced: []string{"nobody@gone.example.net"}},
	"dsn_exchange.eml":                       {auto: true, bounced: []string{"former.employee@contoso.com"}},
	"bounce_qmail_plain.eml":                 {auto: true, bounced: []string{"olduser@qmail.example.net"}},
	"charset_unknown.eml":                    {text: "Nightly export finished: 1204 rows. Café orders included."},
	"raw_8bit_headers.eml":                   {text: "¿Dónde está mi pedido?", from: "José María", subject: "Información sobre el pedido"},
	"malformed_boundary_mismatch.eml":        {text: "This body uses a boundary other than the declared one."},
	"malformed_boundary_missing_param.eml":   {text: "Just text where parts were promised."},
	"malformed_encodings.eml":                {prefix: "Broken soft break =ZZ and a lone = at the end"},
	"reply_plus_token.eml":                   {text: "Replying to the reply+ address without any threading headers.", from: "Ada Lovelace"},
}

// TestCorpus runs every mail of testdata/corpus (real-world shapes: the big clients' replies,
// HTML only, nested multiparts, inline images, attachments, broken charsets, encodings and
// boundaries, huge headers, long lines, DSNs, auto-replies) through the parser: none may
// fail, and the mails whose shape is known come to what a member should see.
func TestCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/corpus/*.eml")
	if err != nil || len(files) < 30 {
		t.Fatalf("corpus: %d files (%v), want at least 30", len(files), err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := email.Parse(raw)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if strings.Contains(p.Text, "\r") {
				t.Errorf("text keeps carriage returns: %q", p.Text)
			}
			for _, file := range p.Files {
				if file.Name == "" || file.Mimetype == "" || len(file.Data) == 0 {
					t.Errorf("file %q (%s) of %d bytes", file.Name, file.Mimetype, len(file.Data))
				}
			}
			if want, known := corpus[name]; known {
				check(t, p, want)
			}
		})
	}
	for name := range corpus {
		if !slices.Contains(files, filepath.Join("testdata", "corpus", name)) {
			t.Errorf("the corpus has no %s", name)
		}
	}
}

func check(t *testing.T, p *email.Parsed, want shape) {
	t.Helper()
	switch {
	case want.noSender:
		if p.From != nil {
			t.Errorf("from %v, want none", p.From)
		}
		return
	case p.From == nil || p.From.Address == "":
		t.Errorf("no From address")
	}
	if want.prefix == "" && !want.auto && p.Text != want.text {
		t.Errorf("text %q, want %q", p.Text, want.text)
	}
	if want.from != "" && p.From.Name != want.from {
		t.Errorf("from name %q, want %q", p.From.Name, want.from)
	}
	if want.subject != "" && p.Subject != want.subject {
		t.Errorf("subject %q, want %q", p.Subject, want.subject)
	}
	if !utf8.ValidString(p.Text) || !utf8.ValidString(p.Subject) || (p.From != nil && !utf8.ValidString(p.From.Name)) {
		t.Errorf("text, subject or sender's name is not UTF-8: %q, %q, %v", p.Text, p.Subject, p.From)
	}
	if !strings.HasPrefix(p.Text, want.prefix) {
		t.Errorf("text %q, want it to start with %q", p.Text, want.prefix)
	}
	for _, s := range want.notIn {
		if strings.Contains(p.Text, s) {
			t.Errorf("text %q holds %q", p.Text, s)
		}
	}
	var files []string
	for _, f := range p.Files {
		files = append(files, f.Name+"|"+f.Mimetype)
	}
	if fmt.Sprint(files) != fmt.Sprint(want.files) && !(len(files) == 0 && len(want.files) == 0) {
		t.Errorf("files %v, want %v", files, want.files)
	}
	if (p.AutoReply != "") != want.auto {
		t.Errorf("auto-reply %q, want automatic %v", p.AutoReply, want.auto)
	}
	var bounced []string
	if p.DSN != nil {
		bounced = p.DSN.Failed
	}
	if fmt.Sprint(bounced) != fmt.Sprint(want.bounced) && !(len(bounced) == 0 && len(want.bounced) == 0) {
		t.Errorf("bounced %v, want %v", bounced, want.bounced)
	}
}
