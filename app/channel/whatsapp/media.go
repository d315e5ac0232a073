package whatsapp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"wsapi/app"
)

// MaxMedia bounds a file a contact sends (the widget's bound): a larger one is refused
// rather than read.
const MaxMedia = 10 << 20

// Fetched is a contact's file, downloaded.
type Fetched struct {
	Name, MimeType string
	Data           []byte
}

// Fetch downloads a contact's media: GET /{media_id} answers a short-lived URL, which is read
// with the same bearer token.
func (c *Client) Fetch(ctx context.Context, d app.Deployment, m Media) (Fetched, error) {
	var meta struct {
		URL      string `json:"url"`
		MimeType string `json:"mime_type"`
		FileSize int64  `json:"file_size"`
	}
	token := d.Secrets["access_token"]
	if err := c.call(ctx, token, "GET", "/"+url.PathEscape(m.ID), nil, &meta); err != nil {
		return Fetched{}, err
	}
	if meta.FileSize > MaxMedia {
		return Fetched{}, errors.New("WhatsApp: the file is larger than 10 MiB")
	}
	u, err := url.Parse(meta.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return Fetched{}, errors.New("WhatsApp: the media URL is not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, "GET", meta.URL, nil)
	if err != nil {
		return Fetched{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Fetched{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Fetched{}, errors.New("WhatsApp: the media download answered " + resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxMedia+1))
	if err != nil {
		return Fetched{}, err
	}
	if len(data) > MaxMedia {
		return Fetched{}, errors.New("WhatsApp: the file is larger than 10 MiB")
	}
	mt := meta.MimeType
	if mt == "" {
		mt = m.MimeType
	}
	return Fetched{Name: fileName(m, mt), MimeType: mt, Data: data}, nil
}

// fileName is the document's own name, else one made of the media id and its type.
func fileName(m Media, mimetype string) string {
	if m.Filename != "" {
		return m.Filename
	}
	ext := map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "audio/ogg": ".ogg",
		"audio/mpeg": ".mp3", "audio/mp4": ".m4a", "audio/aac": ".aac", "audio/amr": ".amr", "video/mp4": ".mp4",
		"video/3gpp": ".3gp", "application/pdf": ".pdf"}[mimetype]
	id := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, m.ID)
	return "whatsapp-" + id + ext
}
