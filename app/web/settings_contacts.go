package web

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"wsapi/app"
)

type contactsView struct {
	Contacts []app.Contact
	Total    int
	Search   string
	Segment  string
	Page     int
	Pages    int
	Segments []app.Segment
	CanWrite bool
	shown    // a refused form shown back: "segment" or "contact"
}

const contactsPage = 50

func (s *Server) contactsView(rq *Request) (contactsView, error) {
	q := rq.R.URL.Query()
	v := contactsView{Search: q.Get("q"), Segment: q.Get("segment"), CanWrite: rq.Can(app.Write("contacts")), Page: 1}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 {
		v.Page = n
	}
	l, err := s.svc.ListContacts(rq.Ctx(), rq.Org(), app.ContactFilter{Search: v.Search, SegmentID: v.Segment}, app.Page{Page: v.Page, Take: contactsPage})
	if err != nil {
		return v, err
	}
	v.Contacts, v.Total = l.Items, l.Total
	v.Pages = (l.Total + contactsPage - 1) / contactsPage
	segs, err := s.svc.ListSegments(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
	v.Segments = segs.Items
	return v, err
}

// contacts is GET /app/contacts?q=&segment=&page=: the contacts found, 50 a page (the API's search), their
// segments, the segments, and the CSV import.
func (s *Server) contacts(rq *Request) error {
	v, err := s.contactsView(rq)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "contacts", s.page(rq, "Contacts", v))
}

func (s *Server) createSegment(rq *Request) error {
	f := newForm(rq)
	name, color := f.Get("name"), f.Get("color")
	in := app.SegmentInput{Name: &name}
	if color != "" {
		in.Color = &color
	}
	_, err := s.svc.CreateSegment(rq.Ctx(), rq.Org(), in)
	if err == nil {
		return s.redirect(rq, "/app/contacts")
	}
	return s.contactsFailed(rq, f, "segment", err)
}

// contactsFailed answers a refused form of the contacts list (formFor: "segment" or
// "contact"): the page again, the form's errors beside its fields. fields names the form
// field of each of the API's "channels[i]" (fieldsOf).
func (s *Server) contactsFailed(rq *Request, f form, formFor string, err error, fields ...string) error {
	status, err := f.failed(err)
	if err != nil {
		return err
	}
	fieldsOf(&f, fields)
	v, err := s.contactsView(rq)
	if err != nil {
		return err
	}
	v.Form, v.FormFor = f, formFor
	return s.render(rq, status, "contacts", s.page(rq, "Contacts", v))
}

func (s *Server) deleteSegment(rq *Request) error {
	if err := s.svc.DeleteSegment(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return err
	}
	return s.redirect(rq, "/app/contacts")
}

// addToSegment is POST /app/segment-members: one contact into a segment (the API's
// POST /segments/{id}/contacts), then the list again where the member was.
func (s *Server) addToSegment(rq *Request) error {
	f := newForm(rq)
	if f.Get("segment_id") == "" {
		return app.Invalid("segment_id", "is required: choose a segment")
	}
	if _, err := s.svc.AddSegmentContacts(rq.Ctx(), rq.Org(), f.Get("segment_id"), []string{f.Get("contact_id")}); err != nil {
		return err
	}
	return s.redirect(rq, contactsBack(f))
}

// removeFromSegment is POST /app/segment-members/remove: a contact out of a segment.
func (s *Server) removeFromSegment(rq *Request) error {
	f := newForm(rq)
	if err := s.svc.RemoveSegmentContact(rq.Ctx(), rq.Org(), f.Get("segment_id"), f.Get("contact_id")); err != nil {
		return err
	}
	return s.redirect(rq, contactsBack(f))
}

// contactsBack is the contacts list with the search the form came from (only its own
// parameters, so the redirect stays on this page).
func contactsBack(f form) string {
	q := url.Values{}
	for _, k := range []string{"q", "segment", "page"} {
		if v := f.Get(k); v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return "/app/contacts"
	}
	return "/app/contacts?" + q.Encode()
}

// maxImportBytes bounds an uploaded CSV: 50,000 rows (the bulk import's limit) of a few
// short columns fit well within it.
const maxImportBytes = 16 << 20

