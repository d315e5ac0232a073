package app

import (
	"context"
	"time"
)

// Hearing is what the transcription of a contact's audio came to, before the run that
// answers it: text parts with their timing, or the error that left the audio unheard.
type Hearing struct {
	Model   string
	Parts   []Part
	Seconds float64
	Error   string
}

// Speech is an assistant's answer spoken (the assistant's tts), stored as the reply's audio.
type Speech struct {
	Model      string
	Mimetype   string
	Data       []byte
	Characters int
}

// RecordHearing writes a transcription onto the contact's message: its text parts (so the
// prompt, the inbox and search see them) or its error, with the seconds in the usage ledger.
func (s *Service) RecordHearing(ctx context.Context, job RunJob, messageID string, h Hearing) error {
	now := s.now()
	return s.d.Store.Write(ctx, func(tx Tx) error {
		m, err := tx.GetMessage(job.OrgID, job.ChatID, messageID)
		if err != nil {
			return ignoreNotFound(err) // deleted with its chat meanwhile
		}
		if h.Error != "" {
			m.Error = &h.Error
		} else if len(m.Messages) > 0 {
			last := &m.Messages[len(m.Messages)-1]
			last.Parts = append(last.Parts, h.Parts...)
		}
		m.UpdatedAt = now
		if err := tx.UpdateMessage(job.OrgID, m); err != nil {
			return err
		}
		if h.Seconds > 0 {
			if err := s.chargeAudio(tx, job, messageID, UsageEntry{Model: h.Model, AudioSeconds: h.Seconds}, now); err != nil {
				return err
			}
		}
		return s.EmitStream(tx, job.OrgID, job.ChatID, StreamMessageUpdated, m)
	})
}

// attachSpeech stores a run's spoken answer with the chat and adds it to the reply as an
// audio part, before the reply is delivered (so a channel sends voice and text together).
func (s *Service) attachSpeech(tx Tx, job RunJob, m *Message, sp *Speech, now Time) error {
	if sp == nil || m.Status != "COMPLETED" {
		return nil
	}
	id := NewID("file")
	name := id + extensionOf(sp.Mimetype)
	f := ChatFile{ChatID: job.ChatID, MessageID: m.ID, Data: sp.Data, Audio: Audio{ID: id, FileFilename: name,
		FilePath: "chats/" + job.ChatID + "/" + name, FileSize: int64(len(sp.Data)), FileMimetype: sp.Mimetype,
		FileURL: s.d.Links.ChatFile(job.OrgID, job.ChatID, id), CreatedAt: now}}
	if err := tx.CreateFile(job.OrgID, f); err != nil {
		return err
	}
	appendAudio(m, f.Audio)
	return s.chargeAudio(tx, job, m.ID, UsageEntry{Model: sp.Model, SpeechCharacters: float64(sp.Characters)}, now)
}

func extensionOf(mimetype string) string {
	if mimetype == "audio/mpeg" {
		return ".mp3"
	}
	return ".ogg"
}

// chargeAudio records seconds heard or characters spoken in the ledger, priced by the
// model's audio prices, and takes the cost from the balance.
func (s *Service) chargeAudio(tx Tx, job RunJob, messageID string, e UsageEntry, now Time) error {
	e.OrgID, e.Day, e.AssistantID, e.ChatID, e.MessageID, e.CreatedAt = job.OrgID, now.Format(time.DateOnly),
		job.AssistantID, job.ChatID, messageID, now
	e.Cost = s.price(e.Model).AudioCost(e.AudioSeconds, e.SpeechCharacters)
	if err := tx.RecordUsage([]UsageEntry{e}); err != nil {
		return err
	}
	if e.Cost == 0 {
		return nil
	}
	return tx.ChargeOrg(job.OrgID, e.Cost)
}
