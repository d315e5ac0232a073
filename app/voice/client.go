package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"
)

// Client calls one configured provider's audio endpoints. BaseURL includes the API version
// path (https://api.openai.com/v1), as for chat models.
type Client struct {
	BaseURL string
	APIKey  string
	// HTTP is the client for the calls (nil: a fresh one); Timeout bounds each call.
	HTTP    *http.Client
	Timeout time.Duration
}

// MaxAnswerBytes bounds what a provider may send back (a spoken answer, a transcript).
const MaxAnswerBytes = 25 << 20

// Segment is a stretch of a transcript with its time in the audio, in seconds.
type Segment struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}

// Transcript is what a provider heard. Seconds is the audio's length when the provider
// reports it (verbose_json), else 0.
type Transcript struct {
	Text     string    `json:"text"`
	Seconds  float64   `json:"duration"`
	Segments []Segment `json:"segments"`
}

// Transcribe sends a clip to POST /audio/transcriptions. It asks for verbose_json (segments
// with their timing); a server that refuses that format is asked again for plain json.
func (c *Client) Transcribe(ctx context.Context, model string, clip Clip) (Transcript, error) {
	t, err := c.transcribe(ctx, model, clip, "verbose_json")
	var pe *ProviderError
	if errors.As(err, &pe) && pe.Status == http.StatusBadRequest && strings.Contains(pe.Message, "response_format") {
		t, err = c.transcribe(ctx, model, clip, "json")
	}
	return t, err
}

func (c *Client) transcribe(ctx context.Context, model string, clip Clip, format string) (t Transcript, err error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, err := w.CreateFormFile("file", clip.Filename)
	if err != nil {
		return t, err
	}
	if _, err := fw.Write(clip.Data); err != nil {
		return t, err
	}
	fields := [][2]string{{"model", model}, {"response_format", format}}
	if format == "verbose_json" {
		fields = append(fields, [2]string{"timestamp_granularities[]", "segment"})
	}
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return t, err
		}
	}
	if err := w.Close(); err != nil {
		return t, err
	}
	answer, err := c.post(ctx, "/audio/transcriptions", w.FormDataContentType(), &body)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(answer, &t); err != nil {
		return t, fmt.Errorf("the transcription answer is not the expected JSON: %w", err)
	}
	t.Text = strings.TrimSpace(t.Text)
	return t, nil
}

// Speak sends text to POST /audio/speech and answers the audio in format ("opus": Ogg/Opus,
// what Telegram and WhatsApp play as a voice note; "mp3", "wav", ...).
func (c *Client) Speak(ctx context.Context, model, voiceID, text, format string) ([]byte, error) {
	req, err := json.Marshal(map[string]string{"model": model, "input": text, "voice": voiceID, "response_format": format})
	if err != nil {
		return nil, err
	}
	return c.post(ctx, "/audio/speech", "application/json", bytes.NewReader(req))
}

// post makes one call and answers the body of a 2xx, else a *ProviderError.
func (c *Client) post(ctx context.Context, path, contentType string, body io.Reader) ([]byte, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &ProviderError{Message: "the audio provider could not be reached: " + redactURL(err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	if err != nil {
		return nil, &ProviderError{Status: resp.StatusCode, Message: "reading the audio provider's answer: " + err.Error()}
	}
	if len(data) > MaxAnswerBytes {
		return nil, &ProviderError{Status: resp.StatusCode, Message: "the audio provider's answer is over 25 MiB"}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &ProviderError{Status: resp.StatusCode, Message: errorMessage(data)}
	}
	return data, nil
}

// ProviderError is a failed call: the provider's status (0 when it was not reached) and what
// it said.
type ProviderError struct {
	Status  int
	Message string
}

func (e *ProviderError) Error() string {
	if e.Status == 0 {
		return e.Message
	}
	return fmt.Sprintf("the audio provider answered %d: %s", e.Status, e.Message)
}

// errorMessage reads OpenAI's {"error": {"message"}} shape, else the start of the body.
func errorMessage(data []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// redactURL keeps an error's reason without the URL, which may name a host the client
// should not learn of.
func redactURL(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap().Error()
	}
	return err.Error()
}