type importView struct {
	Dry      bool
	Result   app.BulkResult
	Problems []string // "line N: why", the first 20
	More     int
	Checked  string // the dry-run file's hash, which the real import must match
	CanWrite bool
	Form     form
}

// importContacts is POST /app/contacts/import/dry and /app/contacts/import (htmx,
// multipart): the CSV's rows through the API's BulkDryRun or BulkImport. The real import
// takes only the file a dry run was shown for (its hash travels in the dry run's answer).
func (s *Server) importContacts(dry bool) func(*Request) error {
	return func(rq *Request) error {
		v := importView{Dry: dry, CanWrite: rq.Can(app.Write("contacts"))}
		rows, lines, sum, segment, err := readImport(rq)
		if err == nil && !dry && rq.R.PostFormValue("checked") != sum {
			err = app.Invalid("file", "has not been checked: run the dry run on this file first, then import")
		}
		in := app.BulkInput{Channels: rows}
		if segment != "" {
			in.SegmentIDs = []string{segment}
		}
		if err == nil {
			if dry {
				v.Result, err = s.svc.BulkDryRun(rq.Ctx(), rq.Org(), in)
			} else {
				v.Result, err = s.svc.BulkImport(rq.Ctx(), rq.Org(), in)
			}
		}
		if err != nil {
			if _, err := v.Form.failed(err); err != nil {
				return err
			}
			return s.render(rq, http.StatusUnprocessableEntity, "import-result", v)
		}
		for i, why := range v.Result.Errors {
			if i == 20 {
				v.More = len(v.Result.Errors) - 20
				break
			}
			v.Problems = append(v.Problems, fmt.Sprintf("line %d: %s", lines[v.Result.InvalidAt[i]], why))
		}
		v.Checked = sum
		return s.render(rq, http.StatusOK, "import-result", v)
	}
}

// readImport reads the uploaded CSV: a header row naming some of user_id, name, email,
// phone, contact_id (the CLI's import takes the same files), then one contact a row.
func readImport(rq *Request) (rows []app.BulkChannel, lines []int, sum, segment string, err error) {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxImportBytes)
	if err := rq.R.ParseMultipartForm(1 << 20); err != nil {
		return nil, nil, "", "", app.Invalid("file", "could not be read: choose a CSV file under 16 MB")
	}
	segment = rq.R.PostFormValue("segment_id")
	file, _, err := rq.R.FormFile("file")
	if err != nil {
		return nil, nil, "", "", app.Invalid("file", "is required: choose a CSV file")
	}
	defer file.Close()
	data, err := io.ReadAll(file)
	if err != nil {
		return nil, nil, "", "", err
	}
	h := sha256.Sum256(append(data, "\x00"+segment...))
	rows, lines, err = parseContactsCSV(data)
	return rows, lines, hex.EncodeToString(h[:]), segment, err
}

func parseContactsCSV(data []byte) (rows []app.BulkChannel, lines []int, err error) {
	r := csv.NewReader(strings.NewReader(string(data)))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, nil, app.Invalid("file", "has no header row: the first line names the columns (user_id, name, email, phone, contact_id)")
	}
	cols := map[string]int{}
	for i, name := range header {
		cols[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")))] = i
	}
	known := 0
	for _, c := range []string{"user_id", "name", "email", "phone", "contact_id"} {
		if _, ok := cols[c]; ok {
			known++
		}
	}
	if known == 0 {
		return nil, nil, app.Invalid("file", "names none of the columns user_id, name, email, phone, contact_id in its header row")
	}
	rows = []app.BulkChannel{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, app.Invalid("file", "is not valid CSV: "+err.Error())
		}
		if len(rows) == app.MaxBulkChannels {
			return nil, nil, app.Invalid("file", fmt.Sprintf("has more than %d rows: split it, or use `app contacts import` on the server", app.MaxBulkChannels))
		}
		get := func(c string) string {
			if i, ok := cols[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		line, _ := r.FieldPos(0)
		rows = append(rows, app.BulkChannel{UserID: get("user_id"), Name: get("name"), Email: get("email"), Phone: get("phone"), ContactID: get("contact_id")})
		lines = append(lines, line)
	}
	return rows, lines, nil
}
