package api

import (
	"strings"

	"wsapi/app"
)

// PublicLinks builds the domain's links (app.Links) under the public URL, on the paths of
// the route table (routes.go: /u/{token}, /t/o/{token}, /t/c/{token} and a chat's
// files/{file_id}); TestLinksMatchRoutes keeps the two together.
type PublicLinks struct {
	Base string // http.public_url, no trailing slash needed
}

var _ app.Links = PublicLinks{}

// NewLinks answers the links under publicURL.
func NewLinks(publicURL string) PublicLinks {
	return PublicLinks{Base: strings.TrimSuffix(publicURL, "/")}
}

// Unsubscribe is the unsubscribe route.
func (l PublicLinks) Unsubscribe(token string) string { return l.Base + "/u/" + token }

// TrackOpen is the open-tracking route.
func (l PublicLinks) TrackOpen(token string) string { return l.Base + "/t/o/" + token }

// TrackClick is the click-tracking route.
func (l PublicLinks) TrackClick(token string) string { return l.Base + "/t/c/" + token }

// ChatFile is the route of a chat's file.
func (l PublicLinks) ChatFile(orgID, chatID, fileID string) string {
	return l.Base + "/orgs/" + orgID + "/chats/" + chatID + "/files/" + fileID
}

// WidgetScript is the web widget's loader.
func (l PublicLinks) WidgetScript() string { return l.Base + "/widget.js" }
