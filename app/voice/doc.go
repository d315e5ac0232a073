// Package voice lets assistants hear and speak: it wraps a contact's audio into a file a
// speech-to-text provider accepts (raw PCM and G.711 mu-law into WAV, raw or RTP-framed Opus
// packets into Ogg), and talks to OpenAI-compatible audio endpoints
// (POST /audio/transcriptions and POST /audio/speech), which OpenAI and self-hosted servers
// such as Speaches serve alike. It knows nothing of chats: app/assist decides when a message
// is heard and when an answer is spoken, and package app stores the result.
package voice
