package web

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"wsapi/app"
)

// knowledgeView is an assistant's knowledge: the contents with their status, the forms
// that add text, a URL to crawl or a file, and the search box.
type knowledgeView struct {
	A        app.Assistant
	Nav      assistantNav
	List     knowledgeList
	CanWrite bool
	MaxPages int
	Errors   formErrors
	Form     app.KnowledgeInput // what was typed, after a failed add
	Kind     string             // the form that failed: TEXT, URL or FILE
}

// knowledgeList is the list fragment; Busy makes it poll until nothing is processing.
type knowledgeList struct {
	AssistantID string
	Items       []app.KnowledgeContent
	Total       int
	Busy        bool
	CanWrite    bool
}

// knowledgeTake is how many contents the page shows (the newest).
const knowledgeTake = 100

func (s *Server) knowledgeList(rq *Request) error {
	l, err := s.listKnowledge(rq, rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "knowledge-list", l)
}

func (s *Server) listKnowledge(rq *Request, assistantID string) (knowledgeList, error) {
	l, err := s.svc.ListKnowledge(rq.Ctx(), rq.Org(), assistantID, app.KnowledgeFilter{}, "", app.Page{Page: 1, Take: knowledgeTake})
	if err != nil {
		return knowledgeList{}, err
	}
	out := knowledgeList{AssistantID: assistantID, Items: l.Items, Total: l.Total, CanWrite: rq.Can(app.Write("knowledge"))}
	for _, k := range l.Items {
		if k.Status == "PENDING" || k.Status == "PROCESSING" {
			out.Busy = true
		}
	}
	return out, nil
}

// knowledge is GET /app/assistants/{id}/knowledge.
func (s *Server) knowledge(rq *Request) error {
	return s.renderKnowledge(rq, http.StatusOK, nil, "", app.KnowledgeInput{})
}

func (s *Server) renderKnowledge(rq *Request, status int, fe formErrors, kind string, form app.KnowledgeInput) error {
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	l, err := s.listKnowledge(rq, a.ID)
	if err != nil {
		return err
	}
	v := knowledgeView{A: a, Nav: s.nav(rq, a, "knowledge"), List: l, CanWrite: rq.Can(app.Write("knowledge")),
		MaxPages: s.svc.KnowledgeMaxPages(), Errors: fe, Form: form, Kind: kind}
	return s.render(rq, status, "knowledge", s.page(rq, a.Name+" · Knowledge", v))
}

// addKnowledge is POST /app/assistants/{id}/knowledge: a file (multipart, from the file
// input or a drop on the page), or text or a URL to crawl (kind TEXT or URL), through the
// API's CreateKnowledgeFile and CreateKnowledge.
func (s *Server) addKnowledge(rq *Request) error {
	id := rq.Params.ByName("id")
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, app.MaxKnowledgeFile+1<<20)
	var err error
	var in app.KnowledgeInput
	kind := "FILE"
	if mf, hdr, ferr := rq.R.FormFile("file"); ferr == nil {
		defer mf.Close()
		data, rerr := io.ReadAll(io.LimitReader(mf, app.MaxKnowledgeFile+1))
		if rerr != nil {
			return rerr
		}
		in.Title = field(rq, "title")
		_, err = s.svc.CreateKnowledgeFile(rq.Ctx(), rq.Org(), id, in.Title, hdr.Filename, data)
	} else if errors.Is(ferr, http.ErrMissingFile) || errors.Is(ferr, http.ErrNotMultipart) {
		kind = field(rq, "kind")
		in = app.KnowledgeInput{Title: field(rq, "title"), Content: app.KnowledgeBody{Type: kind,
			Text: rq.R.PostFormValue("content.text"), URL: field(rq, "content.url")}}
		if kind == "FILE" {
			err = app.Invalid("file", "is required: pick a file or drop one on the page")
		} else {
			if mp := field(rq, "content.max_pages"); mp != "" {
				if in.Content.MaxPages, err = strconv.Atoi(mp); err != nil || in.Content.MaxPages == 0 {
					in.Content.MaxPages = -1 // a number the service refuses with its own message
				}
			}
			_, err = s.svc.CreateKnowledge(rq.Ctx(), rq.Org(), id, in)
		}
	} else {
		err = app.Invalid("file", "must be 1 byte to 10 MiB")
	}
	if err != nil {
		fe, ok := asFormErrors(err)
		if !ok {
			return err
		}
		if rq.HTMX() { // an upload by htmx (a drop): the problem goes beside the file field
			return err
		}
		return s.renderKnowledge(rq, http.StatusBadRequest, fe, kind, in)
	}
	if rq.HTMX() {
		rq.W.Header().Set("HX-Redirect", "/app/assistants/"+id+"/knowledge")
		rq.W.WriteHeader(http.StatusNoContent)
		return nil
	}
	return seeOther(rq, "/app/assistants/"+id+"/knowledge")
}

// retryKnowledge is POST .../knowledge/items/{kid}/retry: a FAILED content (or a crawled
// URL, to refresh it) is processed again.
func (s *Server) retryKnowledge(rq *Request) error {
	id := rq.Params.ByName("id")
	if _, err := s.svc.RetryKnowledge(rq.Ctx(), rq.Org(), id, rq.Params.ByName("kid")); err != nil {
		return err
	}
	return s.afterKnowledgeAction(rq, id)
}

// deleteKnowledge is POST .../knowledge/items/{kid}/delete.
func (s *Server) deleteKnowledge(rq *Request) error {
	id := rq.Params.ByName("id")
	if err := s.svc.DeleteKnowledge(rq.Ctx(), rq.Org(), id, rq.Params.ByName("kid")); err != nil {
		return err
	}
	return s.afterKnowledgeAction(rq, id)
}

// afterKnowledgeAction answers htmx with the list redrawn, a plain form with the page.
func (s *Server) afterKnowledgeAction(rq *Request, id string) error {
	if rq.HTMX() {
		return s.knowledgeList(rq)
	}
	return seeOther(rq, "/app/assistants/"+id+"/knowledge")
}

// searchView is what the assistant would find for a query.
type searchView struct {
	Query  string
	Chunks []app.Chunk
	Error  string
}

// knowledgeSearch is GET .../knowledge/search?search=: the API's knowledge search, the same the
// assistant runs, as a fragment under the search box.
func (s *Server) knowledgeSearch(rq *Request) error {
	q := rq.R.URL.Query().Get("search")
	v := searchView{Query: q}
	cs, err := s.svc.SearchKnowledge(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), q, 10)
	if err != nil {
		fe, ok := asFormErrors(err)
		if !ok {
			return err
		}
		v.Error = fe["search"]
		if v.Error == "" {
			v.Error = fe.Summary()
		}
	}
	v.Chunks = cs
	return s.render(rq, http.StatusOK, "knowledge-search", v)
}
