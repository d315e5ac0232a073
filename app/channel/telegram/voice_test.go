package telegram_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestTelegramVoiceNoteHeardAndAnsweredInVoice is issue 32's "done when": a voice note (a
// real Ogg/Opus file, made by opusenc) is fetched with getFile, transcribed by a local
// OpenAI-compatible audio server, answered from knowledge, and the answer goes back as text
// and as a voice note (sendVoice with the spoken Ogg).
func TestTelegramVoiceNoteHeardAndAnsweredInVoice(t *testing.T) {
	t.Parallel()
	note, err := os.ReadFile("../../voice/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	spoken := append([]byte(nil), note...)
	audio := apitest.NewAudioServer(t, spoken)
	audio.Hear(apitest.AudioTranscript{Text: "When are you open?", Duration: 1.5,
		Segments: []apitest.AudioSegment{{Start: 0, End: 1.5, Text: "When are you open?"}}})
	w := newWorld(t, func(c *cli.Config) {
		c.Models.Providers = map[string]cli.ModelProvider{"voice": {Type: "openai", BaseURL: audio.URL, APIKey: apitest.TestProviderKey}}
	})
	w.e.Do("PATCH", "/orgs/c/assistants/"+w.asst, w.e.AdminKey, map[string]any{"config": map[string]any{
		"stt": map[string]any{"model": "voice:whisper-1"}, "tts": map[string]any{"model": "voice:tts-1", "voice_id": "alloy"}}}).Expect(200)
	id := w.tg.AddFile("voice/file_7.oga", note)
	w.post(t, w.hookPath(t), "", map[string]any{"update_id": 7, "message": message(7, map[string]any{
		"voice": map[string]any{"file_id": id, "file_unique_id": "v7", "duration": 2, "mime_type": "audio/ogg", "file_size": len(note)}})}).Expect(200)
	c := w.chat(t)
	w.e.Clock.Advance(time.Second) // the debounce
	text := w.waitCalls(t, "sendMessage", 1)
	voice := w.waitCalls(t, "sendVoice", 1)
	if !strings.Contains(text[0].Params["text"], "nine to five") || voice[0].Params["chat_id"] != "4242" ||
		!bytes.Equal(voice[0].Files["voice"].Data, spoken) {
		t.Fatalf("sendMessage %v; sendVoice %v with %d bytes", text[0].Params, voice[0].Params, len(voice[0].Files["voice"].Data))
	}
	ups := audio.Uploads()
	if len(ups) != 1 || !bytes.Equal(ups[0].Data, note) || ups[0].Filename != "audio.ogg" {
		t.Fatalf("transcription uploads %d", len(ups))
	}
	ms := w.messages(t, c["id"].(string))
	heard := ms[0]["messages"].([]any)[0].(map[string]any)["parts"].([]any)
	last := heard[len(heard)-1].(map[string]any)
	if last["type"] != "text" || last["text"] != "When are you open?" || last["end_timestamp"] != 1.5 {
		t.Fatalf("the voice note's parts %v", heard)
	}
	w.delivery(t, c["id"].(string), ms[len(ms)-1]["id"].(string), "SENT", "")
	var rows []map[string]any
	w.e.Do("GET", "/orgs/c/usage", w.e.AdminKey, nil).Expect(200).JSON(&rows)
	seconds := 0.0
	for _, r := range rows {
		if r["model"] == "voice:whisper-1" {
			seconds = r["audio_seconds"].(float64)
		}
	}
	if seconds != 1.5 {
		t.Fatalf("usage %v", rows)
	}
}
