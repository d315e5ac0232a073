package assist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"wsapi/app"
	"wsapi/app/webhook"
)

// CallbackSecretKey is the connection secret that signs a callback tool's requests.
const CallbackSecretKey = "signing_secret"

// maxCallbackResponse bounds the answer of a callback read into the model's context.
const maxCallbackResponse = 64 << 10

// toolName is what both model protocols accept as a function name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// callbackTools are the chat's tools with a callback that are on by default; a tool whose
// name the providers would refuse, that shadows a built-in one or whose schema does not
// compile is left out rather than failing the run.
func callbackTools(c app.Chat, builtins map[string]tool, log func(string, ...any)) []tool {
	var out []tool
	for _, t := range c.Tools {
		if t.Callback == "" || !t.EnabledByDefault || !toolName.MatchString(t.Name) {
			continue
		}
		if _, taken := builtins[t.Name]; taken {
			continue
		}
		params, _ := json.Marshal(t.Parameters)
		if t.Parameters == nil {
			params = nil
		}
		tl, err := newTool(ToolSpec{Name: t.Name, Description: t.Description, Parameters: params}, callbackCall(t))
		if err != nil {
			log("assistants: chat tool left out", "chat", c.ID, "tool", t.Name, "err", err)
			continue
		}
		out = append(out, tl)
	}
	return out
}

// callbackBody is what a callback receives.
type callbackBody struct {
	Tool      string          `json:"tool"`
	CallID    string          `json:"call_id"`
	Arguments json.RawMessage `json:"arguments"`
	ChatID    string          `json:"chat_id"`
	ContactID string          `json:"contact_id,omitempty"`
	MessageID string          `json:"message_id"`
}

// callbackCall POSTs the call to the tool's callback, signed like a webhook delivery with
// the connection's signing_secret, through the SSRF-guarded client and its time limit. The
// JSON answer is the result; any failure is an error for the model.
func callbackCall(t app.Tool) func(context.Context, *toolRun, map[string]any) (any, error) {
	return func(ctx context.Context, tr *toolRun, args map[string]any) (any, error) {
		secret, err := tr.callbackSecret(ctx, t)
		if err != nil {
			return nil, err
		}
		rawArgs, _ := json.Marshal(args)
		id := app.NewID("tcall")
		body, _ := json.Marshal(callbackBody{Tool: t.Name, CallID: id, Arguments: rawArgs, ChatID: tr.job.ChatID,
			ContactID: tr.in.Chat.ContactID, MessageID: tr.job.MessageID})
		return tr.post(ctx, t.Callback, secret, id, body)
	}
}

func (tr *toolRun) callbackSecret(ctx context.Context, t app.Tool) (string, error) {
	if t.ConnectionID == "" {
		return "", errors.New("this tool is not configured: its connection_id must name a connection with a " +
			CallbackSecretKey + " secret")
	}
	conn, err := tr.runner.Service.GetConnection(ctx, tr.job.OrgID, t.ConnectionID)
	if err != nil {
		return "", fmt.Errorf("this tool's connection cannot be read: %v", err)
	}
	secret := conn.Secrets[CallbackSecretKey]
	if secret == "" {
		return "", errors.New("this tool's connection has no " + CallbackSecretKey + " secret")
	}
	return secret, nil
}

func (tr *toolRun) post(ctx context.Context, url, secret, id string, body []byte) (any, error) {
	if tr.runner.HTTP == nil {
		return nil, errors.New("callback tools are not available on this server")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("bad callback URL: %v", err)
	}
	ts := tr.runner.cfg.Clock.Now().Unix()
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "workspace-api-tools/1")
	h.Set("x-webhook-id", id)
	h.Set("x-webhook-event", "tool.call")
	h.Set("x-webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("x-webhook-signature", webhook.Sign(secret, id, ts, body))
	res, err := tr.runner.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("callback failed: %s", strings.ReplaceAll(err.Error(), url, "the callback"))
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxCallbackResponse+1))
	if err != nil {
		return nil, fmt.Errorf("callback failed reading the answer: %v", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, fmt.Errorf("callback answered HTTP %d: %s", res.StatusCode, truncate(string(raw), 500))
	}
	if len(raw) > maxCallbackResponse {
		return nil, fmt.Errorf("callback answer is over %d bytes", maxCallbackResponse)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, errors.New("callback answer is not JSON")
	}
	return out, nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
