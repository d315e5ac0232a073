package assist_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// voiceWorld is a world whose assistant hears with voice:whisper-1 and speaks with
// voice:tts-1 through a local OpenAI-compatible audio server, answering with the built-in
// model.
func voiceWorld(t *testing.T, speak bool) (*world, *apitest.AudioServer) {
	t.Helper()
	ogg, err := os.ReadFile("../voice/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	audio := apitest.NewAudioServer(t, ogg)
	e := newEnv(t, func(c *cli.Config) {
		c.Models.Providers = map[string]cli.ModelProvider{"voice": {Type: "openai", BaseURL: audio.URL, APIKey: testKey}}
		c.Models.Prices = map[string]app.Price{"voice:whisper-1": {AudioMinute: 6}, "voice:tts-1": {SpeechMillionChars: 15e6}}
	})
	config := map[string]any{"model": "builtin:retrieval", "stt": map[string]any{"model": "voice:whisper-1"}}
	if speak {
		config["tts"] = map[string]any{"model": "voice:tts-1", "voice_id": "alloy"}
	}
	w := newWorld(t, e, e.AdminKey, "c", config)
	w.learn(t, "Returns", "Orders can be returned within 30 days of delivery.")
	return w, audio
}

// sendMedia posts chunks of one format as media events, then completes the message.
func (w *world) sendMedia(t *testing.T, format string, rate int, chunks ...[]byte) string {
	t.Helper()
	var id string
	for _, c := range chunks {
		m := w.e.Do("POST", w.path("/chats/"+w.chat+"/events"), w.key, map[string]any{"type": "media", "data": map[string]any{
			"audio": base64.StdEncoding.EncodeToString(c), "format": format, "sampleRate": rate, "channels": 1}}).Expect(200).Map()
		id = m["id"].(string)
	}
	w.e.Do("PATCH", w.path("/chats/"+w.chat+"/messages/"+id), w.key, map[string]any{"status": "COMPLETED"}).Expect(200)
	return id
}

// A contact speaks in mu-law (two media events, 8 kHz): the audio is wrapped into one WAV
// file, transcribed before the run with segment timing, answered from knowledge, spoken back
// as Ogg/Opus, and the seconds and characters are counted and priced in usage.
func TestMulawMediaIsHeardAnsweredAndSpoken(t *testing.T) {
	t.Parallel()
	w, audio := voiceWorld(t, true)
	audio.Hear(apitest.AudioTranscript{Text: "How long do I have to return my order?", Duration: 2,
		Segments: []apitest.AudioSegment{{Start: 0, End: 1.2, Text: " How long do I have"}, {Start: 1.2, End: 2, Text: " to return my order?"}}})
	before := w.e.Do("GET", "/orgs/c", w.key, nil).Map()["balance"].(float64)
	silence := bytes.Repeat([]byte{0xff}, 8000)
	id := w.sendMedia(t, "mulaw", 8000, silence, silence)
	w.debounce()
	reply := w.reply(t, 1)
	if reply.Status != "COMPLETED" || !strings.Contains(text(reply), "30 days") {
		t.Fatalf("reply %s %q", reply.Status, text(reply))
	}
	ups := audio.Uploads()
	if len(ups) != 1 {
		t.Fatalf("%d uploads", len(ups))
	}
	wav := ups[0].Data
	if ups[0].Filename != "audio.wav" || binary.LittleEndian.Uint32(wav[24:]) != 8000 || len(wav) != 44+2*16000 ||
		ups[0].Fields["model"][0] != "whisper-1" || ups[0].Header.Get("Authorization") != "Bearer "+testKey {
		t.Fatalf("upload %s, %d bytes, rate %d, fields %v", ups[0].Filename, len(wav), binary.LittleEndian.Uint32(wav[24:]), ups[0].Fields)
	}
	heard := w.message(t, id)
	var timed []app.Part
	for _, p := range heard.Messages[len(heard.Messages)-1].Parts {
		if p.Type == "text" {
			timed = append(timed, p)
		}
	}
	if len(timed) != 2 || timed[1].Text != "to return my order?" || *timed[1].StartTimestamp != 1.2 || *timed[1].EndTimestamp != 2 || heard.Error != nil {
		t.Fatalf("transcript parts %+v, error %v", timed, heard.Error)
	}
	var spoken *app.Audio
	for _, p := range reply.Messages[len(reply.Messages)-1].Parts {
		if p.Type == "audio" {
			spoken = p.Audio
		}
	}
	calls := audio.SpeechCalls()
	if spoken == nil || spoken.FileMimetype != "audio/ogg" || len(calls) != 1 || calls[0]["voice"] != "alloy" ||
		calls[0]["response_format"] != "opus" || calls[0]["input"] != text(reply) {
		t.Fatalf("spoken %+v, speech calls %v", spoken, calls)
	}
	var rows []app.UsageRow
	w.e.Do("GET", "/orgs/c/usage", w.key, nil).Expect(200).JSON(&rows)
	got := map[string]app.UsageRow{}
	for _, r := range rows {
		got[r.Model] = r
	}
	chars := float64(len([]rune(text(reply))))
	if got["voice:whisper-1"].AudioSeconds != 2 || got["voice:tts-1"].SpeechCharacters != chars {
		t.Fatalf("usage %+v", rows)
	}
	after := w.e.Do("GET", "/orgs/c", w.key, nil).Map()["balance"].(float64)
	if want := 2.0/60*6 + chars*15; !near(before-after, want) {
		t.Fatalf("charged %v, want %v", before-after, want)
	}
}

// When the provider fails, the audio stays, the message carries the error, and the
// assistant says it could not hear; a typed message later is answered normally.
func TestUnheardAudioGetsTheFallbackAnswer(t *testing.T) {
	t.Parallel()
	w, audio := voiceWorld(t, true)
	audio.Fail(500)
	id := w.sendMedia(t, "pcm-raw", 16000, make([]byte, 3200))
	w.debounce()
	reply := w.reply(t, 1)
	heard := w.message(t, id)
	if reply.Status != "COMPLETED" || text(reply) != "Sorry, I could not hear your voice message. Could you write it instead?" ||
		heard.Error == nil || !strings.Contains(*heard.Error, "500") || len(audio.SpeechCalls()) != 0 {
		t.Fatalf("reply %s %q, message error %v", reply.Status, text(reply), heard.Error)
	}
	if n := len(heard.Messages[0].Parts); n != 1 || heard.Messages[0].Parts[0].Type != "audio" {
		t.Fatalf("the audio must stay: %+v", heard.Messages[0].Parts)
	}
	audio.Fail(0)
	w.say(t, "user", "How long can I return an order?")
	w.debounce()
	if r := w.reply(t, 2); !strings.Contains(text(r), "30 days") {
		t.Fatalf("typed reply %q", text(r))
	}
	if len(audio.SpeechCalls()) != 0 {
		t.Fatal("a typed message is answered in text only")
	}
}

// An Opus voice note arriving as RTP packets is wrapped into Ogg before it is sent.
func TestOpusRTPMediaIsWrappedInOgg(t *testing.T) {
	t.Parallel()
	w, audio := voiceWorld(t, false)
	audio.Hear(apitest.AudioTranscript{Text: "Hello", Duration: 0.04})
	// Two RTP packets with a 20 ms CELT frame each (TOC config 31, code 0).
	pkt := func(seq byte) []byte { return []byte{0x80, 111, 0, seq, 0, 0, 0, seq, 1, 2, 3, 4, 0xf8, 0xff, 0xfe} }
	w.sendMedia(t, "opus-rtp", 48000, pkt(1), pkt(2))
	w.debounce()
	w.reply(t, 1)
	ups := audio.Uploads()
	if len(ups) != 1 || ups[0].Filename != "audio.ogg" || !bytes.HasPrefix(ups[0].Data, []byte("OggS")) {
		t.Fatalf("uploads %+v", ups)
	}
}

// message reads one message of the chat.
func (w *world) message(t *testing.T, id string) app.Message {
	t.Helper()
	for _, m := range w.messages(t) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("message %s not found", id)
	return app.Message{}
}
