package goclient_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"wsapi-goclient/apiclient"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// scenario is the generated client against a real server, every exchange checked against
// openapi.json by the harness's kin-openapi validator.
type scenario struct {
	t   *testing.T
	e   *apitest.Env
	v   *apitest.OpenAPI
	c   *apiclient.ClientWithResponses
	org apiclient.OrgParam
	ctx context.Context
}

func newScenario(t *testing.T) *scenario {
	// A walk polls (knowledge, deliveries): no per-address rate limit.
	e := apitest.New(t, func(c *cli.Config) {
		c.HTTP.RateLimitPerMinute = 0
		c.Metrics.Token = metricsToken
	})
	v := e.OpenAPI()
	c, err := apiclient.NewClientWithResponses(e.Server.URL, apiclient.WithHTTPClient(v.Client()),
		apiclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			if r.Header.Get("Authorization") == "" {
				r.Header.Set("Authorization", "Bearer "+e.AdminKey)
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return &scenario{t: t, e: e, v: v, c: c, org: e.Org.ID, ctx: context.Background()}
}

// status fails the test unless the call answered want.
func (s *scenario) status(what string, res interface{ StatusCode() int }, err error, want int) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
	if got := res.StatusCode(); got != want {
		s.t.Fatalf("%s: status %d, want %d", what, got, want)
	}
}

// metricsToken serves GET /metrics on the API listener.
const metricsToken = "scrape-token-for-the-scenario"

func ptr[T any](v T) *T { return &v }

func text(role, s string) apiclient.TurnInput {
	return apiclient.TurnInput{Role: role, Parts: &[]apiclient.PartInput{{Type: "text", Text: ptr(s)}}}
}

// TestScenarioWithGeneratedClient walks the API as a client developer would, with the
// oapi-codegen client: every request and every answer must match the document, and the
// document must refuse what the server refuses (the 400 cases).
func TestScenarioWithGeneratedClient(t *testing.T) {
	s := newScenario(t)
	s.orgsKeysMembers()
	contact := s.contacts()
	s.chats(contact)
	s.assistantsKnowledge()
	s.webhooksBroadcastsUsage(contact)
	s.errors(contact)
	s.public()
	s.streamsAndOps()
	checked := s.v.Checked()
	if len(checked) < 60 {
		t.Errorf("only %d distinct exchanges checked: %v", len(checked), checked)
	}
	t.Logf("%d distinct operation/status pairs validated", len(checked))
}

func (s *scenario) orgsKeysMembers() {
	org, err := s.c.GetOrgWithResponse(s.ctx, s.org)
	s.status("get org", org, err, 200)
	up, err := s.c.UpdateOrgWithResponse(s.ctx, s.org, apiclient.OrgPatch{Name: ptr("Acme"),
		Config: &apiclient.OrgConfigInput{Email: ptr("help@acme.example")}})
	s.status("update org", up, err, 200)
	if up.JSON200.Config.Email != "help@acme.example" || up.JSON200.Config.TermsUrl != "" {
		s.t.Errorf("org config %+v", up.JSON200.Config)
	}
	sub, err := s.c.CreateSubOrgWithResponse(s.ctx, s.org, nil, apiclient.OrgInput{Name: "Acme EU"})
	s.status("create sub-org", sub, err, 201)
	subs, err := s.c.ListSubOrgsWithResponse(s.ctx, s.org, nil)
	s.status("list sub-orgs", subs, err, 200)

	m, err := s.c.CreateMemberWithResponse(s.ctx, s.org, nil, apiclient.MemberInput{Name: "Ada", Email: "ada@acme.example"})
	s.status("create member", m, err, 201)
	dup, err := s.c.CreateMemberWithResponse(s.ctx, s.org, nil, apiclient.MemberInput{Name: "Ada", Email: "ada@acme.example"})
	s.status("duplicate member", dup, err, 409)
	mp, err := s.c.UpdateMemberWithResponse(s.ctx, s.org, m.JSON201.Id, apiclient.MemberPatch{Name: ptr("Ada King")})
	s.status("update member", mp, err, 200)
	ms, err := s.c.ListMembersWithResponse(s.ctx, s.org, nil)
	s.status("list members", ms, err, 200)

	role, err := s.c.CreateRoleWithResponse(s.ctx, s.org, nil, apiclient.RoleInput{Name: "Support", Permissions: []apiclient.Permission{"inbox:read", "contacts:write"}})
	s.status("create role", role, err, 201)
	roles, err := s.c.ListRolesWithResponse(s.ctx, s.org)
	s.status("list roles", roles, err, 200)

	key, err := s.c.CreateKeyWithResponse(s.ctx, s.org, nil, apiclient.KeyInput{Name: "ci", MemberId: &m.JSON201.Id})
	s.status("create key", key, err, 201)
	keys, err := s.c.ListKeysWithResponse(s.ctx, s.org, nil)
	s.status("list keys", keys, err, 200)
	rot, err := s.c.RotateKeyWithResponse(s.ctx, s.org, key.JSON201.Id, nil)
	s.status("rotate key", rot, err, 200)
	del, err := s.c.DeleteKeyWithResponse(s.ctx, s.org, key.JSON201.Id)
	s.status("delete key", del, err, 204)
	dm, err := s.c.DeleteMemberWithResponse(s.ctx, s.org, m.JSON201.Id)
	s.status("delete member", dm, err, 204)
}

func (s *scenario) contacts() apiclient.Contact {
	seg, err := s.c.CreateSegmentWithResponse(s.ctx, s.org, nil, apiclient.SegmentCreateInput{Name: "VIP", Color: ptr(apiclient.SegmentCreateInputColorAmber)})
	s.status("create segment", seg, err, 201)
	ct, err := s.c.CreateContactWithResponse(s.ctx, s.org, nil, apiclient.ContactInput{Name: "Grace Hopper",
		Channels:   &[]apiclient.ChannelInput{{Type: apiclient.ChannelInputTypeEmail, Email: ptr(openapi_types.Email("grace@navy.example")), PlatformData: &map[string]any{"crm": map[string]any{"id": 7}}}},
		SegmentIds: &[]string{seg.JSON201.Id}})
	s.status("create contact", ct, err, 201)
	id := ct.JSON201.Id
	ch, err := s.c.AddContactChannelWithResponse(s.ctx, s.org, id, nil, apiclient.ChannelInput{Type: apiclient.ChannelInputTypeInternal, UserId: ptr("u-1")})
	s.status("add channel", ch, err, 201)
	up, err := s.c.UpdateContactWithResponse(s.ctx, s.org, id, apiclient.ContactPatch{Name: ptr("Grace B. Hopper")})
	s.status("update contact", up, err, 200)
	list, err := s.c.ListContactsWithResponse(s.ctx, s.org, &apiclient.ListContactsParams{SegmentId: &seg.JSON201.Id})
	s.status("list contacts of a segment", list, err, 200)
	if len(*list.JSON200) != 1 {
		s.t.Errorf("segment lists %d contacts", len(*list.JSON200))
	}
	note, err := s.c.CreateContactNoteWithResponse(s.ctx, s.org, id, nil, apiclient.NoteInput{Content: "Prefers email."})
	s.status("create note", note, err, 201)
	notes, err := s.c.ListContactNotesWithResponse(s.ctx, s.org, id, nil)
	s.status("list notes", notes, err, 200)
	mem, err := s.c.CreateContactMemoryWithResponse(s.ctx, s.org, id, nil, apiclient.MemoryInput{Type: apiclient.MemoryInputTypePREFERENCE, Importance: 0.8, Content: "Email over phone."})
	s.status("create memory", mem, err, 201)
	mems, err := s.c.ListContactMemoriesWithResponse(s.ctx, s.org, id, nil)
	s.status("list memories", mems, err, 200)
	dn, err := s.c.DeleteContactNoteWithResponse(s.ctx, s.org, id, note.JSON201.Id)
	s.status("delete note", dn, err, 204)
	dmem, err := s.c.DeleteContactMemoryWithResponse(s.ctx, s.org, id, mem.JSON201.Id)
	s.status("delete memory", dmem, err, 204)
	segs, err := s.c.ListSegmentsWithResponse(s.ctx, s.org, nil)
	s.status("list segments", segs, err, 200)
	other, err := s.c.CreateContactWithResponse(s.ctx, s.org, nil, apiclient.ContactInput{Name: "Other"})
	s.status("create other contact", other, err, 201)
	add, err := s.c.AddSegmentContactsWithResponse(s.ctx, s.org, seg.JSON201.Id, nil, apiclient.SegmentContactsInput{ContactIds: []string{other.JSON201.Id}})
	s.status("add to segment", add, err, 200)
	rm, err := s.c.RemoveSegmentContactWithResponse(s.ctx, s.org, seg.JSON201.Id, other.JSON201.Id)
	s.status("remove from segment", rm, err, 204)
	bulk, err := s.c.BulkImportContactsWithResponse(s.ctx, s.org, nil, apiclient.BulkInput{Channels: []apiclient.BulkChannelInput{{Email: ptr("ann@example.com"), Name: ptr("Ann")}, {Email: ptr("not an address")}}})
	s.status("bulk import", bulk, err, 200)
	merge, err := s.c.PreviewMergeContactsWithResponse(s.ctx, s.org, nil, apiclient.MergeInput{SourceContactId: other.JSON201.Id, TargetContactId: id})
	s.status("merge preview", merge, err, 200)
	got, err := s.c.GetContactWithResponse(s.ctx, s.org, id)
	s.status("get contact", got, err, 200)
	return *got.JSON200
}

func (s *scenario) chats(contact apiclient.Contact) {
	chat, err := s.c.CreateChatWithResponse(s.ctx, s.org, nil, apiclient.CreateChatJSONRequestBody{Title: ptr("Order 1042"), ContactId: &contact.Id,
		Tools: &[]apiclient.ToolInput{{Name: ptr("lookup"), Parameters: &map[string]any{"type": "object"}}}})
	s.status("create chat", chat, err, 201)
	id := chat.JSON201.Id
	msg, err := s.c.CreateChatMessageWithResponse(s.ctx, s.org, id, nil, apiclient.MessageInput{Role: apiclient.MessageInputRoleUser,
		Messages: []apiclient.TurnInput{text("user", "Where is my order?")}})
	s.status("create message", msg, err, 201)
	ans, err := s.c.CreateChatMessageWithResponse(s.ctx, s.org, id, nil, apiclient.MessageInput{Role: apiclient.MessageInputRoleAssistant,
		Messages: []apiclient.TurnInput{text("assistant", "It ships today.")},
		Usage:    &apiclient.UsageInput{InputTokens: ptr(12.0), OutputTokens: ptr(5.0), TotalTokens: ptr(17.0)}})
	s.status("create assistant message", ans, err, 201)
	if u := ans.JSON201.Usage; u == nil || u.TotalTokens != 17 || len(u.Turns) != 0 {
		s.t.Errorf("usage answered %+v", u)
	}
	react, err := s.c.SetMessageReactionWithResponse(s.ctx, s.org, id, msg.JSON201.Id, apiclient.SetMessageReactionJSONRequestBody{Emoji: "👍"})
	s.status("react", react, err, 200)
	patch, err := s.c.UpdateMessageWithResponse(s.ctx, s.org, id, ans.JSON201.Id, apiclient.MessagePatch{Messages: &[]apiclient.TurnInput{text("assistant", "It shipped.")}})
	s.status("update message", patch, err, 200)
	msgs, err := s.c.ListChatMessagesWithResponse(s.ctx, s.org, id, nil)
	s.status("list messages", msgs, err, 200)
	cp, err := s.c.UpdateChatWithResponse(s.ctx, s.org, id, apiclient.ChatPatch{Pinned: ptr(true), State: ptr(apiclient.ChatPatchStateSNOOZED)})
	s.status("update chat", cp, err, 200)
	read, err := s.c.MarkChatReadWithResponse(s.ctx, s.org, id, nil)
	s.status("mark read", read, err, 200)
	inbox, err := s.c.ListInboxWithResponse(s.ctx, s.org, nil)
	s.status("inbox", inbox, err, 200)
	got, err := s.c.GetChatWithResponse(s.ctx, s.org, id)
	s.status("get chat", got, err, 200)
	files, err := s.c.ListChatFilesWithResponse(s.ctx, s.org, id, nil)
	s.status("list files", files, err, 200)
	tmp, err := s.c.CreateChatWithResponse(s.ctx, s.org, nil, apiclient.CreateChatJSONRequestBody{Temporary: ptr(true)})
	s.status("create internal chat", tmp, err, 201)
	s.audio(tmp.JSON201.Id)
	del, err := s.c.DeleteChatWithResponse(s.ctx, s.org, tmp.JSON201.Id)
	s.status("delete chat", del, err, 204)
}

// audio: a media event stores a file (downloaded as audio/*), and a message names it by id.
func (s *scenario) audio(chat string) {
	ev := apiclient.ChatEventInput{Type: apiclient.Media}
	ev.Data = &struct {
		Audio      []byte                             `json:"audio"`
		Channels   *float64                           `json:"channels,omitempty"`
		Format     apiclient.ChatEventInputDataFormat `json:"format"`
		SampleRate *float64                           `json:"sampleRate,omitempty"`
	}{Audio: []byte("ID3 not really an mp3"), Format: apiclient.Mp3}
	media, err := s.c.SendChatEventWithResponse(s.ctx, s.org, chat, nil, ev)
	s.status("media event", media, err, 200)
	files, err := s.c.ListChatFilesWithResponse(s.ctx, s.org, chat, nil)
	s.status("list files", files, err, 200)
	if len(*files.JSON200) != 1 {
		s.t.Fatalf("files %+v", *files.JSON200)
	}
	file := (*files.JSON200)[0]
	dl, err := s.c.DownloadChatFileWithResponse(s.ctx, s.org, chat, file.Id)
	s.status("download file", dl, err, 200)
	if string(dl.Body) != "ID3 not really an mp3" {
		s.t.Errorf("downloaded %q", dl.Body)
	}
	part := apiclient.PartInput{Type: "audio", Audio: &apiclient.AudioInput{Id: file.Id}}
	msg, err := s.c.UpdateMessageWithResponse(s.ctx, s.org, chat, media.JSON200.Id, apiclient.MessagePatch{
		Status: ptr(apiclient.MessagePatchStatusCOMPLETED), Messages: &[]apiclient.TurnInput{{Role: "user", Parts: &[]apiclient.PartInput{part}}}})
	s.status("message with an audio part", msg, err, 200)
	if p := (*msg.JSON200.Messages[0].Parts)[0]; p.Audio == nil || p.Audio.FileSize != int64(len("ID3 not really an mp3")) {
		s.t.Errorf("audio part answered %+v", p)
	}
}

func (s *scenario) assistantsKnowledge() {
	a, err := s.c.CreateAssistantWithResponse(s.ctx, s.org, nil, apiclient.AssistantCreateInput{Name: "Helpdesk",
		Config: &apiclient.AssistantConfigInput{Language: ptr("en"), Instructions: ptr("Answer briefly.")}})
	s.status("create assistant", a, err, 201)
	if a.JSON201.Config.Timezone != "UTC" || a.JSON201.Config.KnowledgeScope != "all" {
		s.t.Errorf("defaults not answered: %+v", a.JSON201.Config)
	}
	id := a.JSON201.Id
	up, err := s.c.UpdateAssistantWithResponse(s.ctx, s.org, id, apiclient.AssistantInput{Enabled: ptr(false)})
	s.status("update assistant", up, err, 200)
	list, err := s.c.ListAssistantsWithResponse(s.ctx, s.org, nil)
	s.status("list assistants", list, err, 200)
	var content apiclient.KnowledgeInput_Content
	if err := content.FromKnowledgeInputContent0(apiclient.KnowledgeInputContent0{Type: "TEXT", Text: "Items can be returned within 30 days of delivery."}); err != nil {
		s.t.Fatal(err)
	}
	k, err := s.c.CreateKnowledgeContentWithResponse(s.ctx, s.org, id, nil, apiclient.KnowledgeInput{Title: ptr("Returns"), Content: content})
	s.status("create knowledge", k, err, 201)
	s.e.Eventually(10*time.Second, "knowledge processed", func() bool {
		got, err := s.c.GetKnowledgeContentWithResponse(s.ctx, s.org, id, k.JSON201.Id)
		s.status("get knowledge", got, err, 200)
		return got.JSON200.Status != "PENDING" && got.JSON200.Status != "PROCESSING"
	})
	search, err := s.c.SearchKnowledgeWithResponse(s.ctx, s.org, id, &apiclient.SearchKnowledgeParams{Search: "returned"})
	s.status("search knowledge", search, err, 200)
	if len(*search.JSON200) == 0 {
		s.t.Errorf("search found nothing")
	}
	ks, err := s.c.ListKnowledgeContentsWithResponse(s.ctx, s.org, id, nil)
	s.status("list knowledge", ks, err, 200)
	dk, err := s.c.DeleteKnowledgeContentWithResponse(s.ctx, s.org, id, k.JSON201.Id)
	s.status("delete knowledge", dk, err, 204)
}

func (s *scenario) webhooksBroadcastsUsage(contact apiclient.Contact) {
	rcv := apitest.NewReceiver(s.t)
	w, err := s.c.CreateWebhookWithResponse(s.ctx, s.org, nil, apiclient.WebhookInput{Name: "crm", Url: rcv.URL,
		Events: []apiclient.WebhookInputEvents{apiclient.WebhookInputEventsContactBlocked}})
	s.status("create webhook", w, err, 201)
	blk, err := s.c.UpdateContactWithResponse(s.ctx, s.org, contact.Id, apiclient.ContactPatch{Blocked: ptr(true)})
	s.status("block contact", blk, err, 200)
	rcv.Wait(s.t, 1, 10*time.Second)
	s.e.Eventually(10*time.Second, "delivery recorded", func() bool {
		ds, err := s.c.ListWebhookDeliveriesWithResponse(s.ctx, s.org, w.JSON201.Id, nil)
		s.status("list deliveries", ds, err, 200)
		d := *ds.JSON200
		return len(d) == 1 && len(d[0].Attempts) == 1 && d[0].Attempts[0].Status == "succeeded"
	})
	types, err := s.c.ListWebhookEventTypesWithResponse(s.ctx, s.org, nil)
	s.status("event types", types, err, 200)
	ws, err := s.c.ListWebhooksWithResponse(s.ctx, s.org, nil)
	s.status("list webhooks", ws, err, 200)
	wp, err := s.c.UpdateWebhookWithResponse(s.ctx, s.org, w.JSON201.Id, apiclient.WebhookPatch{Enabled: ptr(false)})
	s.status("update webhook", wp, err, 200)

	b, err := s.c.CreateBroadcastWithResponse(s.ctx, s.org, nil, apiclient.BroadcastInput{Name: "News", IntegrationId: apiclient.BroadcastInputIntegrationIdInternal,
		Text: ptr("Hello!"), ContactIds: &[]string{contact.Id}})
	s.status("create broadcast", b, err, 201)
	bs, err := s.c.ListBroadcastsWithResponse(s.ctx, s.org, nil)
	s.status("list broadcasts", bs, err, 200)
	rs, err := s.c.ListBroadcastRecipientsWithResponse(s.ctx, s.org, &apiclient.ListBroadcastRecipientsParams{BroadcastId: &b.JSON201.Id})
	s.status("list recipients", rs, err, 200)
	sup, err := s.c.AddSuppressionWithResponse(s.ctx, s.org, nil, apiclient.SuppressionInput{Email: "bounced@example.com"})
	s.status("add suppression", sup, err, 201)
	sups, err := s.c.ListSuppressionsWithResponse(s.ctx, s.org, nil)
	s.status("list suppressions", sups, err, 200)

	usage, err := s.c.GetUsageWithResponse(s.ctx, s.org, nil)
	s.status("usage", usage, err, 200)
	conn, err := s.c.CreateConnectionWithResponse(s.ctx, s.org, nil, apiclient.ConnectionInput{Type: apiclient.ConnectionInputTypeHTTPCREDENTIALS, Name: "CRM",
		Config: &map[string]any{"base_url": "https://crm.example"}})
	s.status("create connection", conn, err, 201)
	if conn.JSON201.Config["base_url"] != "https://crm.example" {
		s.t.Errorf("connection config %+v", conn.JSON201.Config)
	}
	conns, err := s.c.ListConnectionsWithResponse(s.ctx, s.org, nil)
	s.status("list connections", conns, err, 200)
}

// errors: bad input (which the document must refuse too), another organization's object,
// a missing credential.
func (s *scenario) errors(contact apiclient.Contact) {
	// The generated client checks an email's format itself: send the raw body.
	bad, err := s.c.CreateMemberWithBodyWithResponse(apitest.InvalidContext(s.ctx), s.org, nil, "application/json", strings.NewReader(`{"name": "", "email": "nope"}`))
	s.status("invalid member", bad, err, 400)
	if f := bad.JSON400.Error.Fields; f["email"] == "" {
		s.t.Errorf("400 names %v, want email", f)
	}
	badSeg, err := s.c.CreateSegmentWithResponse(apitest.InvalidContext(s.ctx), s.org, nil, apiclient.SegmentCreateInput{Name: "X", Color: ptr(apiclient.SegmentCreateInputColor("mauve"))})
	s.status("invalid segment color", badSeg, err, 400)
	missing, err := s.c.GetContactWithResponse(s.ctx, s.org, "ctc_doesnotexist")
	s.status("unknown contact", missing, err, 404)
	sub, _ := s.e.OrgWithAdmin("Elsewhere")
	foreign, err := s.c.GetContactWithResponse(s.ctx, sub.ID, contact.Id)
	s.status("another organization", foreign, err, 404)
	anon, err := s.c.GetOrgWithResponse(s.ctx, s.org, func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer sk_wrong")
		return nil
	})
	s.status("bad key", anon, err, 401)
	dupRole, err := s.c.CreateRoleWithResponse(s.ctx, s.org, nil, apiclient.RoleInput{Name: "Support", Permissions: []apiclient.Permission{"inbox:read"}})
	s.status("duplicate role", dupRole, err, 409)
}

