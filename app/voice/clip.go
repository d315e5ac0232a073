package voice

import (
	"bytes"
	"encoding/binary"
	"errors"
	"mime"
	"strconv"
	"strings"
)

// Chunk is one stored piece of a contact's audio: a file of a message, by its MIME type.
// Raw formats carry their parameters in the type (audio/L16;rate=16000;channels=1, as
// app.AudioMimetype writes them).
type Chunk struct {
	Mimetype string
	Data     []byte
}

// Clip is audio ready for a provider: a file in a container it accepts. Seconds is its
// length when it can be told from the data (raw formats), else 0.
type Clip struct {
	Filename string
	Mimetype string
	Data     []byte
	Seconds  float64
}

// Raw MIME types the spec's media formats are stored under (app.MediaFormats).
const (
	typePCM  = "audio/l16"   // pcm-raw: signed 16-bit little-endian samples
	typeULaw = "audio/basic" // mulaw: G.711 mu-law bytes
	typeOpus = "audio/opus"  // opus-raw (one Opus packet a chunk) or, with framing=rtp, opus-rtp
)

// ErrNoAudio is answered when no chunk holds audio.
var ErrNoAudio = errors.New("the message holds no audio")

// Assemble turns a message's chunks into clips: consecutive raw chunks of one type become
// one clip in a container (WAV for PCM and mu-law, Ogg for Opus packets); every other chunk
// (a voice note, an uploaded file) is a clip as it is.
func Assemble(chunks []Chunk) ([]Clip, error) {
	var out []Clip
	for i := 0; i < len(chunks); {
		j := i + 1
		if isRaw(chunks[i].Mimetype) {
			for j < len(chunks) && chunks[j].Mimetype == chunks[i].Mimetype {
				j++
			}
		}
		c, err := wrap(chunks[i:j])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		i = j
	}
	if len(out) == 0 {
		return nil, ErrNoAudio
	}
	return out, nil
}

func isRaw(mimetype string) bool {
	t, _, _ := mime.ParseMediaType(mimetype)
	return t == typePCM || t == typeULaw || t == typeOpus
}

func wrap(chunks []Chunk) (Clip, error) {
	t, params, err := mime.ParseMediaType(chunks[0].Mimetype)
	if err != nil {
		return Clip{}, errors.New("the audio's type " + strconv.Quote(chunks[0].Mimetype) + " cannot be read")
	}
	rate, channels := param(params, "rate", 0), param(params, "channels", 1)
	switch t {
	case typePCM:
		return pcmClip(concat(chunks), orDefault(rate, 16000), channels), nil
	case typeULaw:
		return pcmClip(ulawToPCM(concat(chunks)), orDefault(rate, 8000), channels), nil
	case typeOpus:
		packets := make([][]byte, 0, len(chunks))
		for _, c := range chunks {
			p := c.Data
			if params["framing"] == "rtp" {
				if p, err = rtpPayload(p); err != nil {
					return Clip{}, err
				}
			}
			packets = append(packets, p)
		}
		return oggOpusClip(packets, channels)
	}
	return Clip{Filename: "audio" + extension(t), Mimetype: t, Data: chunks[0].Data}, nil
}

func concat(chunks []Chunk) []byte {
	var b bytes.Buffer
	for _, c := range chunks {
		b.Write(c.Data)
	}
	return b.Bytes()
}

func param(params map[string]string, name string, def int) int {
	if n, err := strconv.Atoi(params[name]); err == nil && n > 0 && n <= 384000 {
		return n
	}
	return def
}

func orDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// extension names a container the providers recognize by file name.
func extension(mimetype string) string {
	switch strings.ToLower(mimetype) {
	case "audio/ogg", "audio/opus", "application/ogg":
		return ".ogg"
	case "audio/mpeg", "audio/mp3":
		return ".mp3"
	case "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac":
		return ".m4a"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "audio/webm", "video/webm":
		return ".webm"
	case "audio/flac":
		return ".flac"
	}
	return ".bin"
}

// pcmClip puts 16-bit little-endian samples into a WAV file.
func pcmClip(samples []byte, rate, channels int) Clip {
	samples = samples[:len(samples)&^1]
	var b bytes.Buffer
	h := struct {
		Riff          [4]byte
		Size          uint32
		Wave, Fmt     [4]byte
		FmtSize       uint32
		Format, Chans uint16
		Rate, ByteRt  uint32
		Align, Bits   uint16
		Data          [4]byte
		DataSize      uint32
	}{[4]byte{'R', 'I', 'F', 'F'}, uint32(36 + len(samples)), [4]byte{'W', 'A', 'V', 'E'}, [4]byte{'f', 'm', 't', ' '},
		16, 1, uint16(channels), uint32(rate), uint32(rate * channels * 2), uint16(channels * 2), 16,
		[4]byte{'d', 'a', 't', 'a'}, uint32(len(samples))}
	_ = binary.Write(&b, binary.LittleEndian, h) // a bytes.Buffer does not fail
	b.Write(samples)
	return Clip{Filename: "audio.wav", Mimetype: "audio/wav", Data: b.Bytes(),
		Seconds: float64(len(samples)) / float64(rate*channels*2)}
}

// ulawToPCM expands G.711 mu-law bytes into 16-bit little-endian samples (ITU-T G.711).
func ulawToPCM(in []byte) []byte {
	out := make([]byte, 2*len(in))
	for i, u := range in {
		u = ^u
		t := (int16(u&0x0f)<<3 + 0x84) << ((u & 0x70) >> 4)
		s := t - 0x84
		if u&0x80 != 0 {
			s = -s
		}
		binary.LittleEndian.PutUint16(out[2*i:], uint16(s))
	}
	return out
}

// rtpPayload strips an RTP header (RFC 3550: fixed part, CSRCs, extension, padding).
func rtpPayload(p []byte) ([]byte, error) {
	bad := errors.New("an opus-rtp chunk is not an RTP packet")
	if len(p) < 12 || p[0]>>6 != 2 {
		return nil, bad
	}
	n := 12 + 4*int(p[0]&0x0f)
	if p[0]&0x10 != 0 { // extension: 4 bytes of header, then its length in 32-bit words
		if len(p) < n+4 {
			return nil, bad
		}
		n += 4 + 4*int(binary.BigEndian.Uint16(p[n+2:]))
	}
	end := len(p)
	if p[0]&0x20 != 0 && end > 0 { // padding: its length is the last byte
		end -= int(p[end-1])
	}
	if n > end {
		return nil, bad
	}
	return p[n:end], nil
}
