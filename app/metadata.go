package app

import "strings"

// Option is one value of a value set with its label in the asked language.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Metadata is the value sets of the API with labels, for building user interfaces.
type Metadata struct {
	Lang            string              `json:"lang"`
	Sets            map[string][]Option `json:"sets"`
	SupportedLangs  []string            `json:"supported_langs"`
	FallbackApplied bool                `json:"fallback_applied"`
}

// labels holds translations by language; English is complete, others fall back per value.
var labels = map[string]map[string]string{
	"es": {"OPEN": "Abierta", "SNOOZED": "Pospuesta", "CLOSED": "Cerrada", "RUNNING": "En curso",
		"COMPLETED": "Completada", "FAILED": "Fallida", "CANCELED": "Cancelada", "PRIVATE": "Privada",
		"PUBLIC_READ": "Pública (lectura)", "PUBLIC_WRITE": "Pública (escritura)", "FACT": "Hecho",
		"PREFERENCE": "Preferencia", "GOAL": "Objetivo", "EXPERIENCE": "Experiencia", "ALL": "Todas",
		"UNREAD": "No leídas", "UNRESOLVED": "Sin resolver", "RESOLVED": "Resueltas",
		"ASSIGNED_TO_ME": "Asignadas a mí", "UNASSIGNED": "Sin asignar"},
	"fr": {"OPEN": "Ouverte", "SNOOZED": "En pause", "CLOSED": "Fermée", "RUNNING": "En cours",
		"COMPLETED": "Terminée", "FAILED": "Échouée", "CANCELED": "Annulée", "PRIVATE": "Privée",
		"PUBLIC_READ": "Publique (lecture)", "PUBLIC_WRITE": "Publique (écriture)", "FACT": "Fait",
		"PREFERENCE": "Préférence", "GOAL": "Objectif", "EXPERIENCE": "Expérience", "ALL": "Toutes",
		"UNREAD": "Non lues", "UNRESOLVED": "Non résolues", "RESOLVED": "Résolues",
		"ASSIGNED_TO_ME": "Assignées à moi", "UNASSIGNED": "Non assignées"},
}

var wordBreaks = strings.NewReplacer("_", " ", "-", " ", ":", " ")

// englishLabel turns OPEN_THING or open_thing into "Open thing".
func englishLabel(v string) string {
	s := strings.ToLower(wordBreaks.Replace(v))
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// GetMetadata answers the value sets labelled in lang (a language code, at most 32
// characters); an unknown language falls back to English.
func GetMetadata(lang string) (Metadata, error) {
	if CharCount(lang) > 32 {
		return Metadata{}, Invalid("lang", "must be at most 32 characters")
	}
	base := strings.ToLower(strings.SplitN(strings.ReplaceAll(lang, "_", "-"), "-", 2)[0])
	tr, ok := labels[base]
	md := Metadata{Lang: base, Sets: map[string][]Option{}, SupportedLangs: []string{"en", "es", "fr"}}
	if !ok {
		md.Lang, md.FallbackApplied = "en", lang != "" && base != "en"
	}
	sets := map[string][]string{
		"integration_id": Integrations, "chat_status": RunStatuses, "chat_state": ChatStates,
		"visibility": Visibilities, "memory_type": MemoryTypes, "segment_color": SegmentColors,
		"inbox_filter": InboxFilters, "ai_status": AIStatuses, "media_format": MediaFormatNames,
		"message_role": MessageRoles, "field_type": FieldTypes, "connection_type": ConnectionTypes,
	}
	for name, values := range sets {
		md.Sets[name] = labelled(tr, values)
	}
	return md, nil
}

func labelled(tr map[string]string, values []string) []Option {
	opts := make([]Option, len(values))
	for i, v := range values {
		label := tr[v]
		if label == "" {
			label = englishLabel(v)
		}
		opts[i] = Option{Value: v, Label: label}
	}
	return opts
}

// Metadata is GetMetadata with the set `assistant_integration_id`: the channels an
// assistant can be deployed on with this server, so that no client offers one that cannot be
// connected yet (the widget and custom always; email, telegram and whatsapp once their
// connectors are wired).
func (s *Service) Metadata(lang string) (Metadata, error) {
	md, err := GetMetadata(lang)
	if err != nil {
		return md, err
	}
	var types []string
	for _, t := range DeploymentTypes {
		if t == IntegrationInternal || t == IntegrationCustom || s.d.Connectors[t] != nil {
			types = append(types, t)
		}
	}
	md.Sets["assistant_integration_id"] = labelled(labels[md.Lang], types)
	return md, nil
}

// MediaFormatNames is the spec's Media format value set, in its order (the keys of
// MediaFormats).
var MediaFormatNames = []string{"opus-rtp", "opus-raw", "opus-ogg", "pcm-wav", "pcm-raw", "mp3", "m4a", "mulaw"}

// FieldTypes is the spec's Field type value set.
var FieldTypes = []string{"object", "id", "string", "number", "boolean", "date", "datetime", "time", "enum", "file",
	"content", "connection", "record", "contact", "user", "chat", "segment", "assistant", "agent"}

// ConnectionTypes are the generic connection types of the spec and the provider-named ones.
var ConnectionTypes = []string{"SCHEDULER", "WORKFLOWS", "TOOLS", "FILES", "EMAILS", "HTTP_CREDENTIALS", "AUDIENCE",
	"PHONE", "OAUTH", "MCP", "HUBSPOT", "SALESFORCE", "GOOGLE", "MICROSOFT", "SLACK", "ZENDESK"}
