package whatsapptest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is one WhatsApp Business phone number behind a local Graph API.
type Server struct {
	*httptest.Server
	PhoneNumberID string
	Token         string

	mu      sync.Mutex
	sent    []Sent
	media   map[string]File
	closed  map[string]bool // wa_ids whose 24-hour window Meta says is closed
	changed chan struct{}
}

// Sent is one message body the channel posted, as decoded JSON.
type Sent map[string]any

// File is a media object: uploaded by the channel or offered to it as a contact's media.
type File struct {
	MimeType string
	Name     string
	Data     []byte
}

// New starts a Graph API for phone number id, taking token as the access token.
func New(t testing.TB, phoneNumberID, token string) *Server {
	s := &Server{PhoneNumberID: phoneNumberID, Token: token, media: map[string]File{}, closed: map[string]bool{},
		changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{id}", s.authorized(s.getObject))
	mux.HandleFunc("POST /{id}/messages", s.authorized(s.postMessage))
	mux.HandleFunc("POST /{id}/media", s.authorized(s.postMedia))
	mux.HandleFunc("GET /download/{id}", s.authorized(s.download))
	s.Server = httptest.NewServer(versioned(mux))
	t.Cleanup(s.Close)
	return s
}

// versioned serves the Graph API under any version prefix (/v21.0/...), as Meta does, and
// without one.
func versioned(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/v"); ok {
			if i := strings.IndexByte(rest, '/'); i > 0 && strings.Trim(rest[:i], "0123456789.") == "" {
				r.URL.Path = rest[i:]
			}
		}
		h.ServeHTTP(w, r)
	})
}

// Graph writes Meta's error object.
func Graph(w http.ResponseWriter, status int, code int, typ, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": typ, "code": code,
		"error_subcode": 2494010, "fbtrace_id": "A" + randomID(8)}})
}

func (s *Server) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+s.Token {
			Graph(w, http.StatusUnauthorized, 190, "OAuthException", "Error validating access token: Session has expired or the token is invalid.")
			return
		}
		h(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// getObject answers the phone number, or a media object's download URL.
func (s *Server) getObject(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == s.PhoneNumberID {
		writeJSON(w, map[string]any{"id": id, "display_phone_number": "+1 555 0100", "verified_name": "Test Business"})
		return
	}
	s.mu.Lock()
	f, ok := s.media[id]
	s.mu.Unlock()
	if !ok {
		Graph(w, http.StatusBadRequest, 100, "GraphMethodException",
			"Unsupported get request. Object with ID '"+id+"' does not exist, cannot be loaded due to missing permissions, or does not support this operation.")
		return
	}
	writeJSON(w, map[string]any{"messaging_product": "whatsapp", "url": s.URL + "/download/" + id, "mime_type": f.MimeType,
		"sha256": "", "file_size": len(f.Data), "id": id})
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f, ok := s.media[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.MimeType)
	_, _ = w.Write(f.Data)
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("id") != s.PhoneNumberID {
		Graph(w, http.StatusBadRequest, 100, "GraphMethodException", "Unsupported post request.")
		return
	}
	var body Sent
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		Graph(w, http.StatusBadRequest, 100, "OAuthException", "(#100) Invalid parameter")
		return
	}
	to, _ := body["to"].(string)
	typ, _ := body["type"].(string)
	if body["messaging_product"] != "whatsapp" || to == "" || body[typ] == nil {
		Graph(w, http.StatusBadRequest, 100, "OAuthException", "(#100) Invalid parameter")
		return
	}
	if text, ok := body["text"].(map[string]any); ok && len([]rune(text["body"].(string))) > 4096 {
		Graph(w, http.StatusBadRequest, 100, "OAuthException", "(#100) Param text['body'] must be at most 4096 characters long.")
		return
	}
	s.mu.Lock()
	closed := s.closed[to]
	s.mu.Unlock()
	if closed && typ != "template" {
		Graph(w, http.StatusBadRequest, 131047, "OAuthException",
			"(#131047) Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.")
		return
	}
	id := "wamid." + randomID(16)
	body["id"] = id
	s.record(body)
	writeJSON(w, map[string]any{"messaging_product": "whatsapp", "contacts": []any{map[string]any{"input": to, "wa_id": to}},
		"messages": []any{map[string]any{"id": id}}})
}

func (s *Server) postMedia(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(16 << 20); err != nil || r.FormValue("messaging_product") != "whatsapp" {
		Graph(w, http.StatusBadRequest, 100, "OAuthException", "(#100) The parameter messaging_product is required.")
		return
	}
	f, h, err := r.FormFile("file")
	if err != nil {
		Graph(w, http.StatusBadRequest, 100, "OAuthException", "(#100) The parameter file is required.")
		return
	}
	data, _ := io.ReadAll(f)
	id := s.AddMedia(File{MimeType: r.FormValue("type"), Name: h.Filename, Data: data})
	writeJSON(w, map[string]any{"id": id})
}

// AddMedia stores a media object (what a contact sent) and answers its id.
func (s *Server) AddMedia(f File) string {
	id := randomDigits()
	s.mu.Lock()
	s.media[id] = f
	s.mu.Unlock()
	return id
}

// Media is an uploaded or offered media object.
func (s *Server) Media(id string) (File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.media[id]
	return f, ok
}

// CloseWindow makes Meta refuse free-form messages to waID with 131047, as it does 24 hours
// after the contact's last message.
func (s *Server) CloseWindow(waID string) {
	s.mu.Lock()
	s.closed[waID] = true
	s.mu.Unlock()
}

func (s *Server) record(b Sent) {
	s.mu.Lock()
	s.sent = append(s.sent, b)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// Sent answers the message bodies posted so far.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// WaitSent waits until n messages were posted (failing the test after 10 s) and answers them.
func (s *Server) WaitSent(t testing.TB, n int) []Sent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		got, changed := append([]Sent(nil), s.sent...), s.changed
		s.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("whatsapptest: %d messages posted, want %d: %v", len(got), n, got)
		}
	}
}

// Text is the body text of a text message, "" for another type.
func (b Sent) Text() string {
	t, _ := b["text"].(map[string]any)
	s, _ := t["body"].(string)
	return s
}

// ID is the wamid the server gave the message.
func (b Sent) ID() string { s, _ := b["id"].(string); return s }

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

func randomDigits() string { return fmt.Sprintf("1%015d", mrand.Uint64N(1e15)) }
