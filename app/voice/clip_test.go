package voice

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The Ogg file opusenc made (testdata/voice.ogg, 1.5 s) is taken apart into its Opus packets,
// which are then wrapped again, raw and RTP-framed: the result is a valid Ogg Opus file of
// the same length.
func TestOpusPacketsWrapIntoOgg(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	packets, granule, err := readOgg(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(packets) < 3 || string(packets[0][:8]) != "OpusHead" || string(packets[1][:8]) != "OpusTags" {
		t.Fatalf("the fixture reads as %d packets", len(packets))
	}
	audio := packets[2:]
	for _, framing := range []string{"", "rtp"} {
		chunks := make([]Chunk, len(audio))
		for i, p := range audio {
			typ := "audio/opus"
			if framing == "rtp" {
				typ, p = "audio/opus;framing=rtp", rtpPacket(uint16(i), p)
			}
			chunks[i] = Chunk{Mimetype: typ, Data: p}
		}
		clips, err := Assemble(chunks)
		if err != nil || len(clips) != 1 {
			t.Fatalf("%q: %d clips, %v", framing, len(clips), err)
		}
		got, g, err := readOgg(clips[0].Data)
		if err != nil {
			t.Fatalf("%q: the written Ogg does not read back: %v", framing, err)
		}
		if len(got) != len(packets) || !bytes.Equal(got[len(got)-1], audio[len(audio)-1]) {
			t.Fatalf("%q: %d packets back, want %d", framing, len(got), len(packets))
		}
		if want := granule; g < want-960 || g > want+960 || clips[0].Seconds < 1.4 || clips[0].Seconds > 1.6 {
			t.Fatalf("%q: granule %d (%.2f s), opusenc's %d", framing, g, clips[0].Seconds, granule)
		}
		checkOpusinfo(t, clips[0].Data)
	}
}

// checkOpusinfo asks opus-tools' opusinfo about the file when it is installed (a second
// opinion from the reference implementation; the checks above stand without it).
func checkOpusinfo(t *testing.T, data []byte) {
	bin, err := exec.LookPath("opusinfo")
	if err != nil {
		return
	}
	f := filepath.Join(t.TempDir(), "a.ogg")
	if err := os.WriteFile(f, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, f).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("WARNING")) || bytes.Contains(out, []byte("ERROR")) {
		t.Fatalf("opusinfo: %v\n%s", err, out)
	}
}

func rtpPacket(seq uint16, payload []byte) []byte {
	h := make([]byte, 12)
	h[0], h[1] = 0x80, 111
	binary.BigEndian.PutUint16(h[2:], seq)
	binary.BigEndian.PutUint32(h[4:], uint32(seq)*960)
	return append(h, payload...)
}

func TestRawAudioWrapsIntoWAV(t *testing.T) {
	t.Parallel()
	pcm := make([]byte, 32000) // one second at 16 kHz
	clips, err := Assemble([]Chunk{{"audio/L16;rate=16000;channels=1", pcm[:16000]}, {"audio/L16;rate=16000;channels=1", pcm[16000:]},
		{"audio/basic", bytes.Repeat([]byte{0xff}, 8000)}, {"audio/ogg", []byte("OggS...")}})
	if err != nil || len(clips) != 3 {
		t.Fatalf("%d clips, %v", len(clips), err)
	}
	wav := clips[0]
	if wav.Mimetype != "audio/wav" || string(wav.Data[:4]) != "RIFF" || string(wav.Data[8:12]) != "WAVE" ||
		binary.LittleEndian.Uint32(wav.Data[24:]) != 16000 || binary.LittleEndian.Uint32(wav.Data[40:]) != 32000 || wav.Seconds != 1 {
		t.Fatalf("pcm clip: %s %q %.2f s", wav.Mimetype, wav.Data[:12], wav.Seconds)
	}
	ulaw := clips[1]
	// mu-law 0xff is silence: every expanded sample is 0, at 8 kHz by default.
	if binary.LittleEndian.Uint32(ulaw.Data[24:]) != 8000 || ulaw.Seconds != 1 || !bytes.Equal(ulaw.Data[44:], make([]byte, 16000)) {
		t.Fatalf("mulaw clip: rate %d, %.2f s", binary.LittleEndian.Uint32(ulaw.Data[24:]), ulaw.Seconds)
	}
	if clips[2].Filename != "audio.ogg" || string(clips[2].Data) != "OggS..." {
		t.Fatalf("a container clip is sent as it is: %+v", clips[2].Filename)
	}
}

func TestMulawExpandsPerG711(t *testing.T) {
	t.Parallel()
	for in, want := range map[byte]int16{0xff: 0, 0x7f: 0, 0x80: 32124, 0x00: -32124, 0xf0: 120, 0x70: -120} {
		if got := int16(binary.LittleEndian.Uint16(ulawToPCM([]byte{in}))); got != want {
			t.Errorf("mu-law %#x = %d, want %d", in, got, want)
		}
	}
}

func TestBadRawAudioIsRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]Chunk{
		"short rtp":       {"audio/opus;framing=rtp", []byte{0x80, 1, 2}},
		"rtp version 0":   {"audio/opus;framing=rtp", make([]byte, 20)},
		"empty opus":      {"audio/opus", nil},
		"huge opus chunk": {"audio/opus", make([]byte, 255*255)},
	} {
		if _, err := Assemble([]Chunk{c}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Assemble(nil); err != ErrNoAudio {
		t.Errorf("no chunks: %v", err)
	}
}
