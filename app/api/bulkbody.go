package api

import (
	"bytes"
	"net/http"
	"unicode/utf8"

	"wsapi/app"
)

// decodeBulk reads the body of a bulk import or dry run. Decoding 50,000 items by
// reflection was a quarter of the dry run's CPU, so the plain form that bulk clients send
// (the two known members, items of known string fields, strings without escapes or control
// characters, valid UTF-8: a strict subset of JSON) is read directly, in one pass; any other
// body (another member or field, a null, a number, an escape, a member given twice, a
// syntax error) goes to decodeBody as before, so its answer, each 400 included, is what it
// was.
func (rq *Request) decodeBulk() (app.BulkInput, error) {
	return decodeBulk(rq.W, rq.R, rq.server.cfg.MaxBodyBytes)
}

func decodeBulk(w http.ResponseWriter, r *http.Request, limit int64) (app.BulkInput, error) {
	body, err := readBody(w, r, limit)
	if err != nil {
		return app.BulkInput{}, err
	}
	p := bulkParser{data: body}
	if in, ok := p.input(); ok {
		return in, nil
	}
	var in app.BulkInput
	return in, decodeBody(body, &in)
}

// bulkParser reads the plain form of a bulk body; ok false: not the plain form.
type bulkParser struct {
	data []byte
	off  int
}

func (p *bulkParser) input() (in app.BulkInput, ok bool) {
	var seenChannels, seenSegments bool
	ok = p.object(func(key []byte) bool {
		switch {
		case string(key) == "channels" && !seenChannels:
			seenChannels = true
			// Each item opens a brace: counted (within the limit) to size the list once.
			in.Channels = make([]app.BulkChannel, 0, min(bytes.Count(p.data, []byte(`{`)), app.MaxBulkChannels+1))
			return p.array(func() bool {
				var it app.BulkChannel
				ok := p.object(func(key []byte) bool { return p.field(&it, key) })
				in.Channels = append(in.Channels, it)
				return ok
			})
		case string(key) == "segment_ids" && !seenSegments:
			seenSegments = true
			in.SegmentIDs = []string{}
			return p.array(func() bool {
				s, ok := p.str()
				in.SegmentIDs = append(in.SegmentIDs, s)
				return ok
			})
		}
		return false
	})
	p.space()
	return in, ok && p.off == len(p.data)
}

// field reads the value of an item's member key.
func (p *bulkParser) field(it *app.BulkChannel, key []byte) bool {
	var dst *string
	switch string(key) {
	case "user_id":
		dst = &it.UserID
	case "name":
		dst = &it.Name
	case "email":
		dst = &it.Email
	case "phone":
		dst = &it.Phone
	case "contact_id":
		dst = &it.ContactID
	default:
		return false
	}
	s, ok := p.str()
	*dst = s
	return ok
}

// object reads {"key": value, ...}, value by value through member.
func (p *bulkParser) object(member func(key []byte) bool) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	for {
		key, ok := p.raw()
		if !ok || !p.byte(':') || !member(key) {
			return false
		}
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// array reads [value, ...], value by value through elem.
func (p *bulkParser) array(elem func() bool) bool {
	if !p.byte('[') {
		return false
	}
	if p.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if p.byte(']') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// str reads a string without escapes, as a new string.
func (p *bulkParser) str() (string, bool) {
	b, ok := p.raw()
	return string(b), ok
}

// raw reads a string without escapes or control characters and of valid UTF-8, answering
// its bytes in place.
func (p *bulkParser) raw() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	end := bytes.IndexByte(p.data[p.off:], '"')
	if end < 0 {
		return nil, false
	}
	s := p.data[p.off : p.off+end]
	p.off += end + 1
	ascii := true
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return nil, false
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	return s, ascii || utf8.Valid(s)
}

// byte skips white space and then c, if c is next.
func (p *bulkParser) byte(c byte) bool {
	p.space()
	if p.off < len(p.data) && p.data[p.off] == c {
		p.off++
		return true
	}
	return false
}

func (p *bulkParser) space() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case ' ', '\t', '\n', '\r':
			p.off++
		default:
			return
		}
	}
}
