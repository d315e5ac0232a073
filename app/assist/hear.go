package assist

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"wsapi/app"
	"wsapi/app/voice"
)

// CouldNotHear is the answer when the contact's last message was audio that could not be
// transcribed: the run makes no model call, and the message keeps its error.
const CouldNotHear = "Sorry, I could not hear your voice message. Could you write it instead?"

// MaxSpokenCharacters bounds the text sent to speech synthesis (OpenAI's /audio/speech limit).
const MaxSpokenCharacters = 4096

// hear transcribes the contact's messages of this run that hold audio and no transcript yet,
// with the assistant's stt model, before the prompt is built. It answers whether the last
// of them could not be heard (the run then answers CouldNotHear).
func (r *Runner) hear(ctx context.Context, job app.RunJob, in *app.RunInput) (deaf bool) {
	model := in.Assistant.Config.STT.Model
	if model == "" {
		return false
	}
	for _, i := range unheard(in.History) {
		m := &in.History[i]
		h := r.transcribe(ctx, job, model, *m)
		if err := r.Service.RecordHearing(ctx, job, m.ID, h); err != nil {
			r.Log.Error("assistants: record transcription", "message", m.ID, "err", err)
		}
		if h.Error != "" {
			r.Log.Warn("assistants: audio not transcribed", "org", job.OrgID, "message", m.ID, "model", model, "err", h.Error)
			m.Error = &h.Error
			deaf = i == len(in.History)-1
			continue
		}
		last := &m.Messages[len(m.Messages)-1]
		last.Parts = append(last.Parts, h.Parts...)
	}
	return deaf
}

// unheard answers the indexes of the contact's latest messages (those after the last message
// of anyone else) that hold audio, have no transcript and no error.
func unheard(history []app.Message) []int {
	var out []int
	for i := len(history) - 1; i >= 0 && history[i].Role == "user"; i-- {
		m := history[i]
		if m.Error == nil && len(audioParts(m)) > 0 && !transcribed(m) {
			out = append([]int{i}, out...)
		}
	}
	return out
}

// audioParts are a message's audio: media chunks, and files whose type is audio (a voice
// note from a channel, a widget recording).
func audioParts(m app.Message) []*app.Audio {
	var out []*app.Audio
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			switch {
			case p.Type == "audio" && p.Audio != nil:
				out = append(out, p.Audio)
			case p.Type == "file" && p.File != nil && strings.HasPrefix(p.File.FileMimetype, "audio/"):
				out = append(out, p.File)
			}
		}
	}
	return out
}

// transcribed tells a heard message: a transcript's text parts carry their timing.
func transcribed(m app.Message) bool {
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Type == "text" && p.StartTimestamp != nil {
				return true
			}
		}
	}
	return false
}

// transcribe reads a message's audio, wraps it and sends it to the model's provider.
func (r *Runner) transcribe(ctx context.Context, job app.RunJob, model string, m app.Message) app.Hearing {
	h := app.Hearing{Model: model}
	client, id, err := r.voice(model)
	if err != nil {
		h.Error = err.Error()
		return h
	}
	var chunks []voice.Chunk
	for _, a := range audioParts(m) {
		f, err := r.Service.GetFile(ctx, job.OrgID, job.ChatID, a.ID)
		if err != nil {
			h.Error = "the audio file " + a.ID + " cannot be read: " + err.Error()
			return h
		}
		chunks = append(chunks, voice.Chunk{Mimetype: f.FileMimetype, Data: f.Data})
	}
	clips, err := voice.Assemble(chunks)
	if err != nil {
		h.Error = err.Error()
		return h
	}
	offset := 0.0
	for _, c := range clips {
		t, err := client.Transcribe(ctx, id, c)
		if err != nil {
			h.Error = "transcription failed: " + r.redact(err.Error())
			return h
		}
		seconds := t.Seconds
		if seconds == 0 {
			seconds = c.Seconds
		}
		h.Parts = append(h.Parts, transcriptParts(t, offset, seconds)...)
		h.Seconds += seconds
		offset += seconds
	}
	return h
}

// transcriptParts are text parts, one per segment with its timing shifted by offset, or one
// for the whole clip when the provider gave no segments.
func transcriptParts(t voice.Transcript, offset, seconds float64) []app.Part {
	var out []app.Part
	for _, s := range t.Segments {
		if text := strings.TrimSpace(s.Text); text != "" {
			out = append(out, timedText(text, offset+s.Start, offset+s.End))
		}
	}
	if len(out) == 0 {
		out = append(out, timedText(t.Text, offset, offset+seconds))
	}
	return out
}

func timedText(text string, start, end float64) app.Part {
	return app.Part{Type: "text", Text: text, StartTimestamp: &start, EndTimestamp: &end}
}

// speak synthesizes a completed answer when the assistant has a tts model and the contact
// spoke; a failure leaves the answer as text only.
func (r *Runner) speak(ctx context.Context, job app.RunJob, in app.RunInput, out *app.RunOutcome) {
	tts := in.Assistant.Config.TTS
	if tts.Model == "" || out.Status != "COMPLETED" || strings.TrimSpace(out.Text) == "" || !contactSpoke(in.History) {
		return
	}
	client, id, err := r.voice(tts.Model)
	text := truncateRunes(out.Text, MaxSpokenCharacters)
	var data []byte
	if err == nil {
		data, err = client.Speak(ctx, id, tts.VoiceID, text, "opus")
	}
	if err != nil {
		r.Log.Warn("assistants: answer not spoken", "org", job.OrgID, "message", job.MessageID, "model", tts.Model,
			"err", r.redact(err.Error()))
		return
	}
	out.Speech = &app.Speech{Model: tts.Model, Mimetype: "audio/ogg", Data: data, Characters: utf8.RuneCountInString(text)}
}

// contactSpoke tells whether the contact's last message held audio.
func contactSpoke(history []app.Message) bool {
	n := len(history)
	return n > 0 && history[n-1].Role == "user" && len(audioParts(history[n-1])) > 0
}

func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// voice finds the audio client of a model id <provider>:<model>.
func (r *Runner) voice(model string) (*voice.Client, string, error) {
	name, id, _ := cut(model)
	c, ok := r.Voices[name]
	if !ok {
		return nil, "", fmt.Errorf("no audio provider %q: models.providers.%s must be of type openai", name, name)
	}
	return c, id, nil
}
