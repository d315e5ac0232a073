package email

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"time"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decodes the charsets mail uses beyond UTF-8
	"github.com/emersion/go-message/mail"

	"wsapi/app"
)

// Parse bounds: a mail with more parts or deeper nesting is cut there (what came before is
// kept), so a hostile message costs at most this much work.
const (
	maxParts   = 200
	maxDepth   = 16
	maxHeader  = 256 << 10 // header block of one entity
	maxTextLen = 64 << 10  // characters of the text kept for the chat message
)

// Parsed is what a mail says, as the channel needs it.
type Parsed struct {
	From       *netmail.Address
	Subject    string
	MessageID  string
	References []string // In-Reply-To first, then References newest first
	Date       time.Time
	// Text is the new part of the mail: HTML turned to text, quotes and signature trimmed.
	Text  string
	Files []app.InboundFile
	// AutoReply names why the mail is automatic ("" when a person wrote it).
	AutoReply string
	// DSN is set for a delivery status notification: the recipients that failed.
	DSN *DSN
}

// DSN is a delivery status notification (RFC 3464): the addresses whose delivery failed.
type DSN struct{ Failed []string }

// ErrNoHeader refuses input that is not a mail at all.
var ErrNoHeader = errors.New("email: not a mail: no header")

// Parse reads one raw message. Unknown charsets and encodings are tolerated (the part is kept
// as it is); only a message without a readable header is an error.
func Parse(raw []byte) (*Parsed, error) {
	rd := bytes.NewReader(raw)
	e, err := message.ReadWithOptions(rd, &message.ReadOptions{MaxHeaderBytes: maxHeader})
	if e == nil {
		return nil, fmt.Errorf("%w: %v", ErrNoHeader, err)
	}
	repairHeader(&e.Header)
	h := mail.Header{Header: e.Header}
	p := &Parsed{From: fromOf(h)}
	p.Subject, _ = h.Subject()
	p.Subject = oneLine(legacyText(p.Subject))
	p.MessageID, _ = h.MessageID()
	p.References = references(h)
	p.Date, _ = h.Date()
	p.AutoReply = autoReason(h.Header)
	w := walker{p: p, left: rd.Len}
	// A broken multipart or a bound reached ends the walk: what was read before is kept.
	_ = e.Walk(w.visit)
	if ct, _, _ := e.Header.ContentType(); strings.HasPrefix(ct, "multipart/") && w.parts <= 1 {
		w.repairMultipart(e.Header, raw)
	}
	p.Text = w.body()
	if w.dsn != nil && len(w.dsn.Failed) > 0 {
		p.DSN = w.dsn
	} else if q := qmailBounce(w.text); q != nil {
		p.DSN = q
		if p.AutoReply == "" {
			p.AutoReply = "qmail bounce"
		}
	}
	return p, nil
}

var errStop = errors.New("email: parse bound reached")

// walker collects the text, the HTML and the files of a message's parts.
type walker struct {
	p          *Parsed
	text, html string
	parts      int
	report     bool // inside multipart/report; report-type=delivery-status
	dsn        *DSN
	left       func() int // bytes of the raw mail the parser has not read yet
}

func (w *walker) visit(path []int, e *message.Entity, err error) error {
	if w.parts++; w.parts > maxParts || len(path) > maxDepth {
		return errStop
	}
	if e == nil {
		return nil
	}
	ct, params, _ := e.Header.ContentType()
	if ct == "" {
		ct = "text/plain"
	}
	if strings.HasPrefix(ct, "multipart/") {
		if ct == "multipart/report" && strings.EqualFold(params["report-type"], "delivery-status") {
			w.report = true
		}
		return nil
	}
	base64 := strings.EqualFold(strings.TrimSpace(e.Header.Get("Content-Transfer-Encoding")), "base64")
	body, rerr := readPart(e.Body, w.left, base64)
	if rerr != nil && len(body) == 0 {
		return nil // a part whose encoding is broken: skipped
	}
	if ct == "message/delivery-status" || ct == "message/global-delivery-status" {
		if w.report || len(path) == 0 {
			w.dsn = parseDSN(body)
		}
		return nil
	}
	disp, dparams, _ := e.Header.ContentDisposition()
	name := fileName(dparams["filename"], params["name"])
	switch {
	case disp != "attachment" && name == "" && ct == "text/plain" && w.text == "":
		w.text = legacyText(string(body))
	case disp != "attachment" && name == "" && ct == "text/html" && w.html == "":
		w.html = legacyText(string(body))
	case disp != "attachment" && name == "" && strings.HasPrefix(ct, "text/"):
		// another text alternative (a calendar's text, an enriched copy): the first one is the mail
	case w.report && (ct == "message/rfc822" || ct == "text/rfc822-headers"):
		// the returned message of a DSN: not the contact's file
	default:
		if name == "" {
			name = "attachment" + extension(ct)
		}
		w.p.Files = append(w.p.Files, app.InboundFile{Name: name, Mimetype: ct, Data: body})
	}
	return nil
}

// maxPartBytes bounds one part's decoded body; more is cut.
const maxPartBytes = 64 << 20

