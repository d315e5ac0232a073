package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"unicode"

	"wsapi/app"
	"wsapi/app/channel"
)

// outgoing turns a message into the Cloud API bodies to send, in order: its template, or its
// text in pieces and its files as media.
func (s Sender) outgoing(m app.Message) []map[string]any {
	var text []string
	var bodies []map[string]any
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			switch {
			case p.Type == "template" && p.Template != nil:
				return []map[string]any{TemplateBody(*p.Template)}
			case p.Type == "text" && strings.TrimSpace(p.Text) != "":
				text = append(text, p.Text)
			case p.File != nil || (p.Type == "audio" && p.Audio != nil):
				f := p.File
				if f == nil {
					f = p.Audio
				}
				bodies = append(bodies, map[string]any{"file": *f})
			}
		}
	}
	out := make([]map[string]any, 0, len(bodies)+1)
	for _, piece := range Split(strings.Join(text, "\n\n"), MaxText) {
		out = append(out, map[string]any{"type": "text", "text": map[string]any{"preview_url": false, "body": piece}})
	}
	return append(out, bodies...)
}

// TemplateBody is the Cloud API body of an approved template.
func TemplateBody(t app.TemplatePart) map[string]any {
	tpl := map[string]any{"name": t.Name, "language": map[string]any{"code": t.Language}}
	if len(t.Components) > 0 {
		tpl["components"] = t.Components
	}
	return map[string]any{"type": "template", "template": tpl}
}

// Split cuts text into pieces of at most n characters, at a line or word break when one is
// in the second half of a piece.
func Split(text string, n int) []string {
	var out []string
	r := []rune(strings.TrimSpace(text))
	for len(r) > n {
		cut := n
		for i := n; i > n/2; i-- {
			if unicode.IsSpace(r[i]) {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimSpace(string(r[:cut])))
		r = []rune(strings.TrimLeftFunc(string(r[cut:]), unicode.IsSpace))
	}
	if len(r) > 0 {
		out = append(out, string(r))
	}
	return out
}

// mediaType is the Cloud API message type of a file: WhatsApp shows images, audio and video
// inline and everything else as a document.
func mediaType(mimetype string) string {
	switch mimetype {
	case "image/jpeg", "image/png":
		return "image"
	case "audio/aac", "audio/mp4", "audio/mpeg", "audio/amr", "audio/ogg":
		return "audio"
	case "video/mp4", "video/3gpp":
		return "video"
	}
	return "document"
}

// mediaBody uploads a chat file to the phone number's media and answers the message body that
// sends it.
func (s Sender) mediaBody(ctx context.Context, d app.Deployment, chat app.Chat, f app.Audio) (map[string]any, error) {
	var file app.ChatFile
	err := s.Store.Read(ctx, func(tx app.Tx) (err error) {
		file, err = tx.GetFile(chat.OrgID, chat.ID, f.ID)
		return err
	})
	if app.IsNotFound(err) {
		return nil, channel.Permanent{Err: errors.New("the attached file " + f.FileFilename + " is no longer in the chat")}
	}
	if err != nil {
		return nil, err
	}
	id, err := s.Client.Upload(ctx, d, file.FileFilename, file.FileMimetype, file.Data)
	if err != nil {
		return nil, err
	}
	typ := mediaType(file.FileMimetype)
	media := map[string]any{"id": id}
	if typ == "document" {
		media["filename"] = file.FileFilename
	}
	return map[string]any{"type": typ, typ: media}, nil
}

// Upload stores a file as media of the phone number (POST /{phone_number_id}/media, multipart)
// and answers its media id.
func (c *Client) Upload(ctx context.Context, d app.Deployment, name, mimetype string, data []byte) (string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("messaging_product", "whatsapp")
	_ = w.WriteField("type", mimetype)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+strings.NewReplacer(`"`, "", "\\", "").Replace(name)+`"`)
	h.Set("Content-Type", mimetype)
	part, err := w.CreatePart(h)
	if err != nil {
		return "", err
	}
	_, _ = part.Write(data)
	if err := w.Close(); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.APIURL+"/"+url.PathEscape(phoneNumberID(d))+"/media", &buf)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	var out struct {
		ID string `json:"id"`
	}
	if err := c.send(req, d.Secrets["access_token"], &out); err != nil {
		return "", err
	}
	return out.ID, nil
}
