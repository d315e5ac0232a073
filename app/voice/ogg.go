package voice

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Ogg encapsulation of Opus (RFC 7845). No standard-library or x/ package writes Ogg, and the
// page format is small: this is about a screen of code instead of a media framework.

// oggOpusClip puts Opus packets into an Ogg file: the identification and comment headers,
// then one page per packet, with granule positions counted at 48 kHz from each packet's TOC.
func oggOpusClip(packets [][]byte, channels int) (Clip, error) {
	var w oggWriter
	head := make([]byte, 19)
	copy(head, "OpusHead")
	head[8], head[9] = 1, byte(channels)
	// The encoder's delay is unknown here; libopus's 312 samples is what nearly every
	// sender's encoder has, and a decoder skips that much of the start.
	binary.LittleEndian.PutUint16(head[10:], preSkip)
	binary.LittleEndian.PutUint32(head[12:], 48000) // the input's rate, informational
	w.page(head, 0, 0x02)
	tags := append([]byte("OpusTags"), 5, 0, 0, 0) // the vendor string's length
	tags = append(append(tags, "wsapi"...), 0, 0, 0, 0)
	w.page(tags, 0, 0)
	granule := int64(preSkip)
	for i, p := range packets {
		if len(p) >= 255*255 {
			return Clip{}, errors.New("an Opus chunk is over 65,024 bytes: send one packet a chunk")
		}
		n, err := opusSamples(p)
		if err != nil {
			return Clip{}, err
		}
		granule += int64(n)
		flags := byte(0)
		if i == len(packets)-1 {
			flags = 0x04
		}
		w.page(p, granule, flags)
	}
	return Clip{Filename: "audio.ogg", Mimetype: "audio/ogg", Data: w.buf.Bytes(), Seconds: float64(granule-preSkip) / 48000}, nil
}

const preSkip = 312

// opusSamples is a packet's length in 48 kHz samples, from its TOC byte (RFC 6716, 3.1).
func opusSamples(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, errors.New("an Opus chunk is empty")
	}
	config := p[0] >> 3
	var per int // samples per frame at 48 kHz
	switch {
	case config < 12: // SILK: 10, 20, 40, 60 ms
		per = []int{480, 960, 1920, 2880}[config%4]
	case config < 16: // hybrid: 10, 20 ms
		per = []int{480, 960}[config%2]
	default: // CELT: 2.5, 5, 10, 20 ms
		per = []int{120, 240, 480, 960}[config%4]
	}
	frames := 1
	switch p[0] & 3 {
	case 1, 2:
		frames = 2
	case 3:
		if len(p) < 2 {
			return 0, errors.New("an Opus packet of code 3 has no frame count")
		}
		frames = int(p[1] & 0x3f)
	}
	return per * frames, nil
}

type oggWriter struct {
	buf bytes.Buffer
	seq uint32
}

// page writes one packet as one page (packets here are far below a page's 65,025 bytes).
func (w *oggWriter) page(packet []byte, granule int64, flags byte) {
	lacing := bytes.Repeat([]byte{255}, len(packet)/255)
	lacing = append(lacing, byte(len(packet)%255))
	start := w.buf.Len()
	w.buf.WriteString("OggS")
	w.buf.WriteByte(0)
	w.buf.WriteByte(flags)
	_ = binary.Write(&w.buf, binary.LittleEndian, granule)
	_ = binary.Write(&w.buf, binary.LittleEndian, uint32(0x77736170)) // the stream's serial number
	_ = binary.Write(&w.buf, binary.LittleEndian, w.seq)
	_ = binary.Write(&w.buf, binary.LittleEndian, uint32(0)) // the checksum, filled below
	w.buf.WriteByte(byte(len(lacing)))
	w.buf.Write(lacing)
	w.buf.Write(packet)
	page := w.buf.Bytes()[start:]
	binary.LittleEndian.PutUint32(page[22:], oggCRC(page))
	w.seq++
}

// oggCRC is Ogg's CRC-32: polynomial 0x04c11db7, not reflected, no final xor, which
// hash/crc32 (reflected only) cannot compute.
func oggCRC(b []byte) uint32 {
	var crc uint32
	for _, c := range b {
		crc ^= uint32(c) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04c11db7
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// readOgg answers the packets of an Ogg file and its last granule position, checking each
// page's checksum: it tells the length of a voice note, and lets tests read what was written.
func readOgg(data []byte) (packets [][]byte, granule int64, err error) {
	var cur []byte
	for len(data) > 0 {
		if len(data) < 27 || string(data[:4]) != "OggS" {
			return nil, 0, errors.New("not an Ogg page")
		}
		n := int(data[26])
		if len(data) < 27+n {
			return nil, 0, errors.New("a truncated Ogg page")
		}
		size := 0
		for _, l := range data[27 : 27+n] {
			size += int(l)
		}
		end := 27 + n + size
		if len(data) < end {
			return nil, 0, errors.New("a truncated Ogg page")
		}
		page := bytes.Clone(data[:end])
		want := binary.LittleEndian.Uint32(page[22:])
		binary.LittleEndian.PutUint32(page[22:], 0)
		if oggCRC(page) != want {
			return nil, 0, errors.New("an Ogg page's checksum does not match")
		}
		if g := int64(binary.LittleEndian.Uint64(data[6:])); g != -1 {
			granule = g
		}
		body := data[27+n : end]
		for _, l := range data[27 : 27+n] {
			cur = append(cur, body[:l]...)
			body = body[l:]
			if l < 255 {
				packets, cur = append(packets, cur), nil
			}
		}
		data = data[end:]
	}
	return packets, granule, nil
}