// readPart reads a part's decoded body. Past its first 64 KiB (an attachment), the rest goes
// into one buffer sized from what is left of the raw mail (3/4 of it for base64): io.ReadAll
// allocated 46 MB as it grew to a 19 MB attachment and held two copies at its last growth
// (bench/email). A buffer much bigger than the part (a first attachment of several) is
// copied down to its size.
func readPart(body io.Reader, left func() int, base64 bool) ([]byte, error) {
	const head = 64 << 10
	r := io.LimitReader(body, maxPartBytes)
	b, err := io.ReadAll(io.LimitReader(r, head))
	if err != nil || len(b) < head {
		return b, err
	}
	rest := left() + 4<<10 // the parser reads ahead of the part a little
	if base64 {
		rest = rest/4*3 + 4<<10
	}
	b = append(make([]byte, 0, min(len(b)+rest, maxPartBytes+1)), b...)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // more than the estimate: grow as io.ReadAll does
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			if cap(b)-len(b) > len(b)/4 {
				b = bytes.Clone(b)
			}
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// body is the mail's new text: the plain part, or the HTML part as text, trimmed.
func (w *walker) body() string {
	text := w.text
	if strings.TrimSpace(text) == "" && w.html != "" {
		text = HTMLText(w.html)
	}
	text = Trim(text)
	if r := []rune(text); len(r) > maxTextLen {
		text = string(r[:maxTextLen])
	}
	return text
}

// fileName is a part's file name without a path, at most 255 characters.
func fileName(names ...string) string {
	for _, n := range names {
		n = strings.TrimSpace(n)
		if i := strings.LastIndexAny(n, `/\`); i >= 0 {
			n = n[i+1:]
		}
		n = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, n)
		n = legacyText(n)
		if n != "" && n != "." && n != ".." {
			if r := []rune(n); len(r) > 255 {
				n = string(r[len(r)-255:])
			}
			return n
		}
	}
	return ""
}

func extension(ct string) string {
	switch ct {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "application/pdf":
		return ".pdf"
	case "message/rfc822":
		return ".eml"
	}
	return ".bin"
}

// references are the Message-IDs a reply points to: In-Reply-To, then References from the
// newest (last) to the oldest, each once, at most 50.
func references(h mail.Header) []string {
	var out []string
	seen := map[string]bool{}
	add := func(ids []string) {
		for _, id := range ids {
			if id != "" && !seen[id] && len(out) < 50 {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	irt, _ := h.MsgIDList("In-Reply-To")
	add(irt)
	refs, _ := h.MsgIDList("References")
	for i, j := 0, len(refs)-1; i < j; i, j = i+1, j-1 {
		refs[i], refs[j] = refs[j], refs[i]
	}
	add(refs)
	return out
}

// fromOf is the mail's From address: the first of the list, or one net/mail refuses read
// loosely; nil when there is none.
func fromOf(h mail.Header) *netmail.Address {
	if list, err := h.AddressList("From"); err == nil && len(list) > 0 {
		return &netmail.Address{Name: legacyText(list[0].Name), Address: list[0].Address}
	}
	return looseAddress(h.Get("From"))
}

// looseAddress reads a From that net/mail refuses (a bare address with junk around it).
func looseAddress(v string) *netmail.Address {
	if i, j := strings.LastIndex(v, "<"), strings.LastIndex(v, ">"); i >= 0 && j > i {
		v = v[i+1 : j]
	}
	a, err := netmail.ParseAddress(strings.TrimSpace(v))
	if err != nil {
		return nil
	}
	return a
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// autoReason tells an automatic mail (RFC 3834 Auto-Submitted, Precedence bulk, list or
// junk, a mailing list's List-Id, the X-Autoreply family) and why; "" for a person's.
func autoReason(h message.Header) string {
	if v := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); v != "" && !strings.HasPrefix(v, "no") {
		return "auto-submitted: " + v
	}
	switch p := strings.ToLower(strings.TrimSpace(h.Get("Precedence"))); p {
	case "bulk", "list", "junk", "auto_reply":
		return "precedence: " + p
	}
	if h.Get("List-Id") != "" {
		return "list-id"
	}
	if strings.TrimSpace(h.Get("Return-Path")) == "<>" {
		return "null sender"
	}
	for _, k := range []string{"X-Autoreply", "X-Autorespond"} {
		if h.Get(k) != "" {
			return strings.ToLower(k)
		}
	}
	return ""
}

// parseDSN reads the per-recipient blocks of a message/delivery-status part: each failed
// recipient's Final-Recipient (or Original-Recipient) address.
func parseDSN(body []byte) *DSN {
	d := &DSN{}
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(body)))
	for i := 0; i < 100; i++ {
		h, err := r.ReadMIMEHeader()
		if len(h) > 0 && strings.HasPrefix(strings.ToLower(strings.TrimSpace(h.Get("Action"))), "failed") {
			rcpt := h.Get("Final-Recipient")
			if rcpt == "" {
				rcpt = h.Get("Original-Recipient")
			}
			if _, addr, ok := strings.Cut(rcpt, ";"); ok {
				if a, err := netmail.ParseAddress(strings.TrimSpace(addr)); err == nil {
					d.Failed = append(d.Failed, strings.ToLower(a.Address))
				}
			}
		}
		if err != nil {
			break
		}
	}
	return d
}
