package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed static
var staticFS embed.FS

//go:embed templates
var templateFS embed.FS

// asset is one embedded file, served under a name that holds its content's hash
// (app.3f2a9c1b.js), so it can be cached for a year and a new build is never served stale.
type asset struct {
	name   string // the hashed name
	ctype  string
	body   []byte
	gzbody []byte // gzipped once at start
}

type assets struct {
	byHashed map[string]*asset
	byName   map[string]string // "app.js" -> "app.3f2a9c1b.js"
}

// loadAssets answers the embedded files, hashed and gzipped once per process: they never
// change while it runs, and a test binary starts many servers.
var loadAssets = sync.OnceValues(readAssets)

func readAssets() (*assets, error) {
	a := &assets{byHashed: map[string]*asset{}, byName: map[string]string{}}
	entries, err := fs.ReadDir(staticFS, "static")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		ext := path.Ext(e.Name())
		if ext != ".js" && ext != ".css" && ext != ".svg" {
			continue // licenses and notes stay in the source, not on the wire
		}
		body, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		base := strings.TrimSuffix(e.Name(), ext)
		hashed := base + "." + hex.EncodeToString(sum[:5]) + ext
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if _, err := zw.Write(body); err != nil {
			return nil, fmt.Errorf("web: gzip %s: %w", e.Name(), err)
		}
		zw.Close()
		a.byHashed[hashed] = &asset{name: hashed, ctype: mime.TypeByExtension(ext), body: body, gzbody: gz.Bytes()}
		a.byName[e.Name()] = hashed
	}
	return a, nil
}

// URL is the served path of an embedded file by its plain name.
func (a *assets) URL(name string) string {
	h, ok := a.byName[name]
	if !ok {
		panic("web: no asset " + name)
	}
	return "/app/static/" + h
}

// static serves a hashed asset, gzipped when the browser takes it.
func (s *Server) static(rq *Request) error {
	a := s.assets.byHashed[rq.Params.ByName("name")]
	if a == nil {
		http.NotFound(rq.W, rq.R)
		return nil
	}
	h := rq.W.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	body := a.body
	if strings.Contains(rq.R.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.gzbody
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	_, err := rq.W.Write(body)
	return err
}
