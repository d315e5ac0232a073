package apitest

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// AudioServer is a real local HTTP server speaking OpenAI's audio endpoints
// (POST /v1/audio/transcriptions as multipart/form-data, POST /v1/audio/speech as JSON),
// as OpenAI and self-hosted servers such as Speaches serve them. It checks that an uploaded
// file is a container a provider decodes (Ogg, WAV, MP3, ...) by its first bytes, answers
// the scripted transcript, and speaks with the configured audio bytes.
type AudioServer struct {
	URL    string // the base URL to configure (ends in /v1)
	Server *httptest.Server

	mu          sync.Mutex
	transcript  AudioTranscript
	failStatus  int
	speech      []byte
	uploads     []AudioUpload
	speechCalls []map[string]string
}

// AudioTranscript is what the server hears, in verbose_json's shape.
type AudioTranscript struct {
	Text     string         `json:"text"`
	Duration float64        `json:"duration"`
	Segments []AudioSegment `json:"segments"`
}

// AudioSegment is one timed stretch of a transcript.
type AudioSegment struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}

// AudioUpload is one file sent for transcription, with the form's fields.
type AudioUpload struct {
	Filename string
	Data     []byte
	Fields   map[string][]string
	Header   http.Header
}

// NewAudioServer starts the server; speech is what /audio/speech answers.
func NewAudioServer(t testing.TB, speech []byte) *AudioServer {
	t.Helper()
	s := &AudioServer{speech: speech}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcribe)
	mux.HandleFunc("POST /v1/audio/speech", s.speak)
	s.Server = httptest.NewServer(mux)
	s.URL = s.Server.URL + "/v1"
	t.Cleanup(s.Server.Close)
	return s
}

// Hear sets the transcript answered from now on.
func (s *AudioServer) Hear(t AudioTranscript) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transcript = t
}

// Fail makes every call answer status with OpenAI's error body (0: succeed again).
func (s *AudioServer) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failStatus = status
}

// Uploads are the files received for transcription.
func (s *AudioServer) Uploads() []AudioUpload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]AudioUpload(nil), s.uploads...)
}

// SpeechCalls are the JSON bodies received by /audio/speech.
func (s *AudioServer) SpeechCalls() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]string(nil), s.speechCalls...)
}

func (s *AudioServer) failed(w http.ResponseWriter) bool {
	s.mu.Lock()
	status := s.failStatus
	s.mu.Unlock()
	if status == 0 {
		return false
	}
	audioError(w, status, "The server had an error while processing your request.")
	return true
}

func (s *AudioServer) transcribe(w http.ResponseWriter, r *http.Request) {
	if s.failed(w) {
		return
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		audioError(w, 400, "Could not parse multipart form")
		return
	}
	f, h, err := r.FormFile("file")
	if err != nil {
		audioError(w, 400, "you must provide a file")
		return
	}
	data, _ := io.ReadAll(f)
	if !decodable(data) {
		audioError(w, 400, "Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']")
		return
	}
	s.mu.Lock()
	s.uploads = append(s.uploads, AudioUpload{Filename: h.Filename, Data: data, Fields: r.MultipartForm.Value, Header: r.Header.Clone()})
	t := s.transcript
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.FormValue("response_format") != "verbose_json" {
		_ = json.NewEncoder(w).Encode(map[string]string{"text": t.Text})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"task": "transcribe", "language": "english", "duration": t.Duration,
		"text": t.Text, "segments": t.Segments})
}

// decodable tells a container by its magic bytes, as a provider's decoder would refuse raw
// samples it cannot frame.
func decodable(b []byte) bool {
	switch {
	case len(b) >= 44 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return binary.LittleEndian.Uint16(b[20:]) == 1 && binary.LittleEndian.Uint32(b[40:]) == uint32(len(b)-44)
	case len(b) >= 36 && string(b[:4]) == "OggS":
		return string(b[28:36]) == "OpusHead"
	case len(b) >= 4 && string(b[:4]) == "\x1a\x45\xdf\xa3": // EBML: a WebM recording
		return true
	case len(b) >= 3 && (string(b[:3]) == "ID3" || b[0] == 0xff && b[1]&0xe0 == 0xe0):
		return true
	}
	return false
}

func (s *AudioServer) speak(w http.ResponseWriter, r *http.Request) {
	if s.failed(w) {
		return
	}
	var body map[string]string
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["input"] == "" || body["model"] == "" {
		audioError(w, 400, "input and model are required")
		return
	}
	s.mu.Lock()
	s.speechCalls = append(s.speechCalls, body)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "audio/ogg")
	_, _ = w.Write(s.speech)
}

func audioError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error",
		"param": nil, "code": nil}})
}
