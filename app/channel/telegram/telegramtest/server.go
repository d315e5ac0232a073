package telegramtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// Server is a Bot API server holding bots by token.
type Server struct {
	*httptest.Server

	mu      sync.Mutex
	bots    map[string]*Bot
	files   map[string]file // by file_id
	fails   []failure
	blocked map[string]bool // chat ids that blocked every bot
	nextID  int64
	calls   []Call
}

// Bot is one bot's state.
type Bot struct {
	ID       int64
	Username string
	Webhook  string
	Secret   string
	Allowed  []string
}

// Call is one method call a bot made, with its parameters (files by field: name and bytes).
type Call struct {
	At     time.Time
	Token  string
	Method string
	Params map[string]string
	Files  map[string]Upload
}

// Upload is a file a bot sent.
type Upload struct {
	Name string
	Data []byte
}

type file struct {
	path string
	data []byte
}

type failure struct {
	method      string
	code        int
	description string
	retryAfter  int
}

// New starts a server; it stops with the test.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a server outside a test (benchmarks); Close stops it.
func Start() *Server {
	s := &Server{bots: map[string]*Bot{}, files: map[string]file{}, blocked: map[string]bool{}, nextID: 100}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// AddBot registers a bot token ("<id>:<secret>") under a username.
func (s *Server) AddBot(token, username string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, _ := strconv.ParseInt(strings.SplitN(token, ":", 2)[0], 10, 64)
	s.bots[token] = &Bot{ID: id, Username: username}
}

// Bot answers a copy of a bot's state.
func (s *Server) Bot(token string) Bot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.bots[token]; b != nil {
		return *b
	}
	return Bot{}
}

// AddFile stores a file a user sent and answers its file_id.
func (s *Server) AddFile(path string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	id := "file-" + strconv.FormatInt(s.nextID, 10)
	s.files[id] = file{path: path, data: data}
	return id
}

// Fail makes the next call of method answer an error (retryAfter > 0 adds
// parameters.retry_after).
func (s *Server) Fail(method string, code int, description string, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, failure{method, code, description, retryAfter})
}

// Block makes a user block every bot: sends to the chat answer 403.
func (s *Server) Block(chatID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked[chatID] = true
}

// Calls answers the calls of method made so far ("" for all).
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || strings.EqualFold(c.Method, method) {
			out = append(out, c)
		}
	}
	return out
}

// PostUpdate delivers an update to the bot's webhook as Telegram does, to base (the server
// under test's address) joined with the webhook URL's path: the webhook names the public
// URL, which a test server does not listen on. It answers the HTTP status.
func (s *Server) PostUpdate(base, token string, update any) (int, error) {
	b := s.Bot(token)
	if b.Webhook == "" {
		return 0, fmt.Errorf("telegramtest: bot %s has no webhook", token)
	}
	return s.PostUpdateWith(base, b.Webhook, b.Secret, update)
}

// PostUpdateWith posts update to base + the path of webhook with a secret header of choice.
func (s *Server) PostUpdateWith(base, webhook, secret string, update any) (int, error) {
	u, err := url.Parse(webhook)
	if err != nil {
		return 0, err
	}
	body, err := json.Marshal(update)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(base, "/")+u.Path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Units counts text as Telegram does, in UTF-16 code units.
func Units(text string) int { return len(utf16.Encode([]rune(text))) }
