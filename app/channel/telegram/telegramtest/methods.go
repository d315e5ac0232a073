package telegramtest

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// answerOK writes {"ok":true,"result":...}.
func answerOK(w http.ResponseWriter, result any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

// answerError writes the Bot API's error shape with the same HTTP status.
func answerError(w http.ResponseWriter, code int, description string, retryAfter int) {
	body := map[string]any{"ok": false, "error_code": code, "description": description}
	if retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(body)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.download(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		answerError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	params, files, err := readParams(r)
	if err != nil {
		answerError(w, http.StatusBadRequest, "Bad Request: "+err.Error(), 0)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	bot := s.bots[token]
	if bot == nil {
		answerError(w, http.StatusUnauthorized, "Unauthorized", 0)
		return
	}
	s.calls = append(s.calls, Call{At: time.Now(), Token: token, Method: method, Params: params, Files: files})
	for i, f := range s.fails {
		if strings.EqualFold(f.method, method) {
			s.fails = append(s.fails[:i], s.fails[i+1:]...)
			answerError(w, f.code, f.description, f.retryAfter)
			return
		}
	}
	s.method(w, bot, strings.ToLower(method), params, files)
}

// method runs one Bot API method (names are case-insensitive); s.mu is held.
func (s *Server) method(w http.ResponseWriter, bot *Bot, method string, p map[string]string, files map[string]Upload) {
	switch method {
	case "getme":
		answerOK(w, map[string]any{"id": bot.ID, "is_bot": true, "first_name": bot.Username, "username": bot.Username})
	case "setwebhook":
		bot.Webhook, bot.Secret = p["url"], p["secret_token"]
		_ = json.Unmarshal([]byte(p["allowed_updates"]), &bot.Allowed)
		answerOK(w, true)
	case "deletewebhook":
		bot.Webhook, bot.Secret = "", ""
		answerOK(w, true)
	case "getfile":
		f, ok := s.files[p["file_id"]]
		if !ok {
			answerError(w, http.StatusBadRequest, "Bad Request: invalid file_id", 0)
			return
		}
		answerOK(w, map[string]any{"file_id": p["file_id"], "file_unique_id": "u" + p["file_id"], "file_size": len(f.data), "file_path": f.path})
	case "sendchataction":
		s.send(w, p, func() { answerOK(w, true) })
	case "sendmessage":
		s.sendMessage(w, p)
	case "senddocument", "sendphoto":
		field := strings.TrimPrefix(method, "send")
		if _, ok := files[field]; !ok && p[field] == "" {
			answerError(w, http.StatusBadRequest, "Bad Request: there is no "+field+" in the request", 0)
			return
		}
		s.send(w, p, func() { answerOK(w, s.message(p["chat_id"], p["caption"])) })
	default:
		answerError(w, http.StatusNotFound, "Not Found: method not found", 0)
	}
}

func (s *Server) sendMessage(w http.ResponseWriter, p map[string]string) {
	text := p["text"]
	switch {
	case strings.TrimSpace(text) == "":
		answerError(w, http.StatusBadRequest, "Bad Request: message text is empty", 0)
	case Units(text) > 4096:
		answerError(w, http.StatusBadRequest, "Bad Request: message is too long", 0)
	default:
		s.send(w, p, func() { answerOK(w, s.message(p["chat_id"], text)) })
	}
}

// send checks the chat (known, not blocked) before ok runs.
func (s *Server) send(w http.ResponseWriter, p map[string]string, ok func()) {
	chat := p["chat_id"]
	switch {
	case chat == "":
		answerError(w, http.StatusBadRequest, "Bad Request: chat_id is empty", 0)
	case s.blocked[chat]:
		answerError(w, http.StatusForbidden, "Forbidden: bot was blocked by the user", 0)
	default:
		ok()
	}
}

// message makes the Message a send answers.
func (s *Server) message(chatID, text string) map[string]any {
	s.nextID++
	id, _ := strconv.ParseInt(chatID, 10, 64)
	return map[string]any{"message_id": s.nextID, "date": 1700000000, "chat": map[string]any{"id": id, "type": "private"}, "text": text}
}

func (s *Server) download(w http.ResponseWriter, rest string) {
	token, path, ok := strings.Cut(rest, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || s.bots[token] == nil {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	for _, f := range s.files {
		if f.path == path {
			w.Write(f.data)
			return
		}
	}
	http.NotFound(w, nil)
}

// readParams reads a method's parameters as the Bot API takes them: the query string,
// application/json, application/x-www-form-urlencoded or multipart/form-data (with files).
// JSON values that are not strings keep their JSON text.
func readParams(r *http.Request) (map[string]string, map[string]Upload, error) {
	p, files := map[string]string{}, map[string]Upload{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			return nil, nil, err
		}
		for k, raw := range m {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				p[k] = s
			} else {
				p[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, nil, err
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(50 << 20); err != nil {
			return nil, nil, err
		}
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
		for k, fhs := range r.MultipartForm.File {
			f, err := fhs[0].Open()
			if err != nil {
				return nil, nil, err
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return nil, nil, err
			}
			files[k] = Upload{Name: fhs[0].Filename, Data: data}
		}
	}
	return p, files, nil
}
