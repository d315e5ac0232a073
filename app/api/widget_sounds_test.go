package api_test

import (
	"bytes"
	"mime/multipart"
	"net/textproto"
	"testing"

	"wsapi/app/apitest"
)

// A visitor's recording keeps the audio type its browser declared when the sniffer names
// only the container, is listed among the message's sounds, and is read back by its session
// alone: another visitor, a wrong chat, a file that is not audio are 404, no token is 401.
func TestWidgetSoundsAreTheVisitorsOwn(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns, apitest.Unlimited)
	tok, _ := w.start(t, map[string]any{})
	other, _ := w.start(t, map[string]any{})
	upload := func(token, name, typ string, data []byte) map[string]any {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+name+`"`)
		h.Set("Content-Type", typ)
		fw, _ := mw.CreatePart(h)
		fw.Write(data)
		mw.Close()
		req := w.e.Request("POST", w.api("/files"), "", b.Bytes())
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("X-Session-Token", token)
		var sent map[string]any
		w.e.Send(req).Expect(201).JSON(&sent)
		return sent
	}
	webm := append([]byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01"), bytes.Repeat([]byte{0}, 64)...)
	sent := upload(tok, "voice.webm", "audio/webm;codecs=opus", webm)
	msg := sent["message"].(map[string]any)
	chat := sent["chat"].(map[string]any)["id"].(string)
	sounds := msg["audio"].([]any)
	if len(sounds) != 1 || msg["text"] != "" || sounds[0].(map[string]any)["mimetype"] != "audio/webm" {
		t.Fatalf("recording message %v", msg)
	}
	id := sounds[0].(map[string]any)["id"].(string)
	got := w.visitor("GET", "/files/"+id+"?chat_id="+chat, tok, nil).Expect(200)
	if !bytes.Equal(got.Body, webm) || got.Header.Get("Content-Type") != "audio/webm" || got.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("sound: %d bytes, %s", len(got.Body), got.Header.Get("Content-Type"))
	}
	w.visitor("GET", "/files/"+id+"?chat_id="+chat, other, nil).Expect(404)
	w.visitorInvalid("GET", "/files/"+id, "", nil).Expect(401)
	w.visitor("GET", "/files/file_nope?chat_id="+chat, tok, nil).Expect(404)
	// A PDF declared as audio stays a PDF: it is no sound, and not served here.
	pdf := upload(tok, "a.pdf", "audio/mpeg", []byte("%PDF-1.4 not a sound"))
	if pm := pdf["message"].(map[string]any); len(pm["audio"].([]any)) != 0 || pm["text"] != "[file: a.pdf]" {
		t.Fatalf("a PDF declared as audio: %v", pm)
	}
	var files []map[string]any
	w.e.Do("GET", "/orgs/c/chats/"+chat+"/files?mimetype=application/pdf", w.e.AdminKey, nil).Expect(200).JSON(&files)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	w.visitor("GET", "/files/"+files[0]["id"].(string)+"?chat_id="+chat, tok, nil).Expect(404)
}
