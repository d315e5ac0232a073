package web

import (
	"net/http"
	"slices"
	"strings"

	"wsapi/app"
)

// assistantRoutes are the assistant settings pages: the assistants, their knowledge, their
// channels and the playground. Each names the API's permission for the same thing:
// assistants and their integrations are the assistants area, knowledge the knowledge area,
// and the playground's chat the inbox (it is a chat, as POST /chats makes one).
func (s *Server) assistantRoutes() []route {
	rd, wr := app.Read, app.Write
	get, post := http.MethodGet, http.MethodPost
	return []route{
		{method: get, path: "/app/assistants", perm: rd("assistants"), handle: s.assistants},
		{method: post, path: "/app/assistants", perm: wr("assistants"), handle: s.createAssistant},
		{method: get, path: "/app/assistants/:id", perm: rd("assistants"), handle: s.assistant},
		{method: post, path: "/app/assistants/:id", perm: wr("assistants"), handle: s.updateAssistant},
		{method: post, path: "/app/assistants/:id/delete", perm: wr("assistants"), handle: s.deleteAssistant},

		{method: get, path: "/app/assistants/:id/knowledge", perm: rd("knowledge"), handle: s.knowledge},
		{method: post, path: "/app/assistants/:id/knowledge", perm: wr("knowledge"), handle: s.addKnowledge},
		{method: get, path: "/app/assistants/:id/knowledge/list", perm: rd("knowledge"), handle: s.knowledgeList},
		{method: get, path: "/app/assistants/:id/knowledge/search", perm: rd("knowledge"), handle: s.knowledgeSearch},
		{method: post, path: "/app/assistants/:id/knowledge/items/:kid/retry", perm: wr("knowledge"), handle: s.retryKnowledge},
		{method: post, path: "/app/assistants/:id/knowledge/items/:kid/delete", perm: wr("knowledge"), handle: s.deleteKnowledge},

		{method: get, path: "/app/assistants/:id/channels", perm: rd("assistants"), handle: s.channels},
		{method: post, path: "/app/assistants/:id/channels", perm: wr("assistants"), handle: s.createChannel},
		{method: post, path: "/app/assistants/:id/channels/:asi", perm: wr("assistants"), handle: s.updateChannel},
		{method: post, path: "/app/assistants/:id/channels/:asi/enabled", perm: wr("assistants"), handle: s.enableChannel},
		{method: post, path: "/app/assistants/:id/channels/:asi/test", perm: wr("assistants"), handle: s.testChannel},
		{method: post, path: "/app/assistants/:id/channels/:asi/rotate", perm: wr("assistants"), handle: s.rotateChannel},
		{method: post, path: "/app/assistants/:id/channels/:asi/delete", perm: wr("assistants"), handle: s.deleteChannel},

		{method: get, path: "/app/assistants/:id/playground", perm: rd("assistants"), handle: s.playground},
		{method: post, path: "/app/assistants/:id/playground", perm: wr("inbox"), handle: s.startPlayground},
		{method: post, path: "/app/assistants/:id/playground/:chat", perm: wr("inbox"), handle: s.sayPlayground},
	}
}

// assistantsView is the list of assistants with the create form.
type assistantsView struct {
	Items    []app.Assistant
	CanWrite bool
	Models   []string
	Errors   formErrors
	Form     app.Assistant // what was typed, after a failed create
}

// assistantView is one assistant's settings form, with the tabs of its other pages.
type assistantView struct {
	A         app.Assistant
	Tab       string
	CanWrite  bool
	Models    []string
	Suggested string
	Errors    formErrors
	Saved     bool
	Nav       assistantNav
}

// assistantNav is what the tabs of an assistant's pages offer the role.
type assistantNav struct {
	ID, Name, Tab             string
	Knowledge, Play, Channels bool
}

func (s *Server) nav(rq *Request, a app.Assistant, tab string) assistantNav {
	return assistantNav{ID: a.ID, Name: a.Name, Tab: tab, Knowledge: rq.Can(app.Read("knowledge")),
		Channels: true, Play: rq.Can(app.Write("inbox")) && rq.Can(app.Read("inbox"))}
}

