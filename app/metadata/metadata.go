package metadata

import (
	"slices"
	"strings"

	"wsapi/app"
)

// Metadata is the value sets of the API with labels, for building user interfaces.
type Metadata struct {
	Lang            string                  `json:"lang"`
	Sets            map[string][]app.Option `json:"sets"`
	SupportedLangs  []string                `json:"supported_langs"`
	FallbackApplied bool                    `json:"fallback_applied"`
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

// Get answers the value sets labelled in lang (a language code, at most 32
// characters); an unknown language falls back to English.
func Get(lang string) (Metadata, error) {
	if app.CharCount(lang) > 32 {
		return Metadata{}, app.Invalid("lang", "must be at most 32 characters")
	}
	base := strings.ToLower(strings.SplitN(strings.ReplaceAll(lang, "_", "-"), "-", 2)[0])
	tr, ok := labels[base]
	md := Metadata{Lang: base, Sets: map[string][]app.Option{}, SupportedLangs: []string{"en", "es", "fr"}}
	if !ok {
		md.Lang, md.FallbackApplied = "en", lang != "" && base != "en"
	}
	sets := map[string][]string{
		"integration_id": app.Integrations, "chat_status": app.RunStatuses, "chat_state": app.ChatStates,
		"visibility": app.Visibilities, "memory_type": app.MemoryTypes, "segment_color": app.SegmentColors,
		"inbox_filter": app.InboxFilters, "ai_status": app.AIStatuses, "media_format": app.MediaFormatNames,
		"message_role": app.MessageRoles, "field_type": app.FieldTypes, "connection_type": app.ConnectionTypes,
	}
	for name, values := range sets {
		md.Sets[name] = labelled(tr, values)
	}
	return md, nil
}

func labelled(tr map[string]string, values []string) []app.Option {
	opts := make([]app.Option, len(values))
	for i, v := range values {
		label := tr[v]
		if label == "" {
			label = englishLabel(v)
		}
		opts[i] = app.Option{Value: v, Label: label}
	}
	return opts
}

// ForService is Get with the set `assistant_integration_id`: the channels an
// assistant can be deployed on with this server, so that no client offers one that cannot be
// connected yet (the widget and custom always; email, telegram and whatsapp once their
// connectors are wired). The set integration_id marks each value available or not, on the
// same rule: Messenger, Instagram, SMS and the others have no connector yet.
func ForService(svc *app.Service, lang string) (Metadata, error) {
	md, err := Get(lang)
	if err != nil {
		return md, err
	}
	var types []string
	for _, t := range app.DeploymentTypes {
		if svc.Deployable(t) {
			types = append(types, t)
		}
	}
	md.Sets["assistant_integration_id"] = labelled(labels[md.Lang], types)
	for i, o := range md.Sets["integration_id"] {
		ok := slices.Contains(types, o.Value)
		md.Sets["integration_id"][i].Available = &ok
	}
	return md, nil
}
