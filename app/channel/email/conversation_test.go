package email_test

import (
	"strings"
	"testing"
	"time"
)

// TestEmailConversation: a new mail opens a chat (contact made from its From address, DKIM,
// SPF and DMARC recorded, the attachment and the raw mail kept as files); the built-in
// assistant's answer reaches the sink DKIM-signed and threaded; the contact's answer joins
// the same chat by its headers and by the reply+ address alone; a member's reply is sent too.
func TestEmailConversation(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t)
	e := m.e
	first := &letter{from: "Ann Lee <ann@customer.test>", to: helpAddr, subject: "Opening hours?", raw: `Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

What are your opening hours? Gr=FC=DFe

--=20
Ann Lee, Customer Ltd
--b1
Content-Type: application/pdf; name="order.pdf"
Content-Disposition: attachment; filename="order.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--b1--
`}
	m.mustSend(t, "ann@customer.test", []string{helpAddr}, m.signed(t, first))
	chats := m.chats(t)
	if len(chats) != 1 {
		t.Fatalf("chats %v", chats)
	}
	chatID := chats[0]["id"].(string)
	msgs := m.messages(t, chatID)
	if len(msgs) != 1 || msgs[0]["role"] != "user" {
		t.Fatalf("messages %v", msgs)
	}
	parts := msgs[0]["messages"].([]any)[0].(map[string]any)["parts"].([]any)
	if text := parts[0].(map[string]any)["text"]; text != "What are your opening hours? Grüße" {
		t.Fatalf("text %q (charset decoded, signature trimmed)", text)
	}
	if len(parts) != 2 || parts[1].(map[string]any)["type"] != "file" || parts[1].(map[string]any)["text"] != "order.pdf" {
		t.Fatalf("parts %v", parts)
	}
	em := emailMeta(t, msgs[0])
	if em["dkim"] != "pass" || em["spf"] != "pass" || em["dmarc"] != "pass" || em["dmarc_policy"] != "reject" ||
		em["message_id"] != first.id || em["source"] != "smtp" || em["no_run"] != "" || em["from"] != "ann@customer.test" {
		t.Fatalf("metadata %v", em)
	}
	files := e.Do("GET", "/orgs/c/chats/"+chatID+"/files", e.AdminKey, nil).Expect(200).List()
	names := map[any]bool{}
	for _, f := range files {
		names[f["file_filename"]] = true
	}
	if !names["order.pdf"] || !names["message.eml"] || len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	chat := e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).Map()
	if chat["title"] != "Opening hours?" {
		t.Fatalf("chat %v", chat)
	}

	// The assistant answers after the debounce; the answer goes out through the sink.
	e.Clock.Advance(time.Second)
	out := m.sink.Wait(t, 1, 10*time.Second)[0]
	if out.From != helpAddr || len(out.To) != 1 || out.To[0] != "ann@customer.test" {
		t.Fatalf("envelope %s -> %v", out.From, out.To)
	}
	m.dkimValid(t, out.Data)
	if got := header(t, out.Data, "In-Reply-To"); got != bracketed(first.id) {
		t.Fatalf("In-Reply-To %q", got)
	}
	if got := header(t, out.Data, "Subject"); got != "Re: Opening hours?" {
		t.Fatalf("Subject %q", got)
	}
	replyTo := strings.Trim(header(t, out.Data, "Reply-To"), "<>")
	if !strings.HasPrefix(replyTo, "reply+") || !strings.HasSuffix(replyTo, "@support.test") {
		t.Fatalf("Reply-To %q", replyTo)
	}
	if !strings.Contains(string(out.Data), "nine to five") || !strings.Contains(string(out.Data), "text/html") {
		t.Fatalf("answer %s", out.Data)
	}
	answerID := strings.Trim(header(t, out.Data, "Message-Id"), "<>")
	msgs = m.waitMessages(t, chatID, 2)
	e.Eventually(10*time.Second, "delivery SENT", func() bool {
		msgs = m.messages(t, chatID)
		d, _ := msgs[1]["delivery"].(map[string]any)
		return d != nil && d["status"] == "SENT"
	})
	if d := msgs[1]["delivery"].(map[string]any); d["external_id"] != answerID || !strings.HasPrefix(answerID, msgs[1]["id"].(string)+"@") {
		t.Fatalf("delivery %v, Message-ID %s", d, answerID)
	}

	// Ann answers the answer (Gmail style, quoting it): same chat, quote trimmed.
	byHeader := &letter{from: "ann@customer.test", to: helpAddr, subject: "Re: Opening hours?",
		headers: []string{"In-Reply-To: " + bracketed(answerID), "References: " + bracketed(first.id) + " " + bracketed(answerID)},
		body:    "Thanks! And on Saturday?\n\nOn Mon, 5 Jan 2026 at 10:01, Support <help@support.test> wrote:\n> Our opening hours are nine to five"}
	m.mustSend(t, "ann@customer.test", []string{helpAddr}, m.signed(t, byHeader))
	msgs = m.waitMessages(t, chatID, 3)
	if txt := msgs[2]["messages"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]; txt != "Thanks! And on Saturday?" {
		t.Fatalf("reply text %q", txt)
	}
	// By the reply+ address alone (a client that dropped the headers).
	byAddress := &letter{from: "ann@customer.test", to: replyTo, subject: "another thing", body: "Do you ship to Norway?"}
	m.mustSend(t, "ann@customer.test", []string{replyTo}, m.signed(t, byAddress))
	m.waitMessages(t, chatID, 4)
	if n := len(m.chats(t)); n != 1 {
		t.Fatalf("%d chats: the replies opened new ones", n)
	}

	// A member's reply, posted through the API, is mailed in the thread.
	e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": "We ship to Norway, yes."}}}}}).Expect(201)
	e.Eventually(10*time.Second, "the member's reply at the sink", func() bool {
		for _, s := range m.sink.Mails() {
			if strings.Contains(string(s.Data), "We ship to Norway, yes.") {
				m.dkimValid(t, s.Data)
				if header(t, s.Data, "In-Reply-To") == "" || !strings.Contains(header(t, s.Data, "References"), bracketed(first.id)) ||
					header(t, s.Data, "Auto-Submitted") != "no" {
					t.Fatalf("member reply headers: %s", s.Data)
				}
				return true
			}
		}
		return false
	})
}
