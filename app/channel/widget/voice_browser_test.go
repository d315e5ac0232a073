package widget_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"wsapi/app/apitest"
	"wsapi/app/browsertest"
	"wsapi/cli"
)

// A visitor taps the microphone, speaks (Chromium's fake microphone), taps again: the
// recording is sent as a WebM file, transcribed by a local OpenAI-compatible audio server,
// answered from knowledge, and the spoken answer plays in the widget.
func TestWidgetVoiceInABrowser(t *testing.T) {
	t.Parallel()
	ogg, err := os.ReadFile("../../voice/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	audio := apitest.NewAudioServer(t, ogg)
	audio.Hear(apitest.AudioTranscript{Text: "What are your opening hours?", Duration: 1})
	e := apitest.New(t, apitest.Unlimited, func(c *cli.Config) {
		c.Models.Providers = map[string]cli.ModelProvider{"voice": {Type: "openai", BaseURL: audio.URL, APIKey: apitest.TestProviderKey}}
	})
	var a, k, d map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Aria", "config": map[string]any{
		"stt": map[string]any{"model": "voice:whisper-1"}, "tts": map[string]any{"model": "voice:tts-1", "voice_id": "alloy"}}}).
		Expect(201).JSON(&a)
	asst := a["id"].(string)
	e.Do("POST", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}).Expect(201).JSON(&k)
	e.Eventually(20*time.Second, "knowledge processed", func() bool {
		var got map[string]any
		e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents/"+k["id"].(string), e.AdminKey, nil).Expect(200).JSON(&got)
		return got["status"] == "PROCESSED"
	})
	e.Do("POST", "/orgs/c/assistants/"+asst+"/integrations", e.AdminKey, map[string]any{"integration_id": "internal",
		"name": "Shop", "config": map[string]any{}}).Expect(201).JSON(&d)
	shop := site(t, e.Server.URL, d["id"].(string))

	ctx := browsertest.New(t)
	do(t, ctx, "open the shop", chromedp.Navigate(shop.URL), chromedp.WaitVisible(chromedp.CSS("button[data-appwidget=launcher]")))
	do(t, ctx, "open the widget", chromedp.Click(chromedp.CSS("button[data-appwidget=launcher]")))
	frameRun(t, ctx, "the microphone shows", func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS("#mic"), o)
	})
	// The session starts once the frame is open (it makes the visitor's contact); a tap before
	// it would be ignored.
	e.Eventually(30*time.Second, "the visitor's session", func() bool { return e.Count(e.AdminKey, "/orgs/c/contacts") > 0 })
	frameRun(t, ctx, "tap to record", func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS("#mic"), o)
	})
	frameRun(t, ctx, "recording", func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS("#mic.rec"), o)
	})
	time.Sleep(time.Second) // one second of the fake microphone's tone is recorded
	frameRun(t, ctx, "tap to send", func(o chromedp.QueryOption) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS("#mic"), o)
	})
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the debounce passes on the service's clock until the answer is in
		for tick := time.NewTicker(200 * time.Millisecond); ; {
			select {
			case <-stop:
				tick.Stop()
				return
			case <-tick.C:
				e.Clock.Advance(time.Second)
			}
		}
	}()
	// The answer, read through the API first: on a loaded machine this can take a while, and
	// when it does not come, the failure says where it stopped.
	var inbox []map[string]any
	answered := func() bool {
		e.Do("GET", "/orgs/c/inbox?assistant_integration_id="+d["id"].(string), e.AdminKey, nil).Expect(200).JSON(&inbox)
		if len(inbox) != 1 {
			return false
		}
		var ms []map[string]any
		e.Do("GET", "/orgs/c/chats/"+inbox[0]["id"].(string)+"/messages", e.AdminKey, nil).Expect(200).JSON(&ms)
		last := ms[len(ms)-1]
		if last["role"] != "assistant" || last["status"] != "COMPLETED" {
			return false
		}
		if b, _ := json.Marshal(last); !strings.Contains(string(b), "nine to five") {
			all, _ := json.Marshal(ms)
			t.Fatalf("the answer is not the one from knowledge; %d uploads to the audio server; messages %s", len(audio.Uploads()), all)
		}
		return true
	}
	for deadline := time.Now().Add(60 * time.Second); !answered(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no completed answer: %d chats, %d uploads to the audio server", len(inbox), len(audio.Uploads()))
		}
	}
	frameText(t, ctx, ".msg.assistant", "nine to five")
	src := frameRun(t, ctx, "the spoken answer loads", func(o chromedp.QueryOption) chromedp.Action[chromedp.AttributeResult] {
		return chromedp.AttributeValue(chromedp.CSS(`.msg.assistant audio[src^="blob:"]`), "src", o)
	}).Value
	ups := audio.Uploads()
	if len(ups) != 1 || ups[0].Filename != "audio.webm" || !bytes.HasPrefix(ups[0].Data, []byte("\x1a\x45\xdf\xa3")) || len(ups[0].Data) < 2000 {
		t.Fatalf("uploads %d", len(ups))
	}
	if calls := audio.SpeechCalls(); len(calls) != 1 || !strings.Contains(calls[0]["input"], "nine to five") || src == "" {
		t.Fatalf("speech calls %v, player %q", calls, src)
	}
	browsertest.Screenshot(t, ctx, "widget-voice", 1280)
}
