package app

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // timezones validate the same on machines without zoneinfo
)

// ConversationConfig is the conversation part of an assistant's configuration.
type ConversationConfig struct {
	ThreadMode                string   `json:"thread_mode"`
	EnableMemories            bool     `json:"enable_memories"`
	EnableTransferToHumanTool bool     `json:"enable_transfer_to_human_tool"`
	EnableEndConversationTool bool     `json:"enable_end_conversation_tool"`
	EnableBlockContactTool    bool     `json:"enable_block_contact_tool"`
	EnableAutoResolve         bool     `json:"enable_auto_resolve"`
	EnableAutoFollowUps       bool     `json:"enable_auto_follow_ups"`
	EnableAutoCSAT            bool     `json:"enable_auto_csat"`
	EnablePrivateChats        bool     `json:"enable_private_chats"`
	WelcomeBanner             string   `json:"welcome_banner"`
	AutoIntroMessage          string   `json:"auto_intro_message"`
	SuggestedMessages         []string `json:"suggested_messages"`
}

// AssistantConfig is the spec's assistant_config.
type AssistantConfig struct {
	Language       string             `json:"language"`
	Model          string             `json:"model"`
	STT            ModelRef           `json:"stt"`
	TTS            VoiceRef           `json:"tts"`
	Conversation   ConversationConfig `json:"conversation"`
	KnowledgeScope string             `json:"knowledge_scope"`
	Timezone       string             `json:"timezone"`
	Instructions   string             `json:"instructions"`
}

// ModelRef names a model.
type ModelRef struct {
	Model string `json:"model"`
}

// VoiceRef names a speech model and its voice.
type VoiceRef struct {
	Model   string `json:"model"`
	VoiceID string `json:"voice_id"`
}

// Assistant is an AI assistant of the organization.
type Assistant struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	AvatarURL string          `json:"avatar_url"`
	Enabled   bool            `json:"enabled"`
	Deleted   bool            `json:"deleted"`
	Config    AssistantConfig `json:"config"`
	CreatedAt Time            `json:"created_at"`
	UpdatedAt Time            `json:"updated_at"`
	OrgID     string          `json:"-"`
}

// AssistantTx is the assistants part of a transaction.
type AssistantTx interface {
	CreateAssistant(a Assistant) error
	GetAssistant(orgID, id string) (Assistant, error)
	UpdateAssistant(a Assistant) error
	ListAssistants(orgID, search string, p Page) ([]Assistant, int, error)
}

// AutoModel is the automatic model choice.
const AutoModel = "auto:auto"

var modelPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*:[A-Za-z0-9][A-Za-z0-9_.:/-]*$`)

// ValidModel tells a model id of the form <provider>:<model>.
func ValidModel(m string) bool { return len(m) <= 128 && modelPattern.MatchString(m) }

var languagePattern = regexp.MustCompile(`^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$`)

// DefaultAssistantConfig is what an assistant starts with.
func DefaultAssistantConfig() AssistantConfig {
	return AssistantConfig{Language: "auto", Model: AutoModel, KnowledgeScope: "all", Timezone: "UTC",
		Conversation: ConversationConfig{ThreadMode: "new", SuggestedMessages: []string{}}}
}

func validateAssistantConfig(p Problems, c AssistantConfig) {
	if c.Language != "auto" && !languagePattern.MatchString(c.Language) {
		p.Add("config.language", "must be auto or a language code such as en or pt-BR")
	}
	for field, m := range map[string]string{"config.model": c.Model, "config.stt.model": c.STT.Model, "config.tts.model": c.TTS.Model} {
		if m != "" && !ValidModel(m) {
			p.Add(field, "must be a model id <provider>:<model>, or auto:auto")
		}
	}
	if c.Model == "" {
		p.Add("config.model", "is required")
	}
	if _, err := time.LoadLocation(c.Timezone); err != nil || c.Timezone == "" || c.Timezone == "Local" {
		p.Add("config.timezone", "must be an IANA time zone such as Europe/Paris")
	}
	if !slices.Contains([]string{"all", "none", "selected"}, c.KnowledgeScope) {
		p.Add("config.knowledge_scope", "must be all, none or selected")
	}
	if !slices.Contains([]string{"new", "continue"}, c.Conversation.ThreadMode) {
		p.Add("config.conversation.thread_mode", "must be new or continue")
	}
	if CharCount(c.Instructions) > 20000 {
		p.Add("config.instructions", "must be at most 20000 characters")
	}
	if len(c.Conversation.SuggestedMessages) > 10 {
		p.Add("config.conversation.suggested_messages", "must hold at most 10 messages")
	}
}

// AssistantInput creates or (nil fields left alone) changes an assistant. A config replaces
// the whole configuration; fields it leaves out take their defaults.
type AssistantInput struct {
	Name      *string          `json:"name"`
	AvatarURL *string          `json:"avatar_url"`
	Enabled   *bool            `json:"enabled"`
	Config    *AssistantConfig `json:"config"`
}

func (s *Service) validateAssistant(in AssistantInput, creating bool) error {
	p := Problems{}
	validateNameField(p, "name", in.Name, creating, 255)
	if in.AvatarURL != nil {
		validateURL(p, "avatar_url", *in.AvatarURL)
	}
	if in.Config != nil {
		validateAssistantConfig(p, *in.Config)
	}
	return p.Err()
}

// CreateAssistant adds an assistant, enabled unless told otherwise.
func (s *Service) CreateAssistant(ctx context.Context, orgID string, in AssistantInput) (Assistant, error) {
	in.Config = withConfigDefaults(in.Config)
	if err := s.validateAssistant(in, true); err != nil {
		return Assistant{}, err
	}
	now := s.now()
	a := Assistant{ID: NewID("asst"), OrgID: orgID, Name: strings.TrimSpace(*in.Name), Enabled: true,
		Config: *in.Config, CreatedAt: now, UpdatedAt: now}
	applyAssistant(&a, in)
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateAssistant(a) })
	return a, err
}

// withConfigDefaults fills what a client left empty in a config.
func withConfigDefaults(c *AssistantConfig) *AssistantConfig {
	d := DefaultAssistantConfig()
	if c == nil {
		return &d
	}
	out := *c
	if out.Language == "" {
		out.Language = d.Language
	}
	if out.Model == "" {
		out.Model = d.Model
	}
	if out.KnowledgeScope == "" {
		out.KnowledgeScope = d.KnowledgeScope
	}
	if out.Timezone == "" {
		out.Timezone = d.Timezone
	}
	if out.Conversation.ThreadMode == "" {
		out.Conversation.ThreadMode = d.Conversation.ThreadMode
	}
	if out.Conversation.SuggestedMessages == nil {
		out.Conversation.SuggestedMessages = []string{}
	}
	return &out
}

func applyAssistant(a *Assistant, in AssistantInput) {
	if in.Name != nil {
		a.Name = strings.TrimSpace(*in.Name)
	}
	if in.AvatarURL != nil {
		a.AvatarURL = *in.AvatarURL
	}
	if in.Enabled != nil {
		a.Enabled = *in.Enabled
	}
	if in.Config != nil {
		a.Config = *in.Config
	}
}

// GetAssistant reads an assistant; a deleted one is gone for the API (chats still name it).
func (s *Service) GetAssistant(ctx context.Context, orgID, id string) (a Assistant, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		a, err = tx.GetAssistant(orgID, id)
		if err == nil && a.Deleted {
			err = NotFound("assistant")
		}
		return err
	})
	return a, err
}

// ListAssistants lists assistants not deleted, by name; search matches the name.
func (s *Service) ListAssistants(ctx context.Context, orgID, search string, pg Page) (l List[Assistant], err error) {
	p := Problems{}
	if validateSearch(p, search, false); len(p) > 0 {
		return l, p.Err()
	}
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Assistant, int, error) { return tx.ListAssistants(orgID, search, pg) })
}

// UpdateAssistant applies a PATCH.
func (s *Service) UpdateAssistant(ctx context.Context, orgID, id string, in AssistantInput) (a Assistant, err error) {
	if in.Config != nil {
		in.Config = withConfigDefaults(in.Config)
	}
	if err := s.validateAssistant(in, false); err != nil {
		return Assistant{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if a, err = tx.GetAssistant(orgID, id); err != nil {
			return err
		}
		if a.Deleted {
			return NotFound("assistant")
		}
		applyAssistant(&a, in)
		a.UpdatedAt = s.now()
		return tx.UpdateAssistant(a)
	})
	return a, err
}

// DeleteAssistant marks an assistant deleted: its chats keep naming it (deleted: true).
func (s *Service) DeleteAssistant(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		a, err := tx.GetAssistant(orgID, id)
		if err != nil {
			return err
		}
		if a.Deleted {
			return NotFound("assistant")
		}
		a.Deleted, a.Enabled, a.UpdatedAt = true, false, s.now()
		return tx.UpdateAssistant(a)
	})
}
