package web

import (
	"net/http"
	"net/url"
	"strconv"

	"wsapi/app"
)

// listTake is how many chats a list page shows; more load on demand.
const listTake = 50

// views are the list's tabs: the spec's filters, after the waiting view.
var views = []struct{ Value, Label string }{
	{"WAITING", "Waiting for a human"},
	{"ALL", "All"},
	{"UNREAD", "Unread"},
	{"UNRESOLVED", "Unresolved"},
	{"RESOLVED", "Resolved"},
	{"ASSIGNED_TO_ME", "Assigned to me"},
	{"UNASSIGNED", "Unassigned"},
}

// counted are the views whose tab shows a count.
var counted = map[string]bool{"WAITING": true, "UNREAD": true, "ASSIGNED_TO_ME": true}

// listQuery is the list's state as the URL holds it.
type listQuery struct {
	View, State, AI, Assistant, Channel, Search, Chat, Next string
}

func readListQuery(q url.Values) listQuery {
	lq := listQuery{View: q.Get("view"), State: q.Get("state"), AI: q.Get("ai"), Assistant: q.Get("assistant"),
		Channel: q.Get("channel"), Search: q.Get("q"), Chat: q.Get("chat"), Next: q.Get("next")}
	if lq.View == "" {
		lq.View = "ALL"
	}
	return lq
}

// filter is the service's InboxFilter for the query. "WAITING" is AI off, unassigned and
// open: a chat handed off that no member has taken.
func (lq listQuery) filter(memberID string) (app.InboxFilter, error) {
	get := map[string]string{"state": lq.State, "ai_status": lq.AI, "assistant_id": lq.Assistant,
		"integration_id": lq.Channel, "search": lq.Search, "filter": lq.View}
	if lq.View == "WAITING" {
		get["filter"], get["ai_status"], get["state"] = "UNASSIGNED", "DISABLED", "OPEN"
	}
	return app.ParseInboxFilter(func(k string) string { return get[k] }, memberID)
}

// URL is the page's address for the query, with some values replaced.
func (lq listQuery) URL(kv ...string) string {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("view", lq.View)
	set("state", lq.State)
	set("ai", lq.AI)
	set("assistant", lq.Assistant)
	set("channel", lq.Channel)
	set("q", lq.Search)
	set("chat", lq.Chat)
	for i := 0; i+1 < len(kv); i += 2 {
		v.Del(kv[i])
		set(kv[i], kv[i+1])
	}
	if len(v) == 0 {
		return "/app/"
	}
	return "/app/?" + v.Encode()
}

// listView is what the list template reads.
type listView struct {
	Q          listQuery
	Views      []viewTab
	Chats      []chatRow
	Total      int
	Next       string
	Waiting    int
	Assistants []app.Assistant
	Channels   []string
	States     []string
	Member     app.Member
}

type viewTab struct {
	Value, Label, URL string
	Count             int
	Current           bool
}

// chatRow is one line of the list.
type chatRow struct {
	Chat     app.Chat
	Contact  string
	Channel  string
	Last     string
	Assignee string
	Waiting  bool
	Selected bool
	URL      string
}

// list reads one page of the list, the counts of the tabs and the choices of the filters.
func (s *Server) list(rq *Request, lq listQuery) (listView, error) {
	me := rq.Session.MemberID
	f, err := lq.filter(me)
	if err != nil {
		return listView{}, err
	}
	l, err := s.svc.Inbox(rq.Ctx(), rq.Org(), f, lq.Next, app.Page{Page: 1, Take: listTake})
	if err != nil {
		return listView{}, err
	}
	v := listView{Q: lq, Total: l.Total, Next: l.Next, Channels: app.Integrations, States: app.ChatStates, Member: rq.Session.Principal.Member}
	for _, tab := range views {
		tq := lq
		tq.View, tq.Next = tab.Value, ""
		tf, _ := tq.filter(me)
		n := 0
		// Counts of what needs this member's attention only: counting the large views
		// (Unresolved, Unassigned: tens of thousands of chats) again after every change
		// doubled the time a change took to reach an open tab's list (bench/webapp).
		if counted[tab.Value] {
			if c, err := s.svc.Inbox(rq.Ctx(), rq.Org(), tf, "", app.Page{Page: 1, Take: 1}); err == nil {
				n = c.Total
			}
		}
		if tab.Value == "WAITING" {
			v.Waiting = n
		}
		v.Views = append(v.Views, viewTab{Value: tab.Value, Label: tab.Label, URL: tq.URL("chat", lq.Chat), Count: n, Current: tab.Value == lq.View})
	}
	for _, c := range l.Items {
		v.Chats = append(v.Chats, s.row(c, lq))
	}
	if rq.Can(app.Read("assistants")) {
		if as, err := s.svc.ListAssistants(rq.Ctx(), rq.Org(), "", app.Page{Page: 1, Take: app.MaxTake}); err == nil {
			v.Assistants = as.Items
		}
	}
	return v, nil
}

func (s *Server) row(c app.Chat, lq listQuery) chatRow {
	r := chatRow{Chat: c, Contact: contactName(c), Selected: c.ID == lq.Chat, URL: lq.URL("chat", c.ID)}
	if c.State != nil {
		r.Channel = c.State.IntegrationID
		if u := c.State.AssignedUser; u != nil {
			r.Assignee = u.Name
		}
		r.Waiting = !c.State.AIEnabled && c.AssignedUserID == "" && c.State.State == "OPEN" && c.ContactID != ""
	}
	if c.LastMessage != nil {
		r.Last = preview(c.LastMessage, 90)
	}
	return r
}

// contactName is the chat's contact as a person reads it.
func contactName(c app.Chat) string {
	for _, m := range c.Members {
		if ch := m.ContactChannel; ch != nil {
			for _, n := range []string{ch.Contact.Name, ch.Name, ch.Email, ch.Phone, ch.Username} {
				if n != "" {
					return n
				}
			}
		}
	}
	if c.Title != nil && *c.Title != "" {
		return *c.Title
	}
	return "Workspace chat"
}

// preview is a message's text cut to n characters.
func preview(m *app.Message, n int) string {
	t := textOf(*m)
	r := []rune(t)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return t
}

// inbox is GET /app/: the three panes, or the list alone for htmx (a filter changed, or
// app.js refreshing it after a live event).
func (s *Server) inbox(rq *Request) error {
	lq := readListQuery(rq.R.URL.Query())
	lv, err := s.list(rq, lq)
	if err != nil {
		return err
	}
	// htmx asks for a part: the list with its filters (a view's tab), the list without them
	// (a filter typed, or app.js redrawing after a live change: the search box being typed
	// in is not replaced), or a further page of rows.
	switch target := rq.R.Header.Get("HX-Target"); {
	case rq.HTMX() && target == "list-pane":
		return s.render(rq, http.StatusOK, "list", lv)
	case rq.HTMX() && target == "list-body":
		return s.render(rq, http.StatusOK, "list-body", lv)
	}
	if rq.HTMX() && lq.Next != "" {
		return s.render(rq, http.StatusOK, "rows", lv)
	}
	body := map[string]any{"List": lv}
	if lq.Chat != "" {
		cv, err := s.chatView(rq, lq.Chat)
		if err != nil && !app.IsNotFound(err) {
			return err
		}
		if err == nil {
			body["Chat"] = cv
		}
	}
	p := s.page(rq, "Inbox", body)
	return s.render(rq, http.StatusOK, "inbox", p)
}

func itoa(n int) string { return strconv.Itoa(n) }
