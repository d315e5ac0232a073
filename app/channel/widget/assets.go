package widget

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"mime"
	"net/http"
	"path"
	"strings"

	"wsapi/app"
)

//go:embed static
var static embed.FS

// AssetPrefix is where the iframe page's script and style are served, under names that
// carry their content's hash, so they can be cached for a year.
const AssetPrefix = "/widget-assets/"

// Assets are the widget's embedded files: the loader, and the page's hashed script and style.
type Assets struct {
	loader     []byte
	loaderETag string
	byName     map[string][]byte // hashed name -> content
	page       *template.Template
	js, css    string // hashed URLs
}

// LoadAssets reads the embedded files and names the page's assets by their hashes.
func LoadAssets() *Assets {
	a := &Assets{byName: map[string][]byte{}}
	a.loader = must(static.ReadFile("static/widget.js"))
	a.loaderETag = `"` + hash(a.loader) + `"`
	a.js = a.hashed("frame.js")
	a.css = a.hashed("frame.css")
	a.page = template.Must(template.New("frame").Parse(string(must(static.ReadFile("static/frame.html")))))
	return a
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic("widget: embedded file: " + err.Error())
	}
	return b
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// hashed registers a static file under "name.<hash>.ext" and answers its URL.
func (a *Assets) hashed(name string) string {
	b := must(static.ReadFile("static/" + name))
	ext := path.Ext(name)
	n := strings.TrimSuffix(name, ext) + "." + hash(b) + ext
	a.byName[n] = b
	return AssetPrefix + n
}

// Loader serves /widget.js: small, revalidated by its hash after an hour (the URL a site
// embeds never changes, so it cannot be cached for ever).
func (a *Assets) Loader(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("ETag", a.loaderETag)
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == a.loaderETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(a.loader)
}

// Asset serves a hashed asset for a year; an unknown name is not_found.
func (a *Assets) Asset(w http.ResponseWriter, name string) error {
	b, ok := a.byName[name]
	if !ok {
		return app.NotFound("asset")
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
	return nil
}

// Page serves the chat page of the iframe. Its Content-Security-Policy allows nothing but
// this server's own script, style and API, and lets only the widget's allowed_origins frame
// it (any site when the list is empty).
func (a *Assets) Page(w http.ResponseWriter, d app.Deployment, asst app.Assistant) error {
	var b bytes.Buffer
	name := asst.Name
	if err := a.page.Execute(&b, map[string]string{"Name": name, "ID": d.ID, "JS": a.js, "CSS": a.css}); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Security-Policy", CSP(d.AllowedOrigins()))
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b.Bytes())
	return nil
}

// CSP is the page's Content-Security-Policy for a widget's allowed origins.
func CSP(origins []string) string {
	ancestors := "*"
	if len(origins) > 0 {
		ancestors = strings.Join(origins, " ")
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; media-src blob:; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors " + ancestors
}