// public: the routes without a credential, HTML and JSON alike.
func (s *scenario) public() {
	h, err := s.c.GetHealthWithResponse(s.ctx)
	s.status("health", h, err, 200)
	doc, err := s.c.GetOpenAPIDocumentWithResponse(s.ctx)
	s.status("openapi", doc, err, 200)
	page, err := s.c.UnsubscribeByLinkWithResponse(s.ctx, "not-a-token")
	s.status("bad unsubscribe link", page, err, 404)
	if !strings.HasPrefix(page.HTTPResponse.Header.Get("Content-Type"), "text/html") {
		s.t.Errorf("bad link answered %s", page.HTTPResponse.Header.Get("Content-Type"))
	}
	oneClick, err := s.c.UnsubscribeOneClickWithFormdataBodyWithResponse(s.ctx, "not-a-token", apiclient.UnsubscribeOneClickFormdataRequestBody{ListUnsubscribe: ptr(apiclient.UnsubscribeOneClickFormdataBodyListUnsubscribe("One-Click"))})
	s.status("bad one-click link", oneClick, err, 404)
	pixel, err := s.c.TrackOpenWithResponse(s.ctx, "not-a-token")
	s.status("open pixel", pixel, err, 200)
}

// streamsAndOps: the SSE routes answer text/event-stream (their endless bodies are not read),
// /metrics answers text/plain with its own token, and the email settings list.
func (s *scenario) streamsAndOps() {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	res, err := s.c.ClientInterface.(*apiclient.Client).StreamEvents(ctx, s.org, nil)
	if err != nil || res.StatusCode != 200 {
		s.t.Fatalf("event stream: %v %v", res, err)
	}
	res.Body.Close()
	cancel()
	m, err := s.c.GetMetricsWithResponse(s.ctx, func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+metricsToken)
		return nil
	})
	s.status("metrics", m, err, 200)
	if !strings.Contains(string(m.Body), "# TYPE") {
		s.t.Errorf("metrics body %.200s", m.Body)
	}
	ds, err := s.c.ListDomainsWithResponse(s.ctx, s.org, nil)
	s.status("list domains", ds, err, 200)
	ids, err := s.c.ListIdentitiesWithResponse(s.ctx, s.org, nil)
	s.status("list identities", ids, err, 200)
	nd, err := s.c.GetDomainWithResponse(s.ctx, s.org, "dom_unknown")
	s.status("unknown domain", nd, err, 404)
}