// models are the choices of the model field: auto, the builtin model, and the models and
// providers the server is configured with (a provider's models are typed after its "name:").
func (s *Server) models() []string {
	out := []string{app.AutoModel, "builtin:retrieval"}
	for _, m := range s.cfg.Models {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// assistants is GET /app/assistants.
func (s *Server) assistants(rq *Request) error {
	return s.renderAssistants(rq, http.StatusOK, nil, app.Assistant{Config: app.DefaultAssistantConfig()})
}

func (s *Server) renderAssistants(rq *Request, status int, fe formErrors, form app.Assistant) error {
	l, err := s.svc.ListAssistants(rq.Ctx(), rq.Org(), "", app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return err
	}
	v := assistantsView{Items: l.Items, CanWrite: rq.Can(app.Write("assistants")), Models: s.models(), Errors: fe, Form: form}
	return s.render(rq, status, "assistants", s.page(rq, "Assistants", v))
}

// createAssistant is POST /app/assistants: the API's CreateAssistant with the form's name,
// model, language and instructions.
func (s *Server) createAssistant(rq *Request) error {
	parseForm(rq)
	in := assistantInput(rq, app.DefaultAssistantConfig(), false)
	a, err := s.svc.CreateAssistant(rq.Ctx(), rq.Org(), in)
	if err != nil {
		fe, ok := asFormErrors(err)
		if !ok {
			return err
		}
		return s.renderAssistants(rq, http.StatusBadRequest, fe, typed(app.Assistant{}, in))
	}
	return seeOther(rq, "/app/assistants/"+a.ID)
}

// assistantInput reads the assistant form over a base config (the stored one: the fields
// the form does not show are kept). full is the settings form, with its switches.
func assistantInput(rq *Request, base app.AssistantConfig, full bool) app.AssistantInput {
	name := field(rq, "name")
	cfg := base
	cfg.Model, cfg.Language = field(rq, "config.model"), field(rq, "config.language")
	cfg.Instructions = strings.TrimSpace(rq.R.PostFormValue("config.instructions"))
	in := app.AssistantInput{Name: &name, Config: &cfg}
	if !full {
		return in
	}
	cfg.Timezone = field(rq, "config.timezone")
	cfg.STT.Model, cfg.TTS.Model = field(rq, "config.stt.model"), field(rq, "config.tts.model")
	cfg.TTS.VoiceID = field(rq, "config.tts.voice_id")
	c := &cfg.Conversation
	c.EnableTransferToHumanTool = checked(rq, "config.conversation.enable_transfer_to_human_tool")
	c.EnableEndConversationTool = checked(rq, "config.conversation.enable_end_conversation_tool")
	c.EnableBlockContactTool = checked(rq, "config.conversation.enable_block_contact_tool")
	c.EnableMemories = checked(rq, "config.conversation.enable_memories")
	c.EnableAutoResolve = checked(rq, "config.conversation.enable_auto_resolve")
	c.EnableAutoFollowUps = checked(rq, "config.conversation.enable_auto_follow_ups")
	c.EnableAutoCSAT = checked(rq, "config.conversation.enable_auto_csat")
	c.WelcomeBanner = field(rq, "config.conversation.welcome_banner")
	c.AutoIntroMessage = field(rq, "config.conversation.auto_intro_message")
	c.SuggestedMessages = lines(rq.R.PostFormValue("config.conversation.suggested_messages"))
	enabled := checked(rq, "enabled")
	in.Enabled = &enabled
	return in
}

// typed is a shown with what the member typed, to show a failed form again as it was.
func typed(a app.Assistant, in app.AssistantInput) app.Assistant {
	if in.Name != nil {
		a.Name = *in.Name
	}
	if in.Enabled != nil {
		a.Enabled = *in.Enabled
	}
	if in.Config != nil {
		a.Config = *in.Config
	}
	return a
}

// assistant is GET /app/assistants/{id}: its settings.
func (s *Server) assistant(rq *Request) error {
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	return s.renderAssistant(rq, http.StatusOK, a, nil, rq.R.URL.Query().Get("saved") == "1")
}

func (s *Server) renderAssistant(rq *Request, status int, a app.Assistant, fe formErrors, saved bool) error {
	v := assistantView{A: a, CanWrite: rq.Can(app.Write("assistants")), Models: s.models(), Errors: fe, Saved: saved,
		Suggested: strings.Join(a.Config.Conversation.SuggestedMessages, "\n"), Nav: s.nav(rq, a, "settings")}
	return s.render(rq, status, "assistant", s.page(rq, a.Name+" · Assistant", v))
}

// updateAssistant is POST /app/assistants/{id}: the API's PATCH with the whole form.
func (s *Server) updateAssistant(rq *Request) error {
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	parseForm(rq)
	in := assistantInput(rq, a.Config, true)
	if _, err := s.svc.UpdateAssistant(rq.Ctx(), rq.Org(), a.ID, in); err != nil {
		fe, ok := asFormErrors(err)
		if !ok {
			return err
		}
		return s.renderAssistant(rq, http.StatusBadRequest, typed(a, in), fe, false)
	}
	return seeOther(rq, "/app/assistants/"+a.ID+"?saved=1")
}

// deleteAssistant is POST /app/assistants/{id}/delete.
func (s *Server) deleteAssistant(rq *Request) error {
	if err := s.svc.DeleteAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return err
	}
	return seeOther(rq, "/app/assistants")
}
